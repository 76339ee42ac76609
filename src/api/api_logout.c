/*
 * GET and POST /api/v1/logout, the end_session_endpoint (OpenID Connect
 * RP-Initiated Logout 1.0, docs/signin.md §"Logout"). With a valid id_token_hint the
 * session the ID token names ends at once; without one the browser's own
 * session ends only after the user confirms on our page, whose post must
 * carry a value bound to the session and come from our origin. Until the
 * client and the post-logout URI are known to be good we answer with a page
 * and never redirect. Ending a session is setting its ended_at: the store's
 * triggers revoke its sign-ins and queue its back-channel logouts.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>

#include "api_logout.h"
#include "config.h"
#include "crypto.h"
#include "form.h"
#include "html.h"
#include "id_token.h"
#include "keyring.h"
#include "metrics.h"
#include "request.h"
#include "session.h"
#include "store_clients.h"
#include "store_sessions.h"
#include "util.h"

/* The parameters, borrowed from the query or form. */
struct logout_params {
	const char *id_token_hint;
	const char *client_id;
	const char *post_logout_redirect_uri;
	const char *state;
	const char *confirm;          /* the confirmation form's (POST only) */
};

static const struct logout_param {
	const char *name;
	size_t offset;
} logout_params[] = {
#define PARAM(field) { #field, offsetof(struct logout_params, field) }
	PARAM(id_token_hint), PARAM(client_id), PARAM(post_logout_redirect_uri), PARAM(state),
	PARAM(confirm),
#undef PARAM
};

struct logout {
	struct logout_params p;
	struct keyring_refresh keys;
	struct id_token_hint hint;
	bool hinted;                  /* the hint was given and verified */
	const char *client_id;        /* client_id, else the hint's aud */
	struct client_auth client;
	char *client_name;
	bool registered;              /* post_logout_redirect_uri is the client's */
	char *cookie;                 /* the project's session cookie, as sent */
	struct session_lookup session;   /* the live session it names */
	bool ended;                   /* we ended the cookie's session */
	bool store_ended;             /* the store ended a session (the metric) */
	struct event_origin by;       /* the audit trail's: the client, from the browser's address */
	struct event event;
};

static void logout_release(void *state)
{
	struct logout *l = state;

	keyring_refresh_release(&l->keys);
	id_token_hint_release(&l->hint);
	free(l->client_name);
	crypto_free_wiped(l->cookie);
	session_lookup_release(&l->session);
}

static struct logout *logout_of(struct flow *f)
{
	return request_of(f)->state;
}

static bool missing(const char *v)
{
	return !v || !*v;
}

/* The 400 page of a request we cannot serve or redirect. */
static enum step_result refuse(struct request_ctx *ctx, const char *reason)
{
	html_reply(ctx, 400, html_error_page("Sign-out error", "This sign-out link cannot be used",
	                                     reason));
	return STEP_DONE;
}

/* ---- reading and checking the request ---- */

static enum step_result params_read(struct flow *f, const struct evkeyvalq *q)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = request_state(ctx, sizeof *l, logout_release);
	struct api_error err;

	for (size_t i = 0; i < sizeof logout_params / sizeof logout_params[0]; i++) {
		const char **slot = (const char **)(void *)((char *)&l->p + logout_params[i].offset);

		if (form_get(q, logout_params[i].name, slot, &err) < 0)
			return refuse(ctx, "A parameter was sent more than once.");
		if (missing(*slot))
			*slot = NULL;   /* an empty parameter is none (RPs send them so) */
	}
	return STEP_NEXT;
}

static enum step_result query_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	enum step_result r = params_read(f, &ctx->query);

	if (r == STEP_NEXT)
		logout_of(f)->p.confirm = NULL;   /* a GET never ends a session unasked */
	return r;
}

static enum step_result form_read(struct flow *f)
{
	return params_read(f, &request_of(f)->form);
}

/* docs/signin.md §"Cross-site posts": the confirmation's post must come from our own page. */
static enum step_result confirm_origin_check(struct flow *f)
{
	if (!logout_of(f)->p.confirm)
		return STEP_NEXT;
	return html_post_origin_check(request_of(f)) ? STEP_NEXT : STEP_DONE;
}

/* A hint names a key the ring may not have read yet (a rotation by the
 * CLI): the ring is brought up to the store first. */
static enum step_result keys_refresh(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	if (!l->p.id_token_hint)
		return STEP_NEXT;
	keyring_refresh(&l->keys, ctx->http.srv->keys, ctx->http.srv->store, true, flow_completion(f));
	return STEP_WAIT;
}

/* The client is client_id, else the hint's aud (RPs such as
 * mod_auth_openidc send only the hint); the two must agree. */
static enum step_result hint_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	if (l->p.id_token_hint) {
		if (id_token_verify_hint(ctx->http.srv->keys, ctx->http.srv->cfg->issuer, l->p.id_token_hint,
		                         &l->hint) < 0)
			return refuse(ctx, "The id_token_hint is not an ID token of this server.");
		l->hinted = true;
		if (l->p.client_id && strcmp(l->p.client_id, l->hint.aud) != 0)
			return refuse(ctx, "client_id is not the application the ID token was issued to.");
	}
	l->client_id = l->p.client_id ? l->p.client_id : l->hinted ? l->hint.aud : NULL;
	if (!l->client_id)
		return refuse(ctx, "client_id is required when no id_token_hint is sent.");
	return STEP_NEXT;
}

/* A store that fails answers system_error (the completion), not a page. */
static enum step_result client_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	store_client_lookup(ctx->http.srv->store, l->client_id, &l->client, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result client_check(struct flow *f)
{
	const struct client_auth *c = &logout_of(f)->client;

	if (c->found && c->is_active && c->project_active)
		return STEP_NEXT;
	return refuse(request_of(f), "The application is unknown or not active.");
}

static enum step_result uri_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	if (!l->p.post_logout_redirect_uri)
		return STEP_NEXT;
	store_client_post_logout_registered(ctx->http.srv->store, l->client_id,
	                                    l->p.post_logout_redirect_uri, &l->registered,
	                                    flow_completion(f));
	return STEP_WAIT;
}

static enum step_result uri_check(struct flow *f)
{
	struct logout *l = logout_of(f);

	if (!l->p.post_logout_redirect_uri || l->registered)
		return STEP_NEXT;
	return refuse(request_of(f),
	              "The post_logout_redirect_uri is not registered for this application.");
}

/* The browser's live session in the client's project, if any. */
static enum step_result session_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	l->cookie = html_session_cookie(ctx, l->client.project_id);
	session_find(&l->session, ctx->http.srv, l->cookie, l->client.project_id, flow_completion(f));
	return STEP_WAIT;
}

/* ---- the end ---- */

/* session.end of session_id, by the client (store_session_end records it
 * when the session did end). */
static const struct event *end_event(struct request_ctx *ctx, struct logout *l,
                                     const char *session_id)
{
	l->by = (struct event_origin){ l->client_id, request_event_address(ctx) };
	l->event = (struct event){ &l->by, l->client.project_id, EVENT_SESSION_END, session_id,
	                           NULL };
	return &l->event;
}

/* The session the hint names, of its user and the client's project, ends
 * if it is still there; a hint without sid (a BYOU sign-in) names none. */
static enum step_result hint_end(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	if (!l->hint.sid)
		return STEP_NEXT;
	l->ended = l->session.row.found && strcmp(l->session.row.id, l->hint.sid) == 0 &&
	           strcmp(l->session.row.user_id, l->hint.sub) == 0;
	store_session_end(ctx->http.srv->store, l->hint.sid, l->client.project_id, l->hint.sub,
	                  end_event(ctx, l, l->hint.sid), &l->store_ended, flow_completion(f));
	return STEP_WAIT;
}

/* The confirmation's value must be the one bound to the cookie's session:
 * a form of another session (the user signed in again since) ends nothing. */
static enum step_result confirm_check(struct flow *f)
{
	struct logout *l = logout_of(f);
	char expected[SECRET_HASH_LEN + 1];

	if (!l->session.row.found)
		return STEP_NEXT;   /* nothing left to end */
	session_confirm_value(l->cookie, expected);
	if (crypto_equal(expected, l->p.confirm))
		return STEP_NEXT;
	return refuse(request_of(f), "This sign-out form is out of date. Sign out again from the application.");
}

static enum step_result confirmed_end(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	if (!l->session.row.found)
		return STEP_NEXT;
	l->ended = true;
	store_session_end(ctx->http.srv->store, l->session.row.id, l->client.project_id, NULL,
	                  end_event(ctx, l, l->session.row.id), &l->store_ended, flow_completion(f));
	return STEP_WAIT;
}

/* Back to the app with state, or our own page. The cookie goes when its
 * session ended here or was already gone; one that names another live
 * session (a hint of another sign-in) stays. */
static enum step_result finish_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);
	struct evbuffer *page;

	if (l->store_ended)
		metrics_session_ended();
	if (l->cookie && (l->ended || !l->session.row.found))
		html_set_session_cookie(ctx, l->client.project_id, NULL);
	if (l->p.post_logout_redirect_uri) {
		const char *name = "state";

		html_redirect(ctx, html_redirect_url(l->p.post_logout_redirect_uri, &name,
		                                     &l->p.state, 1));
		return STEP_DONE;
	}
	page = html_page_begin("Signed out");
	evbuffer_add_printf(page, "<h1>You are signed out</h1>\n"
	                    "<p>You can close this window.</p>\n");
	html_reply(ctx, 200, page);
	return STEP_DONE;
}

/* ---- the confirmation page ---- */

static enum step_result name_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);

	store_client_name(ctx->http.srv->store, l->client_id, &l->client_name, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result confirm_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct logout *l = logout_of(f);
	struct evbuffer *page = html_page_begin("Sign out");
	char confirm[SECRET_HASH_LEN + 1];

	session_confirm_value(l->cookie, confirm);
	evbuffer_add_printf(page, "<h1>Sign out?</h1>\n<p>");
	html_escape_into(page, l->client_name ? l->client_name : "An application");
	evbuffer_add_printf(page, " asks to sign you out. You will be signed out of every"
	                    " application you signed in to here.</p>\n<form method=\"post\" action=\"");
	html_escape_into(page, ctx->http.srv->cfg->issuer);
	evbuffer_add_printf(page, "/api/v1/logout\">\n");
	html_add_hidden(page, "client_id", l->client_id);
	html_add_hidden(page, "post_logout_redirect_uri", l->p.post_logout_redirect_uri);
	html_add_hidden(page, "state", l->p.state);
	html_add_hidden(page, "confirm", confirm);
	evbuffer_add_printf(page, "<button type=\"submit\">Sign out</button>\n</form>\n");
	html_reply(ctx, 200, page);
	return STEP_DONE;
}

/* ---- which way ---- */

static flow_step *const hint_steps[] = { hint_end, finish_answer, NULL };
static flow_step *const ask_steps[] = { name_get, confirm_show, NULL };
static flow_step *const finish_steps[] = { finish_answer, NULL };
static flow_step *const confirmed_steps[] = { confirm_check, confirmed_end, finish_answer, NULL };

/* With a hint: end what it names. Without: ask the user to confirm when
 * there is a session to end; else there is nothing to do but go back. */
static enum step_result choose(struct flow *f)
{
	struct logout *l = logout_of(f);

	if (l->p.confirm)
		return flow_branch(f, confirmed_steps);
	if (l->hinted)
		return flow_branch(f, hint_steps);
	return flow_branch(f, l->session.row.found ? ask_steps : finish_steps);
}

flow_step *const logout_get_steps[] = {
	query_read, keys_refresh, hint_check, client_get, client_check, uri_get, uri_check,
	session_get, choose, NULL,
};

flow_step *const logout_post_steps[] = {
	form_read, confirm_origin_check, keys_refresh, hint_check, client_get, client_check,
	uri_get, uri_check, session_get, choose, NULL,
};
