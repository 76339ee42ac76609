/*
 * POST /api/v1/tokens/introspect (RFC 7662, docs/tokens.md §"Introspection"): a resource
 * server asks whether a token is good now. The caller is an active client
 * that proves its secret (Basic or client_secret_post), else 401
 * invalid_client_credentials. An access token is judged as the bearer
 * check judges it (auth.c), and is active only to a client of its own
 * project; a refresh token is active only to the client it was issued to.
 * Anything else is {"active": false}, never an error, so that the answer
 * tells an outsider nothing. The route answers with no-store and no CORS.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_introspect.h"
#include "auth.h"
#include "basic_auth.h"
#include "config.h"
#include "crypto.h"
#include "form.h"
#include "request.h"
#include "store_clients.h"
#include "store_tokens.h"
#include "util.h"

struct introspection {
	struct basic_credentials basic;
	struct client_credentials credentials;
	const char *client_id;          /* the caller */
	const char *token;
	char hash[SECRET_HASH_LEN + 1];
	struct client_auth caller;
	struct bearer_check check;      /* an access token */
	struct principal access;
	bool valid;                     /* the bearer check passed */
	struct store_token_row refresh;    /* a refresh token */
	bool holders_ok;
};

static void introspection_release(void *p)
{
	struct introspection *x = p;

	basic_auth_release(&x->basic);
	auth_principal_release(&x->access);
	store_token_row_release(&x->refresh);
}

static struct introspection *state_of(struct flow *f)
{
	return request_of(f)->state;
}

static enum step_result inactive(struct flow *f)
{
	http_reply_json(request_of(f), 200, json_pack("{s:b}", "active", 0));
	return STEP_DONE;
}

/* ---- an access token ---- */

/* The bearer check's verdict: an invalid token is an inactive one; only a
 * failure of the store fails the request. */
static void access_checked(void *arg, const struct api_error *err)
{
	struct flow *f = arg;

	state_of(f)->valid = !err;
	flow_resume(f, err && err->api_code == E_SYSTEM_ERROR ? err : NULL);
}

static enum step_result access_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct introspection *x = ctx->state;

	auth_token(&x->check, ctx->http.srv, x->token, &x->access,
	           (struct completion){ access_checked, f });
	return STEP_WAIT;
}

/* RFC 7662 §2.2, with docs/tokens.md §"Introspection"'s members. */
static enum step_result access_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct introspection *x = ctx->state;
	const struct principal *p = &x->access;

	if (!x->valid || strcmp(p->project_id, x->caller.project_id) != 0)
		return inactive(f);
	http_reply_json(ctx, 200, json_pack(
		"{s:b, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s}", "active", 1, "scope", p->scope,
		"client_id", p->client_id, "sub", p->user_id ? p->user_id : p->client_id,
		"aud", p->project_id, "iss", ctx->http.srv->cfg->issuer, "exp", (json_int_t)p->exp,
		"iat", (json_int_t)p->iat, "jti", p->jti, "token_type", "Bearer"));
	return STEP_DONE;
}

static flow_step *const access_steps[] = { access_check, access_answer, NULL };

/* ---- a refresh token ---- */

static enum step_result refresh_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct introspection *x = ctx->state;

	crypto_hash_secret(x->token, strlen(x->token), x->hash);
	store_refresh_get(ctx->http.srv->store, x->hash, &x->refresh, flow_completion(f));
	return STEP_WAIT;
}

/* Good at the token endpoint now, for the caller: its own, neither used,
 * revoked nor expired, and made after the last deactivation of its
 * holders; then its holders must be active still. */
static enum step_result refresh_holders(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct introspection *x = ctx->state;
	const struct store_token_row *r = &x->refresh;

	if (!r->found || strcmp(r->client_id, x->client_id) != 0 || r->used || r->revoked ||
	    r->predates_deactivation || now_ms() >= r->expires_at)
		return inactive(f);
	store_token_holders_ok(ctx->http.srv->store, r->project_id, r->client_id, r->user_id,
	                       (long long)time(NULL), &x->holders_ok, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result refresh_answer(struct flow *f)
{
	const struct introspection *x = state_of(f);
	const struct store_token_row *r = &x->refresh;

	if (!x->holders_ok)
		return inactive(f);
	http_reply_json(request_of(f), 200, json_pack(
		"{s:b, s:s, s:s, s:I, s:I}", "active", 1, "client_id", r->client_id,
		"sub", r->user_id, "exp", (json_int_t)(r->expires_at / 1000),
		"iat", (json_int_t)(r->created_at / 1000)));
	return STEP_DONE;
}

static flow_step *const refresh_steps[] = { refresh_get, refresh_holders, refresh_answer, NULL };

/* ---- who asks, and about what ---- */

/* The form: token (token_type_hint is read and not needed: the token's
 * form says which kind it is), then who asks. */
static enum step_result introspect_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct introspection *x = request_state(ctx, sizeof *x, introspection_release);
	const char *hint = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "token", &x->token, &err) < 0 ||
	    form_get(&ctx->form, "token_type_hint", &hint, &err) < 0 ||
	    client_credentials_form(request_header(ctx, "Authorization"), &ctx->form, &x->basic,
	                            &x->credentials, &err) < 0)
		return flow_error(f, &err);
	if (!x->token || !*x->token)
		return flow_fail(f, E_INVALID_PARAMS, "token is required.");
	if (client_credentials_scheme(&x->credentials, &err) < 0)
		return flow_error(f, &err);
	if (!x->credentials.secret)
		return flow_fail(f, E_INVALID_CLIENT_CREDENTIALS,
		                 "Introspection needs the client's credentials (Basic or client_secret).");
	if (client_credentials_id(&x->credentials, &x->client_id, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result introspect_caller(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct introspection *x = ctx->state;

	store_client_authenticate(ctx->http.srv->store, x->client_id, x->credentials.secret, &x->caller,
	                          flow_completion(f));
	return STEP_WAIT;
}

/* A deactivated caller, or one of a deactivated project, asks nothing.
 * Then the token's form says its kind: a JWT has dots, a refresh token
 * (base64url) none. */
static enum step_result introspect_kind(struct flow *f)
{
	struct introspection *x = state_of(f);

	if (!x->caller.is_active || !x->caller.project_active)
		return flow_fail(f, E_INVALID_CLIENT_CREDENTIALS, "The client is not active.");
	return flow_branch(f, strchr(x->token, '.') ? access_steps : refresh_steps);
}

flow_step *const introspect_steps[] = {
	introspect_read, introspect_caller, introspect_kind, NULL,
};
