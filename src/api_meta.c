/* Health, JWKS and RFC 8414 discovery: public, cacheable, no store access
 * beyond what they show. Each is one step that answers. */
#include "api_meta.h"
#include "config.h"
#include "keyring.h"
#include "request.h"
#include "util.h"

static enum step_result health(struct flow *f)
{
	http_reply_json(request_of(f), 200, json_pack("{s:s}", "status", "ok"));
	return STEP_DONE;
}

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

	keyring_refresh(s, ctx->srv->keys, ctx->srv->store, true, flow_completion(f));
	return STEP_WAIT;
}

/* Every published key (CONTRACT.md §8). */
static enum step_result jwks(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, keyring_jwks(ctx->srv->keys));
	return STEP_DONE;
}

flow_step *const jwks_steps[] = { jwks_keys, jwks, NULL };

/* RFC 8414 §2; every endpoint URL is the issuer followed by its path. */
static enum step_result metadata(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *iss = ctx->srv->cfg->issuer;
	char *authz = xasprintf("%s/api/v1/authorize", iss);
	char *token = xasprintf("%s/api/v1/tokens", iss);
	char *revoke = xasprintf("%s/api/v1/tokens/revoke", iss);
	char *jwks_uri = xasprintf("%s/.well-known/jwks.json", iss);
	json_t *doc = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:[s,s,s], s:[s], s:[s], s:[s], s:[s,s],"
		" s:[s,s], s:b}",
		"issuer", iss,
		"authorization_endpoint", authz,
		"token_endpoint", token,
		"revocation_endpoint", revoke,
		"jwks_uri", jwks_uri,
		"grant_types_supported", "authorization_code", "refresh_token", "client_credentials",
		"response_types_supported", "code",
		"response_modes_supported", "query",
		"code_challenge_methods_supported", "S256",
		"token_endpoint_auth_methods_supported", "client_secret_basic", "none",
		"revocation_endpoint_auth_methods_supported", "client_secret_basic", "none",
		"authorization_response_iss_parameter_supported", 1);

	free(authz);
	free(token);
	free(revoke);
	free(jwks_uri);
	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, doc);
	return STEP_DONE;
}

flow_step *const health_steps[] = { health, NULL };
flow_step *const metadata_steps[] = { metadata, NULL };
