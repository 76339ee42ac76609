/* Health, JWKS and RFC 8414 discovery: public, cacheable, no store access
 * beyond what they show. */
#include "api_meta.h"
#include "config.h"
#include "jwt.h"
#include "util.h"

void health_get(struct request_ctx *ctx)
{
	http_reply_json(ctx, 200, json_pack("{s:s}", "status", "ok"));
}

void jwks_get(struct request_ctx *ctx)
{
	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, jwt_key_jwks(ctx->srv->key));
}

/* RFC 8414 §2; every endpoint URL is the issuer followed by its path. */
void metadata_get(struct request_ctx *ctx)
{
	const char *iss = ctx->srv->cfg->issuer;
	char *authz = xasprintf("%s/api/v1/authorize", iss);
	char *token = xasprintf("%s/api/v1/tokens", iss);
	char *revoke = xasprintf("%s/api/v1/tokens/revoke", iss);
	char *jwks = xasprintf("%s/.well-known/jwks.json", iss);
	json_t *doc = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:[s,s,s], s:[s], s:[s], s:[s], s:[s,s],"
		" s:[s,s], s:b}",
		"issuer", iss,
		"authorization_endpoint", authz,
		"token_endpoint", token,
		"revocation_endpoint", revoke,
		"jwks_uri", jwks,
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
	free(jwks);
	http_add_header(ctx, "Cache-Control", "public, max-age=300");
	http_reply_json(ctx, 200, doc);
}
