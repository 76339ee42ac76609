/*
 * Passkeys at sign-in (passkey_auth.h): decodes what the form carries and
 * hands it to the verifier with the issuer's origin and RP ID; seals and
 * opens the sign-in page's value of a passkey alone.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/http.h>

#include "b64url.h"
#include "factors.h"
#include "passkey_auth.h"
#include "util.h"

bool passkey_rp(const char *issuer, char origin[PASSKEY_ORIGIN_MAX],
                char rp_id[PASSKEY_RP_ID_MAX])
{
	struct evhttp_uri *u = evhttp_uri_parse(issuer);
	const char *scheme = u ? evhttp_uri_get_scheme(u) : NULL;
	const char *h = u ? evhttp_uri_get_host(u) : NULL;
	int port = u ? evhttp_uri_get_port(u) : -1;
	unsigned char addr[16];
	bool ok = scheme && h && *h && strlen(h) < PASSKEY_RP_ID_MAX &&
	          inet_pton(AF_INET, h, addr) != 1 && !strchr(h, ':') && h[0] != '[';

	if (ok) {
		snprintf(rp_id, PASSKEY_RP_ID_MAX, "%s", h);
		if (port > 0)
			snprintf(origin, PASSKEY_ORIGIN_MAX, "%s://%s:%d", scheme, h, port);
		else
			snprintf(origin, PASSKEY_ORIGIN_MAX, "%s://%s", scheme, h);
	}
	if (u)
		evhttp_uri_free(u);
	return ok;
}

void passkey_signin_challenge(const char *factor_token, char out[SECRET_HASH_LEN + 1])
{
	char *purpose = xasprintf("passkey-signin %s", factor_token ? factor_token : "");

	crypto_hash_secret(purpose, strlen(purpose), out);
	crypto_free_wiped(purpose);
}

static unsigned char *decoded(const char *s, size_t *len)
{
	return s && *s ? b64url_decode_any(s, strlen(s), len) : NULL;
}

enum webauthn_status passkey_assertion_check(const char *issuer, const char *challenge,
                                             const struct store_passkey *pk,
                                             const struct passkey_answer *ans, bool require_uv,
                                             struct webauthn_use *use)
{
	char origin[PASSKEY_ORIGIN_MAX], rp_id[PASSKEY_RP_ID_MAX];
	size_t cd_len = 0, ad_len = 0, sig_len = 0, key_len = 0;
	unsigned char *cd = decoded(ans->client_data, &cd_len);
	unsigned char *ad = decoded(ans->auth_data, &ad_len);
	unsigned char *sig = decoded(ans->signature, &sig_len);
	unsigned char *key = decoded(pk->public_key, &key_len);
	enum webauthn_status st = WEBAUTHN_MALFORMED;

	if (cd && ad && sig && key && pk->sign_count >= 0 && pk->sign_count <= UINT32_MAX &&
	    passkey_rp(issuer, origin, rp_id)) {
		struct webauthn_expect ex = { challenge, origin, rp_id, require_uv };

		st = webauthn_verify_assertion(&ex, &(struct webauthn_assertion){ cd, cd_len, ad, ad_len,
		                                                                   sig, sig_len },
		                               key, key_len, (uint32_t)pk->sign_count, use);
	}
	free(cd);
	free(ad);
	free(sig);
	free(key);
	return st;
}

/* ---- a passkey alone ---- */

static char *alone_aad(const char *project_id)
{
	return xasprintf("signin-passkey:%s", project_id);
}

char *passkey_alone_seal(const struct keyring *r, const char *project_id,
                         const char binding[SECRET_HASH_LEN + 1], int64_t now)
{
	char *aad = alone_aad(project_id);
	char *text = keyring_seal_fields(r, aad, "%s\n%" PRId64 "\n%" PRId64, binding,
	                                 now + (int64_t)PASSKEY_ALONE_TTL_S * 1000, now);

	free(aad);
	return text;
}

int passkey_alone_open(const struct keyring *r, const char *project_id, const char *text,
                       int64_t now, char binding[SECRET_HASH_LEN + 1], int64_t *issued_at)
{
	char *aad = alone_aad(project_id), *fields[3];
	char *plain = factor_binding_open(r, aad, text, now, fields, 3);

	free(aad);
	if (!plain)
		return -1;
	memcpy(binding, fields[0], SECRET_HASH_LEN + 1);
	*issued_at = strtoll(fields[2], NULL, 10);
	crypto_free_wiped(plain);
	return 0;
}

bool passkey_user_handle_is(const char *user_handle, const char *user_id)
{
	size_t len = 0;
	unsigned char *h = decoded(user_handle, &len);
	bool same = h && len == strlen(user_id) && memcmp(h, user_id, len) == 0;

	free(h);
	return same;
}
