/*
 * Forward authentication (docs/forward-auth.md): GET /api/v1/forward-auth,
 * asked by a reverse proxy about every request to an app, answers 200 with
 * the identity headers, 401, 302 to the sign-in, or 403; GET
 * /api/v1/forward-auth/callback finishes a sign-in it started on the app's
 * own host. The rules are forward_auth.c's and the store's; this file reads
 * requests and writes answers. A header of a peer that is not a trusted
 * proxy is never believed; an app cookie's value never reaches a log.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "access_rules.h"
#include "api_forward_auth.h"
#include "config.h"
#include "crypto.h"
#include "forward_auth.h"
#include "grants.h"
#include "html.h"
#include "request.h"
#include "session.h"
#include "store_forward.h"
#include "util.h"

/* The app cookie and the nonce cookie of a sign-in under way, on the
 * app's host: __Host- names over https (host-only, Secure, Path=/). */
#define APP_COOKIE "edgeauth_app"
#define NONCE_COOKIE "edgeauth_fa_nonce"
#define NONCE_TTL_S (FORWARD_AUTH_STATE_TTL_MS / 1000)

static bool url_https(const char *url)
{
	return !strncasecmp(url, "https:", 6);
}

static char *cookie_name(const char *base, const char *url)
{
	return xasprintf("%s%s", url_https(url) ? "__Host-" : "", base);
}

/* Adds the Set-Cookie of base's cookie on url's host (NULL value: removed). */
static void set_cookie(struct request_ctx *ctx, const char *base, const char *url,
                       const char *value, long max_age_s)
{
	char *name = cookie_name(base, url);
	char *header = session_cookie_header(name, value, url_https(url), max_age_s);

	http_add_header(ctx, "Set-Cookie", header);
	crypto_free_wiped(header);
	free(name);
}

static char *get_cookie(struct request_ctx *ctx, const char *base, const char *url)
{
	char *name = cookie_name(base, url), *value = html_cookie(ctx, name);

	free(name);
	return value;
}

/* A short answer to the proxy, which passes it on to the browser. */
static enum step_result answer(struct request_ctx *ctx, int status, const char *text)
{
	http_reply_raw(ctx, status, "text/plain; charset=utf-8", text, strlen(text));
	return STEP_DONE;
}

/* ---- GET /api/v1/forward-auth ---- */

struct forward_check {
	struct forward_request req;
	struct forward_lookup found;      /* the app, and the app cookie's user */
	char hash[SECRET_HASH_LEN + 1];   /* of the app cookie's value */
};

static void forward_check_release(void *p)
{
	struct forward_check *c = p;

	forward_request_release(&c->req);
	forward_app_release(&c->found.app);
	forward_user_release(&c->found.user);
}

static struct forward_check *check_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof(struct forward_check), forward_check_release);
}

/* The proxy's six headers in one pass over the request's, the first of a
 * name winning as with request_header: six lookups by name were six passes,
 * a tenth of what every page load of a protected app costs
 * (scripts/bench/callgrind's forward_auth row). Each name starts "X-". */
static void proxy_headers(struct request_ctx *ctx, struct forward_headers *h)
{
	static const char *const names[] = { "Original-URL", "Original-Method", "Forwarded-Method",
	                                     "Forwarded-Proto", "Forwarded-Host", "Forwarded-Uri" };
	const char **out[] = { &h->original_url, &h->original_method, &h->method, &h->proto,
	                       &h->host, &h->uri };
	struct evkeyval *kv;

	TAILQ_FOREACH(kv, evhttp_request_get_input_headers(ctx->http.req), next) {
		if ((kv->key[0] != 'X' && kv->key[0] != 'x') || kv->key[1] != '-')
			continue;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (!*out[i] && strcasecmp(kv->key + 2, names[i]) == 0) {
				*out[i] = kv->value;
				break;
			}
	}
}

/* What the proxy says the original request was, believed only from a
 * trusted proxy: without it there is no app to sign in to, so 401. */
static enum step_result fa_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_check *c = check_of(ctx);
	struct forward_headers h = { 0 };

	proxy_headers(ctx, &h);
	if (forward_request_read(&h, request_peer_trusted(ctx), &c->req) < 0)
		return answer(ctx, 401, "Sign-in required.\n");
	return STEP_NEXT;
}

/* The app and, with an app cookie, its user: one read, since every page
 * load of a protected app asks it (docs/forward-auth.md). */
static enum step_result fa_lookup(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_check *c = ctx->state;
	char *value = get_cookie(ctx, APP_COOKIE, c->req.url);

	if (value) {
		crypto_hash_secret(value, strlen(value), c->hash);
		crypto_free_wiped(value);
	}
	store_forward_check(ctx->http.srv->store, c->req.url, value ? c->hash : NULL, now_ms(),
	                    &c->found, flow_completion(f));
	return STEP_WAIT;
}

/* No app (an active client) has the URL under one of its forward_auth_urls:
 * the proxy protects something edgeauth does not know, and nobody may in. */
static enum step_result fa_app_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_check *c = ctx->state;

	if (!c->found.app.found || !c->found.app.active ||
	    !forward_url_under(c->req.url, c->found.app.base))
		return answer(ctx, 403, "No app is registered for this address.\n");
	return STEP_NEXT;
}

/* The sign-in: 401 to nginx (auth_request passes no 302 on; its
 * error_page starts the sign-in) and to anything but a page load; else
 * 302 to the authorization endpoint as the app, with PKCE and the sealed
 * state, and the nonce cookie that binds the sign-in to this browser. */
static enum step_result fa_sign_in(struct request_ctx *ctx, struct forward_check *c)
{
	const char *accept = request_header(ctx, "Accept");
	struct forward_state s = { 0 };
	char *challenge, *sealed, *state, *callback, *base, *location;

	if (c->req.nginx || !accept || !strstr(accept, "text/html"))
		return answer(ctx, 401, "Sign-in required.\n");
	forward_pkce_new(&s.verifier, &challenge);
	s.nonce = crypto_new_secret();
	s.url = c->req.url;
	s.expires_at = now_ms() + FORWARD_AUTH_STATE_TTL_MS;
	sealed = forward_state_seal(ctx->http.srv->keys, c->found.app.client_id, &s);
	state = xasprintf("%s.%s", c->found.app.client_id, sealed);
	callback = forward_callback_uri(c->found.app.base);
	base = xasprintf("%s/api/v1/authorize", ctx->http.srv->cfg->issuer);
	location = html_redirect_url(base, (const char *const[]){ "response_type", "client_id",
	                             "redirect_uri", "code_challenge", "code_challenge_method",
	                             "state" }, (const char *const[]){ "code", c->found.app.client_id,
	                             callback, challenge, "S256", state }, 6);
	set_cookie(ctx, NONCE_COOKIE, c->req.url, s.nonce, NONCE_TTL_S);
	html_redirect(ctx, location);
	s.url = NULL;
	forward_state_release(&s);
	free(challenge);
	free(sealed);
	free(state);
	free(callback);
	free(base);
	return STEP_DONE;
}

/* 200 with who the user is; the proxy copies these headers into the
 * request it passes to the app (its config strips what the browser sent). */
static enum step_result fa_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_check *c = ctx->state;
	const struct forward_user *u = &c->found.user;

	if (!u->found)
		return fa_sign_in(ctx, c);
	/* the rule may have changed since the sign-in (docs/signin.md §"Access
	 * rules"): judged on every question, from what the lookup read */
	if (!access_rule_allows(c->found.app.allowed_role_ids, u->role_id))
		return answer(ctx, 403, "Your role may not use this app.\n");
	http_add_header(ctx, "Remote-User", u->user_id);
	http_add_header(ctx, "Remote-Email", u->email ? u->email : "");
	http_add_header(ctx, "Remote-Name", u->name ? u->name : "");
	http_add_header(ctx, "Remote-Role", u->role_code ? u->role_code : "");
	http_add_header(ctx, "Remote-Permissions", u->permissions ? u->permissions : "");
	http_reply_raw(ctx, 200, NULL, NULL, 0);
	return STEP_DONE;
}

flow_step *const forward_auth_steps[] = {
	fa_read, fa_lookup, fa_app_check, fa_answer, NULL,
};

/* ---- GET /api/v1/forward-auth/callback ---- */

struct forward_callback {
	char *client_id;
	struct forward_state state;
	struct forward_app app;
	char *redirect_uri;
	struct grant_request in;
	struct grant grant;
	struct grant_tokens tokens;     /* issued in-process, never shown */
	char *token;                    /* the app cookie's value */
	char hash[SECRET_HASH_LEN + 1];
};

static void forward_callback_release(void *p)
{
	struct forward_callback *cb = p;

	free(cb->client_id);
	forward_state_release(&cb->state);
	forward_app_release(&cb->app);
	free(cb->redirect_uri);
	grant_release(&cb->grant);
	grant_tokens_release(&cb->tokens);
	crypto_free_wiped(cb->token);
}

/* Any failure of the callback is a page, never a redirect. */
static void callback_failed(struct request_ctx *ctx, const struct api_error *err)
{
	html_reply(ctx, 400, html_error_page("Sign-in error", "This sign-in link cannot be used",
	                                     err->description));
}

/* The state: "<client_id>.<sealed>" of that client, unexpired, and the
 * nonce cookie of the browser the sign-in started in. */
static enum step_result cb_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = request_state(ctx, sizeof *cb, forward_callback_release);
	const char *code = evhttp_find_header(&ctx->query, "code");
	const char *state = evhttp_find_header(&ctx->query, "state");
	const char *error = evhttp_find_header(&ctx->query, "error");
	const char *dot = state ? strchr(state, '.') : NULL;
	char *nonce;
	bool same;

	ctx->fail_page = callback_failed;
	/* the sign-in answered access_denied (docs/signin.md §"Access rules",
	 * §"Consent"): the 403 page the question itself gives such a user; a
	 * page, never a redirect, so the state need not be ours */
	if ((!code || !*code) && error && strcmp(error, "access_denied") == 0) {
		html_reply(ctx, 403, html_error_page("Access denied", "You may not use this app",
		           "Your role may not use this app, or you did not allow it."));
		return STEP_DONE;
	}
	if (!code || !*code || !dot)
		return flow_fail(f, E_INVALID_PARAMS, "The sign-in did not come back with a code.");
	cb->client_id = xstrndup(state, (size_t)(dot - state));
	if (forward_state_open(ctx->http.srv->keys, cb->client_id, dot + 1, now_ms(),
	                       &cb->state) < 0)
		return flow_fail(f, E_INVALID_PARAMS,
		                 "The sign-in expired or was not started here. Open the app again.");
	nonce = get_cookie(ctx, NONCE_COOKIE, cb->state.url);
	same = nonce && crypto_equal(nonce, cb->state.nonce);
	crypto_free_wiped(nonce);
	if (!same)
		return flow_fail(f, E_INVALID_PARAMS,
		                 "The sign-in was started in another browser. Open the app again.");
	cb->in = (struct grant_request){
		.grant_type = "authorization_code", .client.form_client_id = cb->client_id,
		.code = code, .code_verifier = cb->state.verifier,
		.address = request_event_address(ctx),
	};
	return STEP_NEXT;
}

static enum step_result cb_app(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = ctx->state;

	store_forward_app(ctx->http.srv->store, cb->state.url, &cb->app, flow_completion(f));
	return STEP_WAIT;
}

/* The open-redirect refusal: the way back must lie under one of the
 * client's forward_auth_urls, as the store has them now. */
static enum step_result cb_app_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = ctx->state;

	if (!cb->app.found || strcmp(cb->app.client_id, cb->client_id) != 0 ||
	    !forward_url_under(cb->state.url, cb->app.base))
		return flow_fail(f, E_INVALID_PARAMS,
		                 "The address to return to is not one of the app's.");
	cb->redirect_uri = forward_callback_uri(cb->app.base);
	cb->in.redirect_uri = cb->redirect_uri;
	return STEP_NEXT;
}

/* The code exchanged in-process, by the grant's own rules (docs/tokens.md
 * §"Order of checks"); its tokens are never shown, only its session kept. */
static enum step_result cb_exchange(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = ctx->state;

	grants_exchange(&cb->grant, ctx->http.srv, &cb->in, &cb->tokens, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result cb_cookie(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = ctx->state;

	if (!cb->grant.record.session_id)
		return flow_fail(f, E_INVALID_PARAMS, "The sign-in has no browser session.");
	cb->token = crypto_new_secret();
	crypto_hash_secret(cb->token, strlen(cb->token), cb->hash);
	store_forward_cookie_insert(ctx->http.srv->store, cb->hash, cb->grant.record.session_id,
	                            cb->client_id, now_ms(), flow_completion(f));
	return STEP_WAIT;
}

static enum step_result cb_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct forward_callback *cb = ctx->state;

	set_cookie(ctx, APP_COOKIE, cb->state.url, cb->token, ctx->http.srv->cfg->session_ttl_s);
	set_cookie(ctx, NONCE_COOKIE, cb->state.url, NULL, 0);
	html_redirect(ctx, xstrdup(cb->state.url));
	return STEP_DONE;
}

flow_step *const forward_auth_callback_steps[] = {
	cb_read, cb_app, cb_app_check, cb_exchange, cb_cookie, cb_answer, NULL,
};
