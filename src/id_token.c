#include "id_token.h"

#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "jwt.h"
#include "keyring.h"
#include "util.h"

/* A non-empty string member, or NULL. */
static const char *claim_str(const json_t *claims, const char *name)
{
	const char *s = json_string_value(json_object_get(claims, name));

	return s && *s ? s : NULL;
}

/* aud as a string, or an array holding exactly one string. */
static const char *claim_aud(const json_t *claims)
{
	const json_t *aud = json_object_get(claims, "aud");

	if (json_is_array(aud) && json_array_size(aud) == 1)
		aud = json_array_get(aud, 0);
	return json_is_string(aud) && *json_string_value(aud) ? json_string_value(aud) : NULL;
}

int id_token_verify_hint(const struct keyring *r, const char *issuer, const char *token,
                         struct id_token_hint *out)
{
	json_t *claims;
	const char *iss, *sub, *aud, *sid;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!token || strlen(token) > JWT_MAX_LEN)
		return -1;
	claims = keyring_verify(r, JWT_TYP_ID, token, strlen(token), NULL);
	if (!claims)
		return -1;
	iss = claim_str(claims, "iss");
	sub = claim_str(claims, "sub");
	aud = claim_aud(claims);
	sid = claim_str(claims, "sid");
	/* a sid present must be a session's id */
	if (iss && strcmp(iss, issuer) == 0 && sub && aud && !json_object_get(claims, "scope") &&
	    (sid || !json_object_get(claims, "sid"))) {
		out->sub = xstrdup(sub);
		out->aud = xstrdup(aud);
		out->sid = sid ? xstrdup(sid) : NULL;
		rc = 0;
	}
	json_decref(claims);
	return rc;
}

void id_token_hint_release(struct id_token_hint *h)
{
	free(h->sub);
	free(h->aud);
	free(h->sid);
	memset(h, 0, sizeof *h);
}
