/* Issuing access tokens (RFC 9068 profile, CONTRACT.md §5). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access_token.h"
#include "config.h"
#include "crypto.h"
#include "jwt.h"
#include "util.h"

int access_token_issue(struct server *srv, const char *project_id, const char *client_id,
                       const char *user_id, const char *scope, struct access_token *out,
                       struct api_error *err)
{
	long long iat = (long long)time(NULL);
	json_t *claims;

	out->jti = crypto_new_id();
	out->exp = iat + srv->cfg->access_ttl_s;
	claims = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s}",
	                   "iss", srv->cfg->issuer,
	                   "sub", user_id ? user_id : client_id,
	                   "aud", project_id,
	                   "client_id", client_id,
	                   "project_id", project_id,
	                   "scope", scope,
	                   "iat", (json_int_t)iat,
	                   "exp", (json_int_t)out->exp,
	                   "jti", out->jti);
	out->token = jwt_sign(srv->key, claims);
	json_decref(claims);
	if (!out->token)
		return api_fail(err, E_SYSTEM_ERROR, "The token could not be signed.");
	return 0;
}

void access_token_release(struct access_token *t)
{
	crypto_wipe_free(t->token);
	free(t->jti);
	memset(t, 0, sizeof *t);
}
