/* Issuing access tokens (RFC 9068 profile, docs/tokens.md §"Access tokens"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access_token.h"
#include "config.h"
#include "crypto.h"
#include "jbody.h"
#include "keyring.h"
#include "util.h"

/* The claims as JSON text, written directly (jbody_writer): json_pack and
 * json_dumps were a seventh of a grant, and a formatted string with the
 * values checked first still 2% (docs/BENCHMARKS.md). A value that
 * needs an escape (a row another program wrote) goes through jansson.
 * auth_time comes last, only for a user's sign-in. Caller frees. */
static char *claims_text(const char *iss, const struct access_claims *c, long long iat,
                         long long exp, const char *jti, size_t *len)
{
	const char *sub = c->user_id ? c->user_id : c->client_id;
	struct jbody_writer w;
	json_t *claims;
	char *text;

	jbody_writer_init(&w, 256 + strlen(iss) + strlen(c->scope));
	jbody_writer_string(&w, "iss", iss);
	jbody_writer_string(&w, "sub", sub);
	jbody_writer_string(&w, "aud", c->project_id);
	jbody_writer_string(&w, "client_id", c->client_id);
	jbody_writer_string(&w, "project_id", c->project_id);
	jbody_writer_string(&w, "scope", c->scope);
	jbody_writer_int(&w, "iat", iat);
	jbody_writer_int(&w, "exp", exp);
	jbody_writer_string(&w, "jti", jti);
	if (c->auth_time > 0)
		jbody_writer_int(&w, "auth_time", c->auth_time);
	text = jbody_writer_finish(&w, len);
	if (text)
		return text;
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
	*len = strlen(text);
	return text;
}

int access_token_issue(struct server *srv, const struct access_claims *c,
                       struct access_token *out, struct api_error *err)
{
	long long iat = (long long)time(NULL);
	size_t len;
	char *claims;

	out->jti = crypto_new_id();
	out->exp = iat + srv->cfg->access_ttl_s;
	claims = claims_text(srv->cfg->issuer, c, iat, out->exp, out->jti, &len);
	out->token = keyring_sign(srv->keys, JWT_ES256, JWT_TYP_ACCESS, claims, len);
	free(claims);
	if (!out->token)
		return api_fail(err, E_SYSTEM_ERROR, "The token could not be signed.");
	return 0;
}

void access_token_release(struct access_token *t)
{
	crypto_free_wiped(t->token);
	free(t->jti);
	memset(t, 0, sizeof *t);
}
