/*
 * The /device page (docs/device.md): the user types the code a device
 * shows; the code names the client and so the project, whose signed-in
 * session the page then needs (else the project's sign-in page first, and
 * back here); the approval page names the app, what it asks for, and the
 * device's address and time; Approve or Deny posts back, from our own
 * origin only, with a form value bound to the session and the code (which
 * a decision spends). Wrong codes count against the address, and on a post
 * against the session too, like failed sign-ins. Never shows a code of
 * another device than the one typed, nor a device code at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access_rules.h"
#include "api_device.h"
#include "config.h"
#include "console.h"
#include "console_page.h"
#include "device_grant.h"
#include "form.h"
#include "html.h"
#include "metrics.h"
#include "request.h"
#include "session.h"
#include "store_clients.h"
#include "store_users.h"
#include "throttle.h"
#include "timestamp.h"
#include "util.h"

#define DEVICE_PATH "/device"

struct device_view {
	char code[DEVICE_USER_CODE_LEN + 1];      /* normalized */
	char code_hash[SECRET_HASH_LEN + 1];
	struct device_row row;
	char *cookie;                             /* the project's session cookie; wiped */
	struct session_lookup session;
	char token[SECRET_HASH_LEN + 1];          /* the form value of this session and code */
	char *client_name;
	char *permissions;
	bool approve;
	struct event_origin by;
	struct event ev;
	struct device_decision decision;
	struct access_check access;               /* the client's access rule, on approval */
	bool access_denied;
};

static void device_view_release(void *p)
{
	struct device_view *v = p;

	device_row_release(&v->row);
	crypto_free_wiped(v->cookie);
	session_lookup_release(&v->session);
	free(v->client_name);
	free(v->permissions);
	device_decision_release(&v->decision);
	access_check_release(&v->access);
}

static struct device_view *view_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof(struct device_view), device_view_release);
}

bool device_page_return_ok(const char *issuer, const char *uri)
{
	char code[DEVICE_USER_CODE_LEN + 1];
	size_t n = strlen(issuer);
	const char *rest;

	if (strncmp(uri, issuer, n) != 0 || strncmp(uri + n, DEVICE_PATH "?user_code=",
	                                            strlen(DEVICE_PATH "?user_code=")) != 0)
		return false;
	rest = uri + n + strlen(DEVICE_PATH "?user_code=");
	return strlen(rest) == DEVICE_USER_CODE_LEN && device_user_code_normalize(rest, code) == 0 &&
	       strcmp(rest, code) == 0;
}

/* ---- the pages ---- */

static void page_reply(struct request_ctx *ctx, int status, const char *title,
                       const char *text, bool error)
{
	struct console_page p;

	console_page_begin(&p, title, NULL, NULL, 0, NULL, NULL);
	if (error)
		console_page_error(&p, text);
	else
		console_page_text(&p, text);
	console_page_reply(ctx, status, &p);
}

/* The code entry form, with error (NULL: none) beside the field. */
static enum step_result entry_page(struct request_ctx *ctx, int status, const char *error)
{
	struct console_page p;

	console_page_begin(&p, "Connect a device", NULL, NULL, 0, NULL, NULL);
	console_page_text(&p, "Type the code your device shows. Only do this for a device in "
	                  "front of you: anyone who has you type a code gets your access.");
	console_page_form_begin(&p, DEVICE_PATH, "get", NULL);
	console_page_field(&p, &(struct console_field){
		.name = "user_code", .label = "Code", .type = "text", .error = error,
		.required = true });
	console_page_submit(&p, "Continue");
	console_page_form_end(&p);
	console_page_reply(ctx, status, &p);
	return STEP_DONE;
}

/* docs/device.md: wrong codes count like failed sign-ins, against the
 * address ([signin] max_failures_per_address within window_s) and, on a
 * post, the session ([signin] max_failures). */
static void guess_key(const char *kind, const char *id, char *out, size_t size)
{
	snprintf(out, size, "device %s %s", kind, id ? id : "");
}

/* Whether the address (or the session, NULL: none) may not try a code now:
 * then the 429 page has been sent. */
static bool throttled(struct request_ctx *ctx, const char *session_id)
{
	struct server *srv = ctx->http.srv;
	char key[160], after[16];
	int wait;

	guess_key("address", request_client_address(ctx), key, sizeof key);
	wait = throttle_wait_s(srv->device_guesses, key, now_ms());
	if (wait == 0 && session_id) {
		guess_key("session", session_id, key, sizeof key);
		wait = throttle_wait_s(srv->device_sessions, key, now_ms());
	}
	if (wait == 0)
		return false;
	metrics_device(METRICS_DEVICE_THROTTLED);
	snprintf(after, sizeof after, "%d", wait);
	http_add_header(ctx, "Retry-After", after);
	page_reply(ctx, 429, "Too many attempts",
	           "Too many wrong codes from here. Wait a few minutes, then try again.", true);
	return true;
}

/* A code that is no live, undecided one: counted, then the form again. */
static enum step_result wrong_code(struct request_ctx *ctx, const char *session_id)
{
	struct server *srv = ctx->http.srv;
	char key[160];

	metrics_device(METRICS_DEVICE_WRONG_CODE);
	guess_key("address", request_client_address(ctx), key, sizeof key);
	throttle_fail(srv->device_guesses, key, now_ms());
	if (session_id) {
		guess_key("session", session_id, key, sizeof key);
		throttle_fail(srv->device_sessions, key, now_ms());
	}
	return entry_page(ctx, 400, "That code is unknown, expired or already used. Check the "
	                  "code on your device.");
}

/* ---- the steps GET and POST share ---- */

/* The typed code (the query's or the form's): none is the entry form. */
static enum step_result code_read(struct flow *f, const struct evkeyvalq *q)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);
	const char *typed = NULL;
	struct api_error err;

	if (form_get(q, "user_code", &typed, &err) < 0)
		return entry_page(ctx, 400, "Send the code once.");
	if (!typed || !*typed)
		return entry_page(ctx, 200, NULL);
	if (throttled(ctx, NULL))
		return STEP_DONE;
	if (device_user_code_normalize(typed, v->code) < 0)
		return wrong_code(ctx, NULL);
	device_user_code_hash(v->code, v->code_hash);
	store_device_find(ctx->http.srv->store, v->code_hash, now_ms(), &v->row,
	                  flow_completion(f));
	return STEP_WAIT;
}

static enum step_result found(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);

	if (!v->row.found)
		return wrong_code(ctx, NULL);
	v->cookie = html_session_cookie(ctx, v->row.project_id);
	session_find(&v->session, ctx->http.srv, v->cookie, v->row.project_id, flow_completion(f));
	return STEP_WAIT;
}

/* No session of the project: a GET goes to its sign-in page, as the
 * console's client (console.h), and comes back here with the code; a post
 * is refused (it may be a forged one). */
static enum step_result session_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);
	const char *issuer = ctx->http.srv->cfg->issuer;
	const char *names[] = { "response_type", "client_id", "redirect_uri" };
	char *client_id, *back, *base;

	if (v->session.row.found) {
		char purpose[64];

		snprintf(purpose, sizeof purpose, "device %s", v->code);
		session_form_value(purpose, v->cookie, v->token);
		if (throttled(ctx, v->session.row.id))
			return STEP_DONE;
		return v->row.state == DEVICE_PENDING ? STEP_NEXT : wrong_code(ctx, v->session.row.id);
	}
	if (v->row.state != DEVICE_PENDING)
		return wrong_code(ctx, NULL);
	if (ctx->http.method == EVHTTP_REQ_POST) {
		page_reply(ctx, 403, "Not signed in", "This form needs a signed-in session. "
		           "Nothing was changed.", true);
		return STEP_DONE;
	}
	client_id = xasprintf(CONSOLE_CLIENT_PREFIX "%s", v->row.project_id);
	back = xasprintf("%s" DEVICE_PATH "?user_code=%s", issuer, v->code);
	base = xasprintf("%s/api/v1/authorize", issuer);
	html_redirect(ctx, html_redirect_url(base, names,
	                                     (const char *const[]){ "code", client_id, back }, 3));
	free(client_id);
	free(back);
	free(base);
	return STEP_DONE;
}

/* ---- GET /device ---- */

static enum step_result get_read(struct flow *f)
{
	return code_read(f, &request_of(f)->query);
}

static enum step_result name_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);

	store_client_name(ctx->http.srv->store, v->row.client_id, &v->client_name,
	                  flow_completion(f));
	return STEP_WAIT;
}

static enum step_result permissions_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);

	store_user_scope(ctx->http.srv->store, v->session.row.user_id, &v->permissions,
	                 flow_completion(f));
	return STEP_WAIT;
}

/* One of the two forms: the decision, the code, and the form value. */
static void decision_form(struct console_page *p, const struct device_view *v,
                          const char *decision, const char *label)
{
	console_page_form_begin(p, DEVICE_PATH, "post", v->token);
	console_page_field(p, &(struct console_field){
		.name = "user_code", .type = "hidden", .value = v->code });
	console_page_field(p, &(struct console_field){
		.name = "decision", .type = "hidden", .value = decision });
	console_page_submit(p, label);
	console_page_form_end(p);
}

/* docs/device.md: what the user approves, said plainly. */
static enum step_result approval_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);
	const char *heads[] = { "What", "Value" };
	char when[TIMESTAMP_LEN], shown[DEVICE_USER_CODE_LEN + 2];
	struct console_page p;

	format_timestamp(v->row.created_at, when);
	/* as the device shows it (RFC 8628 §6.1), so that the two compare at a glance */
	snprintf(shown, sizeof shown, "%.4s-%s", v->code, v->code + 4);
	console_page_begin(&p, "Approve a device?", NULL, NULL, 0, NULL, NULL);
	console_page_text(&p, "A device asks to act as you. Approve only if you started this on "
	                  "a device in front of you and its code is the one you typed.");
	console_page_table_begin(&p, "The request", heads, 2);
	console_page_table_row(&p, (const char *const[]){ "App",
	                       v->client_name ? v->client_name : "(unknown)" }, 2);
	console_page_table_row(&p, (const char *const[]){ "Sign-in scopes",
	                       v->row.scope ? v->row.scope : "(none)" }, 2);
	console_page_table_row(&p, (const char *const[]){ "Your permissions it gets",
	                       v->permissions && *v->permissions ? v->permissions : "(none)" }, 2);
	console_page_table_row(&p, (const char *const[]){ "Device address",
	                       v->row.address ? v->row.address : "(unknown)" }, 2);
	console_page_table_row(&p, (const char *const[]){ "Asked at", when }, 2);
	console_page_table_row(&p, (const char *const[]){ "Code", shown }, 2);
	console_page_table_end(&p);
	decision_form(&p, v, "approve", "Approve");
	decision_form(&p, v, "deny", "Deny");
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const device_page_get_steps[] = {
	get_read, found, session_check, name_get, permissions_get, approval_show, NULL,
};

/* ---- POST /device ---- */

/* docs/signin.md §"Cross-site posts": our own origin only (Fetch Metadata
 * and Origin), then the form's code. */
static enum step_result post_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *site = request_header(ctx, "Sec-Fetch-Site");

	if (site && strcmp(site, "same-origin") != 0 && strcmp(site, "none") != 0) {
		page_reply(ctx, 403, "Request refused", "This form was posted from another site. "
		           "Nothing was changed.", true);
		return STEP_DONE;
	}
	if (!html_post_origin_check(ctx))
		return STEP_DONE;
	return code_read(f, &ctx->form);
}

/* The form value of this session and code, and the decision. */
static enum step_result post_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);
	const char *token = NULL, *decision = NULL;
	struct api_error err;

	if (form_get(&ctx->form, CONSOLE_TOKEN_FIELD, &token, &err) < 0 || !token ||
	    !crypto_equal(token, v->token)) {
		page_reply(ctx, 403, "Request refused", "The form's value is missing or wrong: open "
		           "the page again. Nothing was changed.", true);
		return STEP_DONE;
	}
	if (form_get(&ctx->form, "decision", &decision, &err) < 0 || !decision ||
	    (strcmp(decision, "approve") != 0 && strcmp(decision, "deny") != 0)) {
		page_reply(ctx, 400, "Request refused", "decision must be approve or deny.", true);
		return STEP_DONE;
	}
	v->approve = strcmp(decision, "approve") == 0;
	return STEP_NEXT;
}

static void access_checked(void *arg, const struct api_error *err)
{
	struct flow *f = arg;
	struct device_view *v = view_of(request_of(f));

	v->access_denied = err && err->api_code == E_ACCESS_DENIED;
	flow_resume(f, v->access_denied ? NULL : err);
}

/* An approval by a user whose role the client's access rules exclude is
 * refused, as a sign-in would be (docs/signin.md §"Access rules"); a
 * denial needs no rule. */
static enum step_result access_rules(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);

	if (!v->approve)
		return STEP_NEXT;
	access_rule_check(&v->access, ctx->http.srv->store, &(struct access_ask){
	                  v->row.project_id, v->row.client_id, v->session.row.user_id,
	                  request_event_address(ctx) }, (struct completion){ access_checked, f });
	return STEP_WAIT;
}

static enum step_result access_judge(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (!view_of(ctx)->access_denied)
		return STEP_NEXT;
	page_reply(ctx, 403, "Request refused", "Your role may not use this app: ask an "
	           "administrator. Nothing was changed.", true);
	return STEP_DONE;
}

static enum step_result decide(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);
	struct device_decision *d = &v->decision;

	v->by = (struct event_origin){ v->session.row.user_id, request_event_address(ctx) };
	v->ev = (struct event){ &v->by, v->row.project_id,
	                        v->approve ? EVENT_DEVICE_APPROVE : EVENT_DEVICE_DENY,
	                        v->row.client_id, NULL };
	*d = (struct device_decision){
		.srv = ctx->http.srv, .row = &v->row, .user_code_hash = v->code_hash,
		.approve = v->approve, .user_id = v->session.row.user_id,
		.session_id = v->session.row.id, .auth_time = v->session.row.auth_time, .ev = &v->ev,
	};
	device_decide(d, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result decided_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_view *v = view_of(ctx);

	if (!v->decision.won)
		return wrong_code(ctx, v->session.row.id);
	metrics_device(v->approve ? METRICS_DEVICE_APPROVED : METRICS_DEVICE_DENIED);
	if (v->approve)
		page_reply(ctx, 200, "Device approved",
		           "The device is signed in as you. You can close this page.", false);
	else
		page_reply(ctx, 200, "Device denied",
		           "The device was refused. Nothing was signed in.", false);
	return STEP_DONE;
}

flow_step *const device_page_post_steps[] = {
	post_read, found, session_check, post_check, access_rules, access_judge, decide,
	decided_show, NULL,
};
