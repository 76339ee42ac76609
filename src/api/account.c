/*
 * The account page (account.h): what a user sees and changes of their own
 * account. It acts only as the session's user, on that user's rows; every
 * string it shows goes through the console's renderer, which escapes it.
 */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/http.h>

#include "access_rules.h"
#include "account.h"
#include "api_users.h"
#include "config.h"
#include "console.h"
#include "form.h"
#include "html.h"
#include "passwords.h"
#include "server.h"
#include "signin.h"
#include "throttle.h"
#include "store_sessions.h"
#include "store_users.h"
#include "util.h"

struct account_view {
	char *record;                    /* the user's record (JSON text) */
	json_t *user;
	struct session_list sessions;
	char *consents_text;             /* the user's consents (consent_list) */
	json_t *consents;
	struct store_user_signin who;    /* the password hash of the user's email */
	int verified;                    /* passwords_verify's ok */
	struct event event;
	bool ended;
	char *throttle_key;              /* the sign-in throttle's account counter */
};

static void view_release(void *view)
{
	struct account_view *v = view;

	free(v->record);
	json_decref(v->user);
	session_list_release(&v->sessions);
	free(v->consents_text);
	json_decref(v->consents);
	store_user_signin_release(&v->who);
	free(v->throttle_key);
}

static struct account_view *view_of(struct request_ctx *ctx)
{
	return console_view_state(ctx, sizeof (struct account_view), view_release);
}

/* The path of one of the page's forms: /account/<rest>?project_id=... */
char *account_action_path(struct request_ctx *ctx, const char *rest)
{
	char *id = evhttp_uriencode(console_of(ctx)->project_id, -1, 0);
	char *path = xasprintf("/account/%s?project_id=%s", rest, id ? id : "");

	free(id);
	return path;
}

bool account_recent(struct request_ctx *ctx)
{
	int64_t auth_time = console_of(ctx)->session.row.auth_time;

	return auth_time > 0 && now_ms() - auth_time <= (int64_t)ACCOUNT_RECENT_S * 1000;
}

const json_t *account_user(struct request_ctx *ctx)
{
	return view_of(ctx)->user;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A page of the account with its heading. */
void account_page_begin(struct console_page *p, const char *title)
{
	console_page_begin(p, title, NULL, NULL, 0, NULL, NULL);
}

void account_link_back(struct request_ctx *ctx, struct console_page *p)
{
	char *url = console_account_url("", console_of(ctx)->project_id);

	console_page_link(p, url, "Back to your account");
	free(url);
}

/* A page that says why nothing was done (a failed step's, or a refusal). */
static void account_failed(struct request_ctx *ctx, const struct api_error *err)
{
	struct console_page p;

	account_page_begin(&p, "Not done");
	console_page_error(&p, err->description);
	account_link_back(ctx, &p);
	console_page_reply(ctx, err->status, &p);
}

enum step_result account_refuse(struct request_ctx *ctx, int status, const char *reason)
{
	struct api_error err;

	api_fail(&err, E_INVALID_PARAMS, "%s", reason);
	err.status = status;
	account_failed(ctx, &err);
	return STEP_DONE;
}

/* ---- the steps before every page ---- */

enum step_result account_project_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *project_id = NULL;
	struct api_error err;
	struct console_page p;

	ctx->fail_page = account_failed;
	if (form_get(&ctx->query, "project_id", &project_id, &err) == 0 && project_id && *project_id) {
		console_of(ctx)->project_id = project_id;
		return STEP_NEXT;
	}
	account_page_begin(&p, "Project not found");
	console_page_error(&p, "The address must name a project: /account?project_id=...");
	console_page_reply(ctx, 400, &p);
	return STEP_DONE;
}

enum step_result account_session_check(struct flow *f)
{
	return console_session_need(f, console_account_url);
}

enum step_result account_principal(struct flow *f)
{
	console_act_as(request_of(f), "account");
	return STEP_NEXT;
}

/* ---- what the pages read ---- */

enum step_result account_user_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_user_get(ctx->http.srv->store, console_of(ctx)->project_id, ctx->principal.user_id,
	               &view_of(ctx)->record, flow_completion(f));
	return STEP_WAIT;
}

enum step_result account_user_parse(struct flow *f)
{
	struct account_view *v = view_of(request_of(f));

	v->user = json_loads(v->record, 0, NULL);
	return v->user ? STEP_NEXT : flow_fail(f, E_SYSTEM_ERROR, "The user could not be read.");
}

enum step_result account_sessions_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_session_list_user(ctx->http.srv->store, console_of(ctx)->project_id,
	                        ctx->principal.user_id, now_ms(), &view_of(ctx)->sessions,
	                        flow_completion(f));
	return STEP_WAIT;
}

enum step_result account_consents_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	consent_list(ctx->http.srv->store, ctx->principal.user_id, &view_of(ctx)->consents_text,
	             flow_completion(f));
	return STEP_WAIT;
}

const json_t *account_consents(struct request_ctx *ctx)
{
	struct account_view *v = view_of(ctx);

	if (!v->consents && v->consents_text)
		v->consents = json_loads(v->consents_text, 0, NULL);
	return v->consents;
}

/* ---- the page's sections ---- */

void account_section_user(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	static const char *const heads[] = { "Field", "Value" };
	const json_t *u = view_of(ctx)->user;
	const json_t *factors = json_object_get(u, "second_factors");
	char *names = xstrdup("");
	size_t i;
	json_t *kind;

	(void)recent;
	json_array_foreach(factors, i, kind) {
		char *more = xasprintf("%s%s%s", names, i ? ", " : "", json_string_value(kind));
		free(names);
		names = more;
	}
	console_page_table_begin(p, "You", heads, 2);
	console_page_table_row(p, (const char *const[]){ "Name", str(u, "display_name") }, 2);
	console_page_table_row(p, (const char *const[]){ "Email", str(u, "email") }, 2);
	console_page_table_row(p, (const char *const[]){ "Second factors", *names ? names : "none" },
	                       2);
	console_page_table_end(p);
	free(names);
}

/* What the page shows instead of a change when the sign-in is not recent:
 * the sign-in page again (prompt=login), coming back here. */
void account_signin_again(struct request_ctx *ctx, struct console_page *p)
{
	const char *issuer = ctx->http.srv->cfg->issuer;
	char *back = console_account_url(issuer, console_of(ctx)->project_id);
	char *url = console_signin_url(issuer, console_of(ctx)->project_id, back, true);

	console_page_text(p, "Changing your password or a second factor needs a sign-in of the "
	                     "last 5 minutes.");
	console_page_link(p, url, "Confirm your password");
	free(url);
	free(back);
}

void account_section_password(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	char *action;

	console_page_heading(p, "Password");
	if (!recent) {
		account_signin_again(ctx, p);
		return;
	}
	action = account_action_path(ctx, "password");
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	console_page_field(p, &(struct console_field){ .name = "current_password",
		.label = "Current password", .type = "password", .required = true });
	console_page_field(p, &(struct console_field){ .name = "new_password",
		.label = "New password", .type = "password", .required = true });
	console_page_submit(p, "Change the password");
	console_page_form_end(p);
	free(action);
}

static const char *amr_label(const char *amr)
{
	if (!amr)
		return "password";
	return strstr(amr, "mfa") ? "password and second factor" : "password";
}

void account_section_sessions(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	static const char *const heads[] = { "Started", "Last sign-in", "Ends", "With", "" };
	const struct session_list *l = &view_of(ctx)->sessions;
	const char *own = console_of(ctx)->session.row.id;
	const char **values = xcalloc(l->n + 1, sizeof *values);
	char **labels = xcalloc(l->n + 1, sizeof *labels);
	char *action;

	(void)recent;
	console_page_table_begin(p, "Your sessions", heads, 5);
	for (size_t i = 0; i < l->n; i++) {
		const struct session_item *s = &l->items[i];
		char t[3][TIMESTAMP_LEN];
		bool this_one = strcmp(s->id, own) == 0;

		format_timestamp(s->created_at, t[0]);
		format_timestamp(s->auth_time, t[1]);
		format_timestamp(s->expires_at, t[2]);
		console_page_table_row(p, (const char *const[]){ t[0], t[1], t[2], amr_label(s->amr),
		                       this_one ? "this one" : "" }, 5);
		values[i] = s->id;
		labels[i] = xasprintf("started %s%s", t[0], this_one ? " (this one)" : "");
	}
	console_page_table_end(p);
	if (l->n) {
		action = account_action_path(ctx, "sessions/end");
		console_page_form_begin(p, action, "post", console_of(ctx)->token);
		console_page_select(p, "session_id", "Session", values, (const char *const *)labels,
		                    l->n, NULL);
		console_page_submit(p, "End the session");
		console_page_form_end(p);
		free(action);
	}
	for (size_t i = 0; i < l->n; i++)
		free(labels[i]);
	free(labels);
	free(values);
}

/* ---- POST /account/password ---- */

/* A change needs a recent sign-in: else the way to one, nothing done. */
enum step_result account_need_recent(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console_page p;

	if (account_recent(ctx))
		return STEP_NEXT;
	account_page_begin(&p, "Confirm your password");
	console_page_error(&p, "Your sign-in is too old for this change. Nothing was changed.");
	account_signin_again(ctx, &p);
	console_page_reply(ctx, 403, &p);
	return STEP_DONE;
}

static enum step_result hash_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_signin_user(ctx->http.srv->store, console_of(ctx)->project_id,
	                  str(view_of(ctx)->user, "email"), &view_of(ctx)->who, flow_completion(f));
	return STEP_WAIT;
}

/* passwords_verify_done: on the loop; resumes the request. */
static void verified(void *arg, int ok)
{
	struct request_ctx *ctx = arg;
	struct api_error err;

	view_of(ctx)->verified = ok;
	if (ok < 0)
		api_fail(&err, E_UNAVAILABLE, "The password could not be checked; try again shortly.");
	flow_resume(&ctx->flow, ok < 0 ? &err : NULL);
}

/* The current password, against the hash of the session's user only (the
 * email's user is the same one, unless the email changed hands since). */
static enum step_result verify(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct account_view *v = view_of(ctx);
	const char *current = NULL;
	const char *hash;
	struct api_error err;

	if (form_get(&ctx->form, "current_password", &current, &err) < 0 || !current || !*current)
		return flow_fail(f, E_INVALID_PARAMS, "current_password is required.");
	v->throttle_key = signin_account_key(console_of(ctx)->project_id, str(v->user, "email"));
	if (throttle_wait_s(ctx->http.srv->signin_accounts, v->throttle_key, now_ms()) > 0)
		return account_refuse(ctx, 429, "Too many wrong passwords for this account: wait a "
		                                "while, then try again. Nothing was changed.");
	hash = v->who.found && v->who.user_id && strcmp(v->who.user_id, ctx->principal.user_id) == 0
	       ? v->who.password_hash : NULL;
	if (passwords_verify(ctx->http.srv->passwords, hash, current, verified, ctx, &err) < 0)
		return flow_error(f, &err);
	return STEP_WAIT;
}

/* PUT /api/v1/users/current's body that sets the new password alone: the
 * stored name and email, which that body carries. */
static enum step_result password_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct account_view *v = view_of(ctx);
	const char *password = NULL;
	struct api_error err;

	if (v->verified != 1) {   /* counted as a wrong password at sign-in is */
		throttle_fail(ctx->http.srv->signin_accounts, v->throttle_key, now_ms());
		return account_refuse(ctx, 403, "The current password is wrong. Nothing was changed.");
	}
	if (form_get(&ctx->form, "new_password", &password, &err) < 0 || !password || !*password)
		return flow_fail(f, E_INVALID_PARAMS, "new_password is required.");
	ctx->body = json_object();
	if (str(v->user, "display_name"))
		json_object_set_new(ctx->body, "display_name", json_string(str(v->user, "display_name")));
	json_object_set_new(ctx->body, "email", json_string(str(v->user, "email")));
	json_object_set_new(ctx->body, "password", json_string(password));
	return STEP_NEXT;
}

/* A new password ends every session of the user, this one too
 * (docs/signin.md §"Sessions"): the page says so. */
static enum step_result password_done(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console_page p;

	account_page_begin(&p, "Password changed");
	console_page_text(&p, "Your password was changed. Your sessions ended, this one too, and "
	                      "your applications' sign-ins with them: sign in again.");
	account_link_back(ctx, &p);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const account_password_steps[] = {
	ACCOUNT_SIGNED_IN, account_need_recent, account_user_get, account_user_parse, hash_get, verify, password_body,
	users_current_read, users_write_check, users_write_hash, users_write_store, password_done,
	NULL,
};

/* ---- POST /account/sessions/end ---- */

/* Ends one of the user's own sessions: another's ID ends nothing. */
static enum step_result session_end(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct account_view *v = view_of(ctx);
	const char *id = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "session_id", &id, &err) < 0 || !id || !*id)
		return flow_fail(f, E_INVALID_PARAMS, "session_id is required.");
	v->event = (struct event){ request_origin(ctx), console_of(ctx)->project_id,
	                           EVENT_SESSION_END, id, NULL };
	store_session_end(ctx->http.srv->store, id, console_of(ctx)->project_id,
	                  ctx->principal.user_id, &v->event, &v->ended, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result session_ended(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (!view_of(ctx)->ended)
		return account_refuse(ctx, 404, "You have no live session with this ID. Nothing was changed.");
	html_redirect(ctx, console_account_url("", console_of(ctx)->project_id));
	return STEP_DONE;
}

flow_step *const account_session_end_steps[] = {
	ACCOUNT_SIGNED_IN, session_end, session_ended, NULL,
};
