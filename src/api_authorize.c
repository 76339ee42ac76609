/*
 * GET /api/v1/authorize shows the sign-in form; POST checks the password on
 * the worker pool and redirects with a code. Until the client and its
 * redirect URI are known to be good we answer with a page and never
 * redirect (RFC 6749 §4.1.2.1): an open redirector is worse than an error.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "api_authorize.h"
#include "config.h"
#include "crypto.h"
#include "form.h"
#include "html.h"
#include "json_util.h"
#include "passwords.h"
#include "request.h"
#include "signin.h"
#include "store.h"
#include "store_clients.h"
#include "store_grants.h"
#include "store_tokens.h"
#include "throttle.h"
#include "util.h"
#include "validate.h"

#define SIGNIN_FAILED "The email or password is wrong."

/* The authorize parameters, borrowed from the request (query or form),
 * which lives until the reply. */
struct authz_params {
	const char *response_type;
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *code_challenge_method;
	const char *state;
	const char *email;
	const char *password;
	char project_id[80];
};

static const char *const param_names[] = {
	"response_type", "client_id", "redirect_uri", "code_challenge",
	"code_challenge_method", "state",
};

/* ---- pages ---- */

static void add_hidden(struct evbuffer *buf, const char *name, const char *value)
{
	if (!value)
		return;
	evbuffer_add_printf(buf, "<input type=\"hidden\" name=\"%s\" value=\"", name);
	html_escape_into(buf, value);
	evbuffer_add(buf, "\">\n", 3);
}

static void page_head(struct evbuffer *buf, const char *title)
{
	evbuffer_add_printf(buf, "<!doctype html>\n<html lang=\"en\">\n<head>\n"
	                    "<meta charset=\"utf-8\">\n"
	                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                    "<title>%s</title>\n<link rel=\"icon\" href=\"data:,\">\n"
	                    "<style>%s</style>\n</head>\n<body>\n<main>\n", title, html_style());
}

/* The sign-in form; after a failure with message, and the error code in a
 * data attribute for programs (too_many_attempts). */
static void reply_form(struct request_ctx *ctx, int status, const struct authz_params *p,
                       const char *message, const char *error_code)
{
	struct evbuffer *buf = evbuffer_new();

	page_head(buf, "Sign in");
	evbuffer_add_printf(buf, "<h1>Sign in</h1>\n");
	if (message)
		evbuffer_add_printf(buf, "<p class=\"error\" role=\"alert\" data-error=\"%s\">%s</p>\n",
		                    error_code ? error_code : "access_denied", message);
	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, ctx->srv->cfg->issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\">\n");
	add_hidden(buf, "response_type", p->response_type);
	add_hidden(buf, "client_id", p->client_id);
	add_hidden(buf, "redirect_uri", p->redirect_uri);
	add_hidden(buf, "code_challenge", p->code_challenge);
	add_hidden(buf, "code_challenge_method", p->code_challenge_method);
	add_hidden(buf, "state", p->state);
	/* type="text", not "email": browsers refuse or punycode-rewrite
	 * non-ASCII addresses, which the API accepts. */
	evbuffer_add_printf(buf, "<label for=\"email\">Email</label>\n"
	                    "<input id=\"email\" name=\"email\" type=\"text\" inputmode=\"email\""
	                    " autocomplete=\"username\" autocapitalize=\"none\" spellcheck=\"false\""
	                    " required autofocus value=\"");
	html_escape_into(buf, p->email);
	evbuffer_add_printf(buf, "\">\n<label for=\"password\">Password</label>\n"
	                    "<input id=\"password\" name=\"password\" type=\"password\""
	                    " autocomplete=\"current-password\" required>\n"
	                    "<button type=\"submit\">Sign in</button>\n</form>\n</main>\n</body>\n</html>\n");
	html_reply(ctx, status, buf);
}

static void reply_error_page(struct request_ctx *ctx, const char *reason)
{
	struct evbuffer *buf = evbuffer_new();

	page_head(buf, "Sign-in error");
	evbuffer_add_printf(buf, "<h1>This sign-in link cannot be used</h1>\n"
	                    "<p class=\"error\" role=\"alert\">%s</p>\n"
	                    "<p>Go back to the application and try again.</p>\n"
	                    "</main>\n</body>\n</html>\n", reason);
	html_reply(ctx, 400, buf);
}

/* ---- redirects ---- */

static void add_query_param(struct evbuffer *buf, const char *name, const char *value, bool *first)
{
	char *enc = evhttp_uriencode(value, -1, 0);
	evbuffer_add_printf(buf, "%s%s=%s", *first ? "" : "&", name, enc ? enc : "");
	free(enc);
	*first = false;
}

/* 302 to the redirect URI with code or error, then state and iss (RFC 9207). */
static void reply_redirect(struct request_ctx *ctx, const struct authz_params *p,
                           const char *code, const char *error)
{
	struct evbuffer *buf = evbuffer_new();
	bool first = true;
	char *location;
	size_t len;

	evbuffer_add_printf(buf, "%s%c", p->redirect_uri,
	                    strchr(p->redirect_uri, '?') ? '&' : '?');
	if (code)
		add_query_param(buf, "code", code, &first);
	else
		add_query_param(buf, "error", error, &first);
	if (p->state)
		add_query_param(buf, "state", p->state, &first);
	add_query_param(buf, "iss", ctx->srv->cfg->issuer, &first);
	len = evbuffer_get_length(buf);
	location = xmalloc(len + 1);
	evbuffer_remove(buf, location, len);
	location[len] = '\0';
	evbuffer_free(buf);
	http_add_header(ctx, "Location", location);
	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Referrer-Policy", "no-referrer");
	http_reply_raw(ctx, 302, NULL, NULL, 0);
	crypto_wipe_free(location);
}

/* ---- checks ---- */

/* RFC 7636 §4.2: 43..128 characters of [A-Za-z0-9-._~]. */
static bool valid_challenge(const char *c)
{
	size_t n = strlen(c);
	if (n < 43 || n > 128)
		return false;
	return strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") == n;
}

/* The client, as the old store_client_auth answered: 1 found, 0 not, -1
 * error. Until sign-in runs as steps (the SQLite store completes at once). */
static int client_lookup_now(struct store *st, const char *client_id, struct client_auth *ca,
                             struct api_error *err)
{
	struct sync_result r;

	store_client_lookup(st, client_id, ca, sync_completion(&r));
	if (r.failed) {
		*err = r.err;
		return -1;
	}
	return ca->found;
}

/* Reads the parameters and checks the client and redirect URI. Returns 0 when
 * they are good; otherwise it has answered with the error page. */
static int check_client(struct request_ctx *ctx, const struct evkeyvalq *q, struct authz_params *p)
{
	struct client_auth ca;
	struct api_error err;
	int found;
	const char **slots[] = { &p->response_type, &p->client_id, &p->redirect_uri,
	                         &p->code_challenge, &p->code_challenge_method, &p->state };

	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		if (form_get(q, param_names[i], slots[i], &err) < 0) {
			reply_error_page(ctx, "A parameter was sent more than once.");
			return -1;
		}
	found = p->client_id && *p->client_id ?
	        client_lookup_now(ctx->srv->store, p->client_id, &ca, &err) : 0;
	if (found < 0)
		goto store_failed;
	if (!found || !ca.is_active || !ca.project_active) {
		reply_error_page(ctx, "The application is unknown or not active.");
		return -1;
	}
	snprintf(p->project_id, sizeof p->project_id, "%s", ca.project_id);
	found = p->redirect_uri ? store_client_redirect_registered(ctx->srv->store, p->client_id,
	                                                           p->redirect_uri, &err) : 0;
	if (found < 0)
		goto store_failed;
	if (!found) {
		reply_error_page(ctx, "The redirect URI is not registered for this application.");
		return -1;
	}
	return 0;
store_failed:   /* not the client's fault: system_error, not the error page */
	http_reply_error(ctx, &err);
	return -1;
}

/* The checks that may redirect with error=invalid_request. */
static bool request_is_valid(const struct authz_params *p)
{
	return p->response_type && !strcmp(p->response_type, "code") &&
	       p->code_challenge && valid_challenge(p->code_challenge) &&
	       p->code_challenge_method && !strcmp(p->code_challenge_method, "S256");
}

void authorize_get(struct request_ctx *ctx)
{
	struct authz_params p = { 0 };

	if (check_client(ctx, &ctx->query, &p) < 0)
		return;
	if (!request_is_valid(&p)) {
		reply_redirect(ctx, &p, NULL, "invalid_request");
		return;
	}
	reply_form(ctx, 200, &p, NULL, NULL);
}

/* ---- sign-in ---- */

/* The attempt counters of a sign-in (CONTRACT.md §1 [signin]): one account
 * from one address, one account from all addresses (so that one address
 * cannot lock an account for everyone, yet a spread guessing still stops),
 * and one address over all accounts. */
enum signin_counter {
	COUNT_ACCOUNT_ADDRESS,
	COUNT_ACCOUNT,
	COUNT_ADDRESS,
	COUNT__N
};

struct signin {
	struct request_ctx *ctx;
	struct authz_params p;
	struct signin_user user;
	bool found;
	char *keys[COUNT__N];
};

static void signin_release(void *arg)
{
	struct signin *s = arg;
	signin_user_release(&s->user);
	for (size_t i = 0; i < COUNT__N; i++)
		free(s->keys[i]);
}

static struct throttle *counter(struct server *srv, enum signin_counter which)
{
	switch (which) {
	case COUNT_ACCOUNT_ADDRESS: return srv->signin_account_addresses;
	case COUNT_ACCOUNT: return srv->signin_accounts;
	default: return srv->signin_addresses;
	}
}

/* The counters' keys: the account is the project and the email without
 * regard to case (as sign-in compares it); the address is the peer's. */
static void throttle_keys(struct request_ctx *ctx, struct signin *s)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(ctx->req);
	char *peer = NULL, *account;
	ev_uint16_t port;

	if (evcon)
		evhttp_connection_get_peer(evcon, &peer, &port);
	account = xasprintf("%s:%s", s->p.project_id, s->p.email);
	for (char *c = account; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	s->keys[COUNT_ACCOUNT_ADDRESS] = xasprintf("account:%s address:%s", account,
	                                           peer ? peer : "");
	s->keys[COUNT_ACCOUNT] = xasprintf("account:%s", account);
	s->keys[COUNT_ADDRESS] = xasprintf("address:%s", peer ? peer : "");
	free(account);
}

/* Past a limit: 429 with Retry-After, and no hash computed. */
static bool throttled(struct request_ctx *ctx, struct signin *s)
{
	int64_t now = now_ms();
	int wait = 0;
	char msg[96], retry[16];

	for (size_t i = 0; i < COUNT__N; i++) {
		int w = throttle_wait_s(counter(ctx->srv, i), s->keys[i], now);
		if (w > wait)
			wait = w;
	}
	if (wait <= 0)
		return false;
	snprintf(msg, sizeof msg, "Too many failed sign-ins. Try again in %d seconds.", wait);
	snprintf(retry, sizeof retry, "%d", wait);
	http_add_header(ctx, "Retry-After", retry);
	reply_form(ctx, 429, &s->p, msg, "too_many_attempts");
	return true;
}

/* An attempt counts when its check is queued, not when it ends: otherwise
 * a burst of parallel guesses would all pass the limit before the first
 * failure was counted. A success wipes the account's counts and takes its
 * own count back from the address's; a check that could not be queued (503)
 * is taken back. */
static void count_attempt(struct server *srv, struct signin *s)
{
	int64_t now = now_ms();

	for (size_t i = 0; i < COUNT__N; i++)
		throttle_fail(counter(srv, i), s->keys[i], now);
}

static void uncount_attempt(struct server *srv, struct signin *s)
{
	for (size_t i = 0; i < COUNT__N; i++)
		throttle_undo(counter(srv, i), s->keys[i]);
}

static void signed_in(struct server *srv, struct signin *s)
{
	throttle_reset(counter(srv, COUNT_ACCOUNT_ADDRESS), s->keys[COUNT_ACCOUNT_ADDRESS]);
	throttle_reset(counter(srv, COUNT_ACCOUNT), s->keys[COUNT_ACCOUNT]);
	throttle_undo(counter(srv, COUNT_ADDRESS), s->keys[COUNT_ADDRESS]);
}

/* A new code: random, stored as a hash, bound to client, redirect URI,
 * challenge and user (CONTRACT.md §6), living code_ttl_s. Returns the code
 * (caller wipes and frees) or NULL with err. */
static char *create_code(struct request_ctx *ctx, const char *project_id, const char *client_id,
                         const char *user_id, const char *redirect_uri, const char *challenge,
                         struct api_error *err)
{
	const struct code_request req = {
		.project_id = project_id, .client_id = client_id, .user_id = user_id,
		.redirect_uri = redirect_uri, .code_challenge = challenge,
	};
	struct code_mint m = { 0 };
	struct sync_result r;
	char *code;

	/* Until sign-in runs as steps: the SQLite store completes at once. */
	signin_code_mint(&m, ctx->srv, &req, &code, sync_completion(&r));
	code_mint_release(&m);
	if (r.failed) {
		*err = r.err;
		crypto_wipe_free(code);
		return NULL;
	}
	return code;
}

static void issue_code(struct request_ctx *ctx, struct signin *s)
{
	struct api_error err;
	char *code = create_code(ctx, s->p.project_id, s->p.client_id, s->user.user_id,
	                         s->p.redirect_uri, s->p.code_challenge, &err);

	reply_redirect(ctx, &s->p, code, code ? NULL : "server_error");
	crypto_wipe_free(code);
}

static void on_verified(void *arg, int ok)
{
	struct signin *s = arg;
	struct request_ctx *ctx = s->ctx;

	if (ok == 1 && s->found && s->user.is_active) {
		signed_in(ctx->srv, s);
		issue_code(ctx, s);
	} else {
		reply_form(ctx, 401, &s->p, SIGNIN_FAILED, NULL);
	}
}

void authorize_post(struct request_ctx *ctx)
{
	struct signin *s = request_state(ctx, sizeof *s, signin_release);
	struct api_error err;
	int found;

	s->ctx = ctx;
	if (check_client(ctx, &ctx->form, &s->p) < 0)
		return;
	if (!request_is_valid(&s->p)) {
		reply_redirect(ctx, &s->p, NULL, "invalid_request");
		return;
	}
	if (form_get(&ctx->form, "email", &s->p.email, &err) < 0 ||
	    form_get(&ctx->form, "password", &s->p.password, &err) < 0 ||
	    !s->p.email || !*s->p.email || !s->p.password || !*s->p.password) {
		reply_form(ctx, 401, &s->p, SIGNIN_FAILED, NULL);
		return;
	}
	throttle_keys(ctx, s);
	if (throttled(ctx, s))
		return;
	found = store_signin_user(ctx->srv->store, s->p.project_id, s->p.email, &s->user, &err);
	if (found < 0) {
		http_reply_error(ctx, &err);
		return;
	}
	s->found = found == 1;
	/* The same work whether or not the account exists (a dummy hash). */
	count_attempt(ctx->srv, s);
	if (passwords_verify(ctx->srv->passwords, s->found ? s->user.password_hash : NULL,
	                     s->p.password, on_verified, s, &err) < 0) {
		uncount_attempt(ctx->srv, s);
		http_reply_error(ctx, &err);
	}
}

/* ---- BYOU codes ---- */

/* POST .../users/external/{external_user_id}/authorization-codes: the
 * project's backend vouches for a BYOU user (CONTRACT.md §6). Checks: the
 * body (invalid_params), user_not_found, client_not_found, the states that
 * need the records (invalid_params), then insufficient_permission: the code
 * yields a token with the user's role's permissions, so the caller must
 * carry those of them that are default-resource ones (CONTRACT.md §3, no
 * escalation). */
void byou_code_create(struct request_ctx *ctx)
{
	static const struct str_rule rules[] = {
		{ .key = "client_id", .required = true, .max_chars = ID_MAX_CHARS },
		{ .key = "redirect_uri", .required = true, .check = CHECK_URL },
		{ .key = "code_challenge", .required = true, .max_chars = 128 },
		{ .key = "code_challenge_method", .required = true, .max_chars = 16 },
	};
	struct str_field f[4];
	const char *project_id = request_param(ctx, "project_id");
	struct byou_user user = { 0 };
	struct client_auth ca;
	struct api_error err;
	char *code = NULL;
	int found;

	for (size_t i = 0; i < 4; i++)
		if (json_read_string(ctx->body, &rules[i], &f[i], &err) < 0)
			goto fail;
	if (!valid_challenge(f[2].value)) {
		api_fail(&err, E_INVALID_PARAMS, "code_challenge must be 43 to 128 characters of"
		         " [A-Za-z0-9-._~].");
		goto fail;
	}
	if (strcmp(f[3].value, "S256") != 0) {
		api_fail(&err, E_INVALID_PARAMS, "code_challenge_method must be S256.");
		goto fail;
	}
	found = store_byou_user(ctx->srv->store, project_id, request_param(ctx, "external_user_id"),
	                        &user, &err);
	if (found <= 0) {
		if (found == 0)
			api_fail(&err, E_USER_NOT_FOUND, "No user of this project has that external ID.");
		goto fail;
	}
	found = client_lookup_now(ctx->srv->store, f[0].value, &ca, &err);
	if (found < 0)
		goto fail;
	if (!found || strcmp(ca.project_id, project_id) != 0) {
		api_fail(&err, E_CLIENT_NOT_FOUND, "The client does not exist in this project.");
		goto fail;
	}
	if (!user.is_active || !ca.is_active) {
		api_fail(&err, E_INVALID_PARAMS, "The user or the client is not active.");
		goto fail;
	}
	found = store_client_redirect_registered(ctx->srv->store, f[0].value, f[1].value, &err);
	if (found <= 0) {
		if (found == 0)
			api_fail(&err, E_INVALID_PARAMS, "redirect_uri is not registered on the client.");
		goto fail;
	}
	if (store_grant_check_holder(ctx->srv->store, ctx->principal.scope, GRANT_HOLDER_USER,
	                             user.user_id, &err) < 0)
		goto fail;
	code = create_code(ctx, project_id, f[0].value, user.user_id, f[1].value, f[2].value, &err);
	if (!code)
		goto fail;
	http_add_header(ctx, "Cache-Control", "no-store");
	http_reply_json(ctx, 201, json_pack("{s:s, s:I}", "code", code,
	                "expires_in", (json_int_t)ctx->srv->cfg->code_ttl_s));
	crypto_wipe_free(code);
	byou_user_release(&user);
	return;
fail:
	byou_user_release(&user);
	http_reply_error(ctx, &err);
}
