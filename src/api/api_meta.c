/* Health, readiness, JWKS and discovery (RFC 8414, OpenID Connect
 * Discovery): public, cacheable, no store access beyond what they show. */
#include <stdio.h>
#include <stdlib.h>

#include "api_meta.h"
#include "config.h"
#include "device_grant.h"
#include "keyring.h"
#include "log.h"
#include "request.h"
#include "util.h"

/* A store that refuses writes (store_fail_writes) makes the node unfit to
 * serve: 503, so that a balancer sends the traffic elsewhere. */
static enum step_result health(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (ctx->http.srv->store && store_writes_failed(ctx->http.srv->store))
		http_reply_json(ctx, 503, json_pack("{s:s,s:s}", "status", "store_failed",
		                                    "reason", "the store refuses writes; see the log"));
	else
		http_reply_json(ctx, 200, json_pack("{s:s}", "status", "ok"));
	return STEP_DONE;
}

/* ---- readiness (docs/operations.md §"Readiness") ---- */

/* At most one log line this often on why the node is not ready: a balancer
 * asks every few seconds. */
#define READY_LOG_EVERY_MS 10000

struct readiness {
	struct keyring_refresh refresh;
	struct flow *f;
	bool store_failed;
	char reason[sizeof ((struct api_error *)0)->description + 64];
};

static void readiness_release(void *state)
{
	keyring_refresh_release(&((struct readiness *)state)->refresh);
}

/* A failed read is the answer, not the request's failure: noted, and the
 * flow goes on to say 503. */
static void on_ready_read(void *arg, const struct api_error *err)
{
	struct readiness *r = arg;

	if (err) {
		r->store_failed = true;
		snprintf(r->reason, sizeof r->reason, "the store did not answer a read: %s",
		         err->description);
	}
	flow_resume(r->f, NULL);
}

/* The store answers a read (the key version, forced: a nested flow that
 * waits on the network on PostgreSQL, never blocking the loop). */
static enum step_result ready_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct readiness *r = request_state(ctx, sizeof *r, readiness_release);

	r->f = f;
	keyring_refresh(&r->refresh, ctx->http.srv->keys, ctx->http.srv->store, true,
	                (struct completion){ on_ready_read, r });
	return STEP_WAIT;
}

/* 200 ready, or 503 unavailable with no detail (the log says why). */
static enum step_result ready_answer(struct flow *f)
{
	static int64_t logged_ms;
	struct request_ctx *ctx = request_of(f);
	struct readiness *r = ctx->state;
	struct server *srv = ctx->http.srv;
	int64_t now = now_ms();

	if (!r->store_failed && store_writes_failed(srv->store))
		snprintf(r->reason, sizeof r->reason, "the store refuses writes");
	else if (!r->store_failed && !keyring_can_sign(srv->keys))
		snprintf(r->reason, sizeof r->reason, "no signing key of each algorithm signs now");
	if (!r->reason[0]) {
		http_reply_json(ctx, 200, json_pack("{s:s}", "status", "ready"));
		return STEP_DONE;
	}
	if (now - logged_ms >= READY_LOG_EVERY_MS || now < logged_ms) {
		log_warn("/readyz: not ready: %s", r->reason);
		logged_ms = now;
	}
	http_reply_json(ctx, 503, json_pack("{s:s}", "status", "unavailable"));
	return STEP_DONE;
}

flow_step *const ready_steps[] = { ready_read, ready_answer, NULL };

static void jwks_state_release(void *state)
{
	keyring_refresh_release(state);
}

/* JWKS reads nothing else, so the key version is read every time: a
 * rotation by the CLI is published at the next request. */
static enum step_result jwks_keys(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct keyring_refresh *s = request_state(ctx, sizeof *s, jwks_state_release);

	keyring_refresh(s, ctx->http.srv->keys, ctx->http.srv->store, true, flow_completion(f));
	return STEP_WAIT;
}

/* Every published key (docs/tokens.md §"Signing keys"). */
static enum step_result jwks(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, keyring_jwks(ctx->http.srv->keys));
	return STEP_DONE;
}

flow_step *const jwks_steps[] = { jwks_keys, jwks, NULL };

/* An endpoint's URL: the issuer followed by its path. */
static json_t *endpoint(const char *issuer, const char *path)
{
	char *url = xasprintf("%s%s", issuer, path);
	json_t *v = json_string(url);

	free(url);
	return v;
}

/* The values of a member that is a list of strings, NULL-terminated. */
static json_t *strings(const char *const *v)
{
	json_t *a = json_array();

	for (; *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

static const char *const client_auth_methods[] = {
	"client_secret_basic", "client_secret_post", "none", NULL,
};
static const char *const introspection_auth_methods[] = {
	"client_secret_basic", "client_secret_post", NULL,
};
static const char *const scopes[] = { "openid", "profile", "email", "roles", NULL };
/* Every claim of docs/signin.md §"Discovery": the ID token's and UserInfo's. */
static const char *const claims[] = {
	"iss", "sub", "aud", "iat", "exp", "auth_time", "amr", "nonce", "at_hash", "sid", "name",
	"preferred_username", "picture", "updated_at", "email", "email_verified", "role",
	"permissions", NULL,
};

/* RFC 8414 §2 and OpenID Connect Discovery §3, one document at both
 * addresses (docs/signin.md §"Discovery"); every endpoint URL is the issuer followed by
 * its path. */
static enum step_result metadata(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *iss = ctx->http.srv->cfg->issuer;
	json_t *doc = json_pack(
		"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:[s,s,s,s], s:[s], s:[s], s:[s], s:o, s:o,"
		" s:o, s:b, s:o, s:[s], s:[s,s], s:[s,s], s:b, s:b, s:b, s:o, s:b, s:b}",
		"issuer", iss,
		"authorization_endpoint", endpoint(iss, "/api/v1/authorize"),
		"token_endpoint", endpoint(iss, "/api/v1/tokens"),
		"revocation_endpoint", endpoint(iss, "/api/v1/tokens/revoke"),
		"introspection_endpoint", endpoint(iss, "/api/v1/tokens/introspect"),
		"userinfo_endpoint", endpoint(iss, "/api/v1/userinfo"),
		"end_session_endpoint", endpoint(iss, "/api/v1/logout"),
		"device_authorization_endpoint", endpoint(iss, "/api/v1/device_authorization"),
		"jwks_uri", endpoint(iss, "/.well-known/jwks.json"),
		"grant_types_supported", "authorization_code", "refresh_token", "client_credentials",
		DEVICE_GRANT_TYPE,
		"response_types_supported", "code",
		"response_modes_supported", "query",
		"code_challenge_methods_supported", "S256",
		"token_endpoint_auth_methods_supported", strings(client_auth_methods),
		"revocation_endpoint_auth_methods_supported", strings(client_auth_methods),
		"introspection_endpoint_auth_methods_supported", strings(introspection_auth_methods),
		"authorization_response_iss_parameter_supported", 1,
		"scopes_supported", strings(scopes),
		"subject_types_supported", "public",
		"id_token_signing_alg_values_supported", "RS256", "ES256",
		"prompt_values_supported", "none", "login",
		"request_parameter_supported", 0,
		"request_uri_parameter_supported", 0,
		"claims_parameter_supported", 0,
		"claims_supported", strings(claims),
		"backchannel_logout_supported", 1,
		"backchannel_logout_session_supported", 1);

	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, doc);
	return STEP_DONE;
}

flow_step *const health_steps[] = { health, NULL };
flow_step *const metadata_steps[] = { metadata, NULL };
