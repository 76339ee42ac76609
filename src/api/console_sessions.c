/*
 * The console's sessions pages (console_sessions.h). A session is ended as
 * a sign-out ends it (store_session_end: session.end in the audit trail,
 * by the console's user; the apps with a back-channel logout URI told);
 * a user's second factors are reset by the users API's own write. Seeing
 * sessions takes users:read, ending one or resetting factors users:update.
 */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "api_users.h"
#include "console.h"
#include "console_sessions.h"
#include "list_params.h"
#include "metrics.h"
#include "store_sessions.h"
#include "util.h"

#define USER_SESSIONS_MAX 100

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static enum step_result need_read(struct flow *f)
{
	return console_need(f, "users:read", "Your role may not read the project's users.");
}

static enum step_result need_update(struct flow *f)
{
	return console_need(f, "users:update", "Your role may not change users. Nothing was changed.");
}

/* The table of sessions, each with an end button posting to
 * <rest_of(id)>/end when the role may end it. */
static void session_rows(struct request_ctx *ctx, struct console_page *p, const char *page,
                         const char *user_id)
{
	static const char *const heads[] = { "User", "Started", "Last sign-in", "Methods",
	                                     "Expires", "" };
	bool may_end = console_may(ctx, "users:update");
	json_t *data = json_loads(page ? page : "[]", 0, NULL), *s;
	size_t i;

	console_page_table_begin(p, "Live sessions", heads, may_end ? 6 : 5);
	json_array_foreach(data, i, s) {
		const char *name = str(s, "user_name") ? str(s, "user_name") : str(s, "user_id");
		char *rest = user_id ? xasprintf("users/%s/sessions/%s/end", user_id, str(s, "id"))
		                     : xasprintf("sessions/%s/end", str(s, "id"));
		char *user = xasprintf("users/%s", str(s, "user_id"));
		char *href = console_path(ctx, user);
		const char *cells[] = { str(s, "created_at"), str(s, "auth_time"), str(s, "amr"),
		                        str(s, "expires_at") };
		if (may_end) {   /* the row's last cell: its end button */
			console_page_table_row_open(p, href, name, cells, 4);
			console_button_form(ctx, p, rest, NULL, NULL, "End this session");
			console_page_table_row_close(p);
		} else {
			console_page_table_row_link(p, href, name, cells, 4);
		}
		free(href);
		free(user);
		free(rest);
	}
	console_page_table_end(p);
	json_decref(data);
}

/* ---- the project's sessions ---- */

static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	struct api_error err;

	c->sessions_q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, NULL, 0, &c->sessions_q, &err) < 0)
		return flow_error(f, &err);
	store_session_list(ctx->http.srv->store, c->project_id, NULL, &c->sessions_q, &c->sessions,
	                   flow_completion(f));
	return STEP_WAIT;
}

static enum step_result list_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	struct console_page p;

	console_begin(ctx, &p, "Sessions");
	console_page_text(&p, "Ending a session signs its user out of every application of the "
	                  "project, as a sign-out does.");
	session_rows(ctx, &p, c->sessions.data, NULL);
	console_list_pager(ctx, &p, "sessions", &c->sessions_q, c->sessions.total, "sessions");
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_sessions_list_steps[] = {
	CONSOLE_SIGNED_IN, need_read, list_get, list_show, NULL,
};

/* ---- ending one ---- */

/* The path's session of the project (of the path's user, on a user's
 * page) ends; one already ended or of someone else ends nothing. */
static enum step_result session_end(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);
	const char *id = request_param(ctx, "session_id");

	c->signout = (struct event){ request_origin(ctx), c->project_id, EVENT_SESSION_END, id,
	                             NULL };
	store_session_end(ctx->http.srv->store, id, c->project_id, request_param(ctx, "user_id"),
	                  &c->signout, &c->ended, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result session_ended(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *user_id = request_param(ctx, "user_id");
	char *rest = user_id ? xasprintf("users/%s", user_id) : xstrdup("sessions");

	if (console_of(ctx)->ended)
		metrics_session_ended();
	console_show_list(ctx, rest);
	free(rest);
	return STEP_DONE;
}

flow_step *const console_session_end_steps[] = {
	CONSOLE_SIGNED_IN, need_update, session_end, session_ended, NULL,
};
flow_step *const console_user_session_end_steps[] = {
	CONSOLE_SIGNED_IN, need_update, session_end, session_ended, NULL,
};

/* ---- a user's, on the user's page ---- */

enum step_result console_user_sessions_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	c->sessions_q = (struct list_query)LIST_QUERY_INIT;
	c->sessions_q.page_size = USER_SESSIONS_MAX;
	store_session_list(ctx->http.srv->store, c->project_id, request_param(ctx, "user_id"),
	                   &c->sessions_q, &c->sessions, flow_completion(f));
	return STEP_WAIT;
}

void console_user_sessions(struct request_ctx *ctx, struct console_page *p, const json_t *user)
{
	const char *user_id = request_param(ctx, "user_id");

	console_page_heading(p, "Sessions");
	session_rows(ctx, p, console_of(ctx)->sessions.data, user_id);
	if (json_array_size(json_object_get(user, "second_factors")) &&
	    console_may(ctx, "users:update")) {
		char *rest = xasprintf("users/%s/factors", user_id), *href = console_path(ctx, rest);
		console_page_heading(p, "Second factors");
		console_page_link(p, href, "Reset the second factors");
		free(href);
		free(rest);
	}
}

/* ---- reset second factors, after a confirmation ---- */

static enum step_result user_get(struct flow *f)
{
	return console_record_get(f, store_user_get, "user_id");
}

static enum step_result factors_ask(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *rest = xasprintf("users/%s/factors", request_param(ctx, "user_id"));

	console_confirm(ctx, "Reset a user's second factors",
	                "Resetting cannot be undone: the user's second factors go and their "
	                "sessions end; they sign in with the password alone until they enroll "
	                "again.", NULL, rest, "Reset the second factors");
	free(rest);
	return STEP_DONE;
}

flow_step *const console_user_factors_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, factors_ask, NULL,
};

static enum step_result factors_done(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *rest = xasprintf("users/%s", request_param(ctx, "user_id"));

	metrics_factors_reset();
	console_show_list(ctx, rest);
	free(rest);
	return STEP_DONE;
}

flow_step *const console_user_factors_reset_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, users_factors_reset_write,
	factors_done, NULL,
};
