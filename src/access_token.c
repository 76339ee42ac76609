/* Issuing access tokens (RFC 9068 profile, CONTRACT.md §5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access_token.h"
#include "config.h"
#include "crypto.h"
#include "json_util.h"
#include "keyring.h"
#include "util.h"

/* The claims as JSON text. Written directly when no value needs an escape
 * (ours never do: IDs are base64url, scopes named permissions of valid codes,
 * the issuer a URL): json_pack and json_dumps were a seventh of a grant. A
 * value that does need one (a row another program wrote) goes through
 * jansson. auth_time comes last, only for a user's sign-in. Caller frees. */
static char *claims_text(const char *iss, const struct access_claims *c, long long iat,
                         long long exp, const char *jti)
{
	const char *sub = c->user_id ? c->user_id : c->client_id;
	char auth_time[40] = "";
	json_t *claims;
	char *text;

	if (c->auth_time > 0)
		snprintf(auth_time, sizeof auth_time, ",\"auth_time\":%lld", c->auth_time);
	if (json_text_plain(iss) && json_text_plain(sub) && json_text_plain(c->project_id) &&
	    json_text_plain(c->client_id) && json_text_plain(c->scope) && json_text_plain(jti))
		return xasprintf("{\"iss\":\"%s\",\"sub\":\"%s\",\"aud\":\"%s\",\"client_id\":\"%s\","
		                 "\"project_id\":\"%s\",\"scope\":\"%s\",\"iat\":%lld,\"exp\":%lld,"
		                 "\"jti\":\"%s\"%s}", iss, sub, c->project_id, c->client_id, c->project_id,
		                 c->scope, iat, exp, jti, auth_time);
	claims = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s}", "iss", iss, "sub", sub,
	                   "aud", c->project_id, "client_id", c->client_id,
	                   "project_id", c->project_id, "scope", c->scope, "iat", (json_int_t)iat,
	                   "exp", (json_int_t)exp, "jti", jti);
	if (c->auth_time > 0)
		json_object_set_new(claims, "auth_time", json_integer(c->auth_time));
	text = json_dumps(claims, JSON_COMPACT);
	json_decref(claims);
	if (!text)
		abort();   /* out of memory: jansson allocates through xmalloc */
	return text;
}

int access_token_issue(struct server *srv, const struct access_claims *c,
                       struct access_token *out, struct api_error *err)
{
	long long iat = (long long)time(NULL);
	char *claims;

	out->jti = crypto_new_id();
	out->exp = iat + srv->cfg->access_ttl_s;
	claims = claims_text(srv->cfg->issuer, c, iat, out->exp, out->jti);
	out->token = keyring_sign(srv->keys, JWT_ES256, JWT_TYP_ACCESS, claims, strlen(claims));
	free(claims);
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
