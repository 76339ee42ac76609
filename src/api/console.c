/*
 * The console's sign-in and the checks every page passes (console.h). A
 * page is shown only to a live session of its project, and shows only what
 * the session user's role allows; a post changes nothing unless it comes
 * from our own pages with the session's form token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "config.h"
#include "console.h"
#include "form.h"
#include "html.h"
#include "metrics.h"
#include "store_sessions.h"
#include "store_users.h"
#include "util.h"

/* The most query parameters a list's page links keep. */
#define LIST_PAGER_PARAMS 16

const char *console_client_project(const char *client_id)
{
	size_t n = strlen(CONSOLE_CLIENT_PREFIX);

	if (!client_id || strncmp(client_id, CONSOLE_CLIENT_PREFIX, n) != 0 || !client_id[n])
		return NULL;
	return client_id + n;
}

char *console_home_url(const char *issuer, const char *project_id)
{
	char *id = evhttp_uriencode(project_id, -1, 0);
	char *url = xasprintf("%s/console/projects/%s/", issuer, id ? id : "");

	free(id);
	return url;
}

static void console_release(void *state)
{
	struct console *c = state;

	crypto_free_wiped(c->cookie);
	free(c->home);
	session_lookup_release(&c->session);
	free(c->record);
	json_decref(c->parsed);
	page_release(&c->resources);
	page_release(&c->sessions);
	page_release(&c->roles);
	json_decref(c->resource_list);
	if (c->view_release)
		c->view_release(c->view);
	free(c->view);
}

struct console *console_of(struct request_ctx *ctx)
{
	if (!ctx->page) {
		ctx->page = xcalloc(1, sizeof (struct console));
		ctx->page_release = console_release;
	}
	return ctx->page;
}

void *console_view_state(struct request_ctx *ctx, size_t size, void (*release)(void *view))
{
	struct console *c = console_of(ctx);

	if (!c->view) {
		c->view = xcalloc(1, size);
		c->view_release = release;
	}
	return c->view;
}

bool console_may(struct request_ctx *ctx, const char *permission)
{
	size_t len;

	return !auth_principal_lacks(&ctx->principal, permission, &len);
}

/* A page asks for a dozen paths (navigation, rows, forms): the home's
 * encoding is done once a request, and each path is two copies. */
char *console_path(struct request_ctx *ctx, const char *rest)
{
	struct console *c = console_of(ctx);
	size_t n = strlen(rest);
	char *path;

	if (!c->home) {
		c->home = console_home_url("", c->project_id);
		c->home_len = strlen(c->home);
	}
	path = xmalloc(c->home_len + n + 1);
	memcpy(path, c->home, c->home_len);
	memcpy(path + c->home_len, rest, n + 1);
	return path;
}

/* The navigation: each area shown to a role holding its permission (NULL:
 * any role). */
static const struct {
	const char *rest;
	const char *label;
	const char *permission;
} nav[] = {
	{ "", "Overview", NULL },
	{ "users", "Users", "users:read" },
	{ "roles", "Roles", "roles:read" },
	{ "sessions", "Sessions", "users:read" },
	{ "clients", "Clients", "clients:read" },
	{ "resources", "Resources", "resources:read" },
	{ "events", "Audit trail", "users:read clients:read roles:read resources:read" },
};
#define NAV_MAX (sizeof nav / sizeof nav[0])

void console_begin(struct request_ctx *ctx, struct console_page *p, const char *title)
{
	char *hrefs[NAV_MAX], *signout = console_path(ctx, "sign-out");
	const char *labels[NAV_MAX];
	size_t n = 0;

	for (size_t i = 0; i < NAV_MAX; i++) {
		if (nav[i].permission && !console_may(ctx, nav[i].permission))
			continue;
		hrefs[n] = console_path(ctx, nav[i].rest);
		labels[n++] = nav[i].label;
	}
	console_page_begin(p, title, (const char *const *)hrefs, labels, n, signout,
	                   console_of(ctx)->token);
	for (size_t i = 0; i < n; i++)
		free(hrefs[i]);
	free(signout);
}

const char *console_error_field(const struct api_error *err, const char *const *names, size_t n)
{
	for (size_t i = 0; err && i < n; i++) {
		size_t len = strlen(names[i]);
		if (strncmp(err->description, names[i], len) == 0 &&
		    (err->description[len] == ' ' || err->description[len] == '['))
			return names[i];
	}
	return NULL;
}

void console_button_form(struct request_ctx *ctx, struct console_page *p, const char *rest,
                         const char *field, const char *value, const char *label)
{
	char *action = console_path(ctx, rest);

	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	if (field)
		console_page_field(p, &(struct console_field){ .name = field, .type = "hidden",
			.value = value });
	console_page_submit(p, label);
	console_page_form_end(p);
	free(action);
}

void console_confirm(struct request_ctx *ctx, const char *title, const char *text,
                     void (*details)(struct console_page *p, const json_t *record),
                     const char *rest, const char *label)
{
	struct console_page p;

	console_begin(ctx, &p, title);
	console_page_text(&p, text);
	if (details)
		details(&p, console_record(ctx));
	console_button_form(ctx, &p, rest, NULL, NULL, label);
	console_page_reply(ctx, 200, &p);
}

enum step_result console_show_list(struct request_ctx *ctx, const char *area)
{
	html_redirect(ctx, console_path(ctx, area));
	return STEP_DONE;
}

/* The list's link to page n: the request's query with page_num n. */
static void pager_link(struct request_ctx *ctx, struct console_page *p, const char *base, long n,
                       const char *text)
{
	const char *names[LIST_PAGER_PARAMS + 1], *values[LIST_PAGER_PARAMS + 1];
	struct evkeyval *kv;
	size_t k = 0;
	char num[24], *href;

	TAILQ_FOREACH(kv, &ctx->query, next)
		if (k < LIST_PAGER_PARAMS && *kv->value && strcmp(kv->key, "page_num") != 0) {
			names[k] = kv->key;
			values[k++] = kv->value;
		}
	snprintf(num, sizeof num, "%ld", n);
	names[k] = "page_num";
	values[k++] = num;
	href = html_redirect_url(base, names, values, k);
	console_page_link(p, href, text);
	evbuffer_add_printf(p->buf, "\n");
	free(href);
}

void console_list_pager(struct request_ctx *ctx, struct console_page *p, const char *rest,
                        const struct list_query *q, long long total, const char *noun)
{
	long pages = (long)((total + q->page_size - 1) / q->page_size);
	char *base = console_path(ctx, rest), *line;

	line = xasprintf("Page %ld of %ld, %lld %s.", q->page_num, pages ? pages : 1, total, noun);
	console_page_text(p, line);
	if (q->page_num > 1)
		pager_link(ctx, p, base, q->page_num - 1, "Previous page");
	if (q->page_num < pages)
		pager_link(ctx, p, base, q->page_num + 1, "Next page");
	free(line);
	free(base);
}

/* A page that says why the request is refused; nothing was done. */
static enum step_result refuse(struct request_ctx *ctx, int status, const char *heading,
                               const char *reason)
{
	struct console_page p;

	console_page_begin(&p, heading, NULL, NULL, 0, NULL, NULL);
	console_page_error(&p, reason);
	console_page_link(&p, "/console/", "Open the console");
	console_page_reply(ctx, status, &p);
	return STEP_DONE;
}

enum step_result console_record_get(struct flow *f, record_get_op *get, const char *param)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	get(ctx->http.srv->store, c->project_id, request_param(ctx, param), &c->record,
	    flow_completion(f));
	return STEP_WAIT;
}

enum step_result console_record_parse(struct flow *f)
{
	struct console *c = console_of(request_of(f));

	c->parsed = c->record ? json_loads(c->record, 0, NULL) : NULL;
	return c->parsed ? STEP_NEXT : flow_fail(f, E_SYSTEM_ERROR, "The record could not be read.");
}

const json_t *console_record(struct request_ctx *ctx)
{
	return console_of(ctx)->parsed;
}

enum step_result console_show_record(struct request_ctx *ctx, const char *record,
                                     const char *area)
{
	json_t *r = json_loads(record ? record : "{}", 0, NULL);
	const char *id = json_string_value(json_object_get(r, "id"));
	char *rest = xasprintf("%s/%s", area, id ? id : "");

	html_redirect(ctx, console_path(ctx, rest));
	free(rest);
	json_decref(r);
	return STEP_DONE;
}

void console_failed(struct request_ctx *ctx, const struct api_error *err)
{
	struct console_page p;

	console_begin(ctx, &p, "Not done");
	console_page_error(&p, err->description);
	console_page_reply(ctx, err->status, &p);
}

enum step_result console_need(struct flow *f, const char *permission, const char *reason)
{
	struct request_ctx *ctx = request_of(f);
	struct console_page p;

	ctx->fail_page = console_failed;
	if (console_may(ctx, permission))
		return STEP_NEXT;
	console_begin(ctx, &p, "Not allowed");
	console_page_error(&p, reason);
	console_page_reply(ctx, 403, &p);
	return STEP_DONE;
}

/* ---- the steps ---- */

enum step_result console_project_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	if (!c->project_id)   /* the account page's is in its query (account.c) */
		c->project_id = request_param(ctx, "project_id");
	store_project_get(ctx->http.srv->store, c->project_id, &c->project, flow_completion(f));
	return STEP_WAIT;
}

enum step_result console_project_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	if (c->project.found && c->project.is_active)
		return STEP_NEXT;
	return refuse(ctx, 404, "Project not found", "There is no active project with this ID.");
}

enum step_result console_session_find(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	c->cookie = html_session_cookie(ctx, c->project_id);
	session_find(&c->session, ctx->http.srv, c->cookie, c->project_id, flow_completion(f));
	return STEP_WAIT;
}

char *console_account_url(const char *issuer, const char *project_id)
{
	char *id = evhttp_uriencode(project_id, -1, 0);
	char *url = xasprintf("%s/account?project_id=%s", issuer, id ? id : "");

	free(id);
	return url;
}

bool console_redirect_registered(const char *issuer, const char *project_id, const char *uri)
{
	char *home = console_home_url(issuer, project_id);
	char *account = console_account_url(issuer, project_id);
	bool ok = strcmp(home, uri) == 0 || strcmp(account, uri) == 0;

	free(home);
	free(account);
	return ok;
}

char *console_signin_url(const char *issuer, const char *project_id, const char *back,
                         bool again)
{
	const char *names[] = { "response_type", "client_id", "redirect_uri", "prompt" };
	char *client_id = xasprintf(CONSOLE_CLIENT_PREFIX "%s", project_id);
	char *base = xasprintf("%s/api/v1/authorize", issuer);
	char *url = html_redirect_url(base, names, (const char *const[]){
		"code", client_id, back, again ? "login" : NULL }, 4);

	free(client_id);
	free(base);
	return url;
}

enum step_result console_session_need(struct flow *f,
                                      char *(*back_url)(const char *issuer, const char *project_id))
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	const char *issuer = ctx->http.srv->cfg->issuer;
	char *back;

	if (c->session.row.found)
		return STEP_NEXT;
	if (ctx->http.method == EVHTTP_REQ_POST)
		return refuse(ctx, 403, "Not signed in",
		              "This form needs a signed-in session of the project. Nothing was changed.");
	back = back_url(issuer, c->project_id);
	html_redirect(ctx, console_signin_url(issuer, c->project_id, back, false));
	free(back);
	return STEP_DONE;
}

/* No live session: a page read goes to the project's sign-in page, as the
 * console's client, and comes back to the console's home; a post is
 * refused (it may be a forged one, and there is no form to come back to). */
enum step_result console_session_check(struct flow *f)
{
	return console_session_need(f, console_home_url);
}

void console_act_as(struct request_ctx *ctx, const char *purpose)
{
	struct console *c = console_of(ctx);
	struct principal *p = &ctx->principal;

	p->present = true;
	p->project_id = xstrdup(c->project_id);
	p->client_id = xasprintf(CONSOLE_CLIENT_PREFIX "%s", c->project_id);
	p->user_id = xstrdup(c->session.row.user_id);
	p->auth_time = c->session.row.auth_time / 1000;
	session_form_value(purpose, c->cookie, c->token);
}

/* The session's user acts with the permissions of their role, as a token
 * of theirs would: the principal every service reads (the no-escalation
 * rule, the audit trail's actor). */
enum step_result console_scope_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct principal *p = &ctx->principal;

	console_act_as(ctx, "console");
	store_user_scope(ctx->http.srv->store, p->user_id, &p->scope, flow_completion(f));
	return STEP_WAIT;
}

/* docs/signin.md §"Cross-site posts", and Fetch Metadata: a browser names a
 * post from another site's page cross-site or same-site; ours are
 * same-origin. */
static bool fetch_site_ok(const char *site)
{
	return !site || strcmp(site, "same-origin") == 0 || strcmp(site, "none") == 0;
}

enum step_result console_post_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	const char *token = NULL;
	struct api_error err;

	if (ctx->http.method != EVHTTP_REQ_POST)
		return STEP_NEXT;
	if (!fetch_site_ok(request_header(ctx, "Sec-Fetch-Site")))
		return refuse(ctx, 403, "Request refused",
		              "A form of this console was posted from another site. Nothing was changed.");
	if (!html_post_origin_check(ctx))
		return STEP_DONE;
	if (form_get(&ctx->form, CONSOLE_TOKEN_FIELD, &token, &err) < 0 || !token ||
	    !crypto_equal(token, c->token))
		return refuse(ctx, 403, "Request refused",
		              "The form's token is missing or wrong: open the page again and retry. "
		              "Nothing was changed.");
	return STEP_NEXT;
}

/* ---- GET /console/ ---- */

static enum step_result index_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *project_id = NULL;
	struct api_error err;
	struct console_page p;

	if (form_get(&ctx->query, "project_id", &project_id, &err) == 0 && project_id && *project_id) {
		char *home = console_home_url("", project_id);
		html_redirect(ctx, home);
		return STEP_DONE;
	}
	console_page_begin(&p, "edgeauth console", NULL, NULL, 0, NULL, NULL);
	console_page_text(&p, "Sign in to a project's console with an account of that project.");
	console_page_form_begin(&p, "/console/", "get", NULL);
	console_page_field(&p, &(struct console_field){
		.name = "project_id", .label = "Project ID", .type = "text", .required = true });
	console_page_submit(&p, "Open");
	console_page_form_end(&p);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_index_steps[] = { index_show, NULL };

/* ---- POST /console/projects/{project_id}/sign-out ---- */

/* The session ends as /api/v1/logout ends it (docs/signin.md §"Logout"):
 * store_session_end records session.end, by the user, and tells the apps
 * that asked for back-channel logout. */
static enum step_result signout_end(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	c->signout = (struct event){ request_origin(ctx), c->project_id, EVENT_SESSION_END,
	                             c->session.row.id, NULL };
	store_session_end(ctx->http.srv->store, c->session.row.id, c->project_id, NULL, &c->signout,
	                  &c->ended, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result signout_done(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	struct console_page p;
	char *home = console_path(ctx, "");

	if (c->ended)
		metrics_session_ended();
	html_set_session_cookie(ctx, c->project_id, NULL);
	console_page_begin(&p, "You are signed out", NULL, NULL, 0, NULL, NULL);
	console_page_text(&p, "Your session of the project has ended, in every application of it.");
	console_page_link(&p, home, "Sign in again");
	console_page_reply(ctx, 200, &p);
	free(home);
	return STEP_DONE;
}

flow_step *const console_signout_steps[] = { CONSOLE_SIGNED_IN, signout_end, signout_done, NULL };
