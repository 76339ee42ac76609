/*
 * ID tokens (docs/signin.md §"ID tokens"): the OIDC scopes, the claims they grant, the
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
#include "jbody.h"
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

	/* copied, not snprintf'd: it runs on every refresh of an OIDC sign-in;
	 * ID_TOKEN_SCOPES_MAX holds all of them */
	for (size_t i = 0; i < SCOPE_COUNT; i++)
		if (mask & (1u << i)) {
			size_t n = strlen(scope_names[i]);

			if (len)
				out[len++] = ' ';
			memcpy(out + len, scope_names[i], n);
			len += n;
		}
	out[len] = '\0';
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

/* A claim with a value: NULL and "" are left out. */
static void set_string(struct jbody_writer *w, const char *name, const char *value)
{
	if (value && *value)
		jbody_writer_text(w, name, value);
}

void id_token_user_claims(struct jbody_writer *w, const struct user_claims *u, unsigned scopes,
                          const char *permissions)
{
	if (scopes & ID_TOKEN_SCOPE_PROFILE) {
		set_string(w, "name", u->display_name);
		set_string(w, "preferred_username",
		           u->email && *u->email ? u->email : u->external_user_id);
		set_string(w, "picture", u->avatar_url);
		jbody_writer_int(w, "updated_at", u->updated_at / 1000);
	}
	if ((scopes & ID_TOKEN_SCOPE_EMAIL) && u->email && *u->email) {
		set_string(w, "email", u->email);
		jbody_writer_raw(w, "email_verified", u->email_verified ? "true" : "false");
	}
	if (scopes & ID_TOKEN_SCOPE_ROLES) {
		set_string(w, "role", u->role_code);
		jbody_writer_words(w, "permissions", permissions);
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

/* The claims are written directly (jbody_writer): json_pack and json_dumps
 * were two fifths of what an ID token adds to a refresh besides its
 * signature (docs/BENCHMARKS.md). */
char *id_token_issue(const struct keyring *r, const struct id_token_request *req)
{
	long long iat = (long long)time(NULL);
	char at_hash[ID_TOKEN_AT_HASH_LEN + 1];
	struct jbody_writer w;
	size_t len;
	char *payload, *token;

	jbody_writer_init(&w, 512 + (req->permissions ? strlen(req->permissions) : 0));
	jbody_writer_text(&w, "iss", req->issuer);
	jbody_writer_text(&w, "sub", req->user_id);
	jbody_writer_text(&w, "aud", req->client_id);
	jbody_writer_int(&w, "iat", iat);
	jbody_writer_int(&w, "exp", iat + req->ttl_s);
	if (req->auth_time > 0)
		jbody_writer_int(&w, "auth_time", req->auth_time);
	/* RFC 8176: how the session's user signed in (docs/signin.md §"Second
	 * factors"); a BYOU sign-in has no session and says nothing */
	if (req->session_id)
		jbody_writer_words(&w, "amr", req->amr ? req->amr : "pwd");
	set_string(&w, "nonce", req->nonce);
	id_token_at_hash(req->access_token, at_hash);
	jbody_writer_text(&w, "at_hash", at_hash);
	set_string(&w, "sid", req->session_id);
	id_token_user_claims(&w, req->user, req->scopes, req->permissions);
	payload = jbody_writer_finish(&w, &len);   /* never refused: jbody_writer_text escapes */
	token = keyring_sign(r, req->alg, JWT_TYP_ID, payload, len);
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
