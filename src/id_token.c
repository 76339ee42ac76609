/*
 * ID tokens (CONTRACT.md §7): the OIDC scopes, the claims they grant, the
 * token itself, and reading one back as a logout hint. Issuing a token
 * reads nothing: the grant hands in the user as it read them.
 */
#include "id_token.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "b64url.h"
#include "crypto.h"
#include "jwt.h"
#include "keyring.h"
#include "util.h"

/* ---- scopes ---- */

static const char *const scope_names[] = { "openid", "profile", "email", "roles" };
#define SCOPE_COUNT (sizeof scope_names / sizeof scope_names[0])

unsigned id_token_scopes_parse(const char *scope)
{
	unsigned mask = 0;

	while (scope && *scope) {
		size_t n = strcspn(scope, " ");

		for (size_t i = 0; i < SCOPE_COUNT; i++)
			if (strlen(scope_names[i]) == n && !strncmp(scope, scope_names[i], n))
				mask |= 1u << i;
		scope += n;
		scope += strspn(scope, " ");
	}
	return mask;
}

const char *id_token_scopes_text(unsigned mask, char out[ID_TOKEN_SCOPES_MAX])
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < SCOPE_COUNT; i++)
		if (mask & (1u << i))
			len += (size_t)snprintf(out + len, ID_TOKEN_SCOPES_MAX - len, "%s%s",
			                        len ? " " : "", scope_names[i]);
	return out;
}

char *id_token_scopes_granted(const char *requested)
{
	unsigned mask = id_token_scopes_parse(requested);
	char text[ID_TOKEN_SCOPES_MAX];

	if (!(mask & ID_TOKEN_SCOPE_OPENID))
		return NULL;
	return xstrdup(id_token_scopes_text(mask, text));
}

/* ---- claims ---- */

static void set_string(json_t *claims, const char *name, const char *value)
{
	if (value && *value)
		json_object_set_new(claims, name, json_string(value));
}

/* The words of a space-separated list, as a JSON array, or NULL for none. */
static json_t *words(const char *list)
{
	json_t *a = NULL;

	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n > 0) {
			if (!a)
				a = json_array();
			json_array_append_new(a, json_stringn(list, n));
		}
		list += n;
		list += strspn(list, " ");
	}
	return a;
}

void id_token_user_claims(json_t *claims, const struct user_claims *u, unsigned scopes,
                          const char *permissions)
{
	json_t *named;

	if (scopes & ID_TOKEN_SCOPE_PROFILE) {
		set_string(claims, "name", u->display_name);
		set_string(claims, "preferred_username",
		           u->email && *u->email ? u->email : u->external_user_id);
		set_string(claims, "picture", u->avatar_url);
		json_object_set_new(claims, "updated_at", json_integer(u->updated_at / 1000));
	}
	if ((scopes & ID_TOKEN_SCOPE_EMAIL) && u->email && *u->email) {
		set_string(claims, "email", u->email);
		json_object_set_new(claims, "email_verified", json_boolean(u->email_verified));
	}
	if (scopes & ID_TOKEN_SCOPE_ROLES) {
		set_string(claims, "role", u->role_code);
		named = words(permissions);
		if (named)
			json_object_set_new(claims, "permissions", named);
	}
}

/* ---- the token ---- */

void id_token_at_hash(const char *access_token, char out[ID_TOKEN_AT_HASH_LEN + 1])
{
	unsigned char digest[32];
	char full[B64URL_ENCODED_MAX(sizeof digest / 2)];   /* the encoder's padding too */

	crypto_sha256(access_token, strlen(access_token), digest);
	b64url_encode_into(full, digest, sizeof digest / 2);
	memcpy(out, full, ID_TOKEN_AT_HASH_LEN + 1);
}

char *id_token_issue(const struct keyring *r, const struct id_token_request *req)
{
	long long iat = (long long)time(NULL);
	char at_hash[ID_TOKEN_AT_HASH_LEN + 1];
	json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", req->issuer,
	                           "sub", req->user_id, "aud", req->client_id,
	                           "iat", (json_int_t)iat, "exp", (json_int_t)(iat + req->ttl_s));
	char *payload, *token;

	if (req->auth_time > 0)
		json_object_set_new(claims, "auth_time", json_integer(req->auth_time));
	/* a session is made by a password sign-in; a BYOU sign-in has none */
	if (req->session_id)
		json_object_set_new(claims, "amr", json_pack("[s]", "pwd"));
	set_string(claims, "nonce", req->nonce);
	id_token_at_hash(req->access_token, at_hash);
	json_object_set_new(claims, "at_hash", json_string(at_hash));
	set_string(claims, "sid", req->session_id);
	id_token_user_claims(claims, req->user, req->scopes, req->permissions);
	payload = json_dumps(claims, JSON_COMPACT);
	json_decref(claims);
	if (!payload)
		abort();   /* out of memory: jansson allocates through xmalloc */
	token = keyring_sign(r, req->alg, JWT_TYP_ID, payload, strlen(payload));
	free(payload);
	return token;
}

/* ---- reading one back ---- */

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
