/*
 * Second factors' rules (factors.h). A secret or a pending sign-in leaves
 * this file only sealed; the opened bytes are wiped before they are freed.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include "factors.h"
#include "totp.h"
#include "util.h"

/* The associated data that binds a sealed value to what it is for. */
static char *totp_aad(const char *user_id)
{
	return xasprintf("totp:%s", user_id);
}

static char *pending_aad(const char *project_id)
{
	return xasprintf("signin-factor:%s", project_id);
}

static char *enroll_aad(const char *project_id)
{
	return xasprintf("signin-enroll:%s", project_id);
}

char *factor_totp_seal(const struct keyring *r, const char *user_id, const unsigned char *key,
                       size_t len)
{
	char *aad = totp_aad(user_id), *text = keyring_seal_text(r, aad, key, len);

	free(aad);
	return text;
}

unsigned char *factor_totp_open(const struct keyring *r, const char *user_id, const char *sealed,
                                size_t *len)
{
	char *aad = totp_aad(user_id);
	unsigned char *key = keyring_open_text(r, aad, sealed, len);

	free(aad);
	return key;
}

int64_t factor_totp_check(const struct keyring *r, const char *user_id, const char *sealed,
                          const char *code, int64_t now_s, int64_t last_step)
{
	size_t len = 0;
	unsigned char *key = factor_totp_open(r, user_id, sealed, &len);
	int64_t step = key ? totp_verify(key, len, code, now_s, last_step) : -1;

	crypto_free_wiped(key);
	return step;
}

void factor_recovery_new(char out[FACTOR_RECOVERY_TEXT])
{
	unsigned char raw[FACTOR_RECOVERY_BYTES];
	char b32[(FACTOR_RECOVERY_BYTES * 8 + 4) / 5 + 1];
	size_t n, o = 0;

	crypto_random(raw, sizeof raw);
	n = totp_base32_encode(b32, raw, sizeof raw);
	OPENSSL_cleanse(raw, sizeof raw);
	for (size_t i = 0; i < n; i++) {
		if (i && i % 4 == 0)
			out[o++] = '-';
		out[o++] = (char)tolower((unsigned char)b32[i]);
	}
	out[o] = '\0';
	OPENSSL_cleanse(b32, sizeof b32);
}

int factor_recovery_hash(const char *typed, char out[SECRET_HASH_LEN + 1])
{
	char norm[(FACTOR_RECOVERY_BYTES * 8 + 4) / 5 + 1];
	size_t n = 0;

	for (const char *c = typed ? typed : ""; *c; c++) {
		char u = (char)toupper((unsigned char)*c);
		if (*c == '-' || *c == ' ')
			continue;
		if (n == sizeof norm - 1 || !strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", u) || !u)
			return -1;
		norm[n++] = u;
	}
	if (n != sizeof norm - 1)
		return -1;
	crypto_hash_secret(norm, n, out);
	OPENSSL_cleanse(norm, sizeof norm);
	return 0;
}

void factor_pending_release(struct factor_pending *p)
{
	free(p->user_id);
	crypto_free_wiped(p->email);
	memset(p, 0, sizeof *p);
}

void factor_binding(const char *client_id, const char *redirect_uri, const char *code_challenge,
                    const char *scope, const char *nonce, char out[SECRET_HASH_LEN + 1])
{
	/* '\n' separates: none of them may hold one past the request's checks,
	 * and a value that did would only fail to match */
	char *all = xasprintf("%s\n%s\n%s\n%s\n%s", client_id ? client_id : "",
	                      redirect_uri ? redirect_uri : "", code_challenge ? code_challenge : "",
	                      scope ? scope : "", nonce ? nonce : "");

	crypto_hash_secret(all, strlen(all), out);
	crypto_free_wiped(all);
}

char *factor_binding_open(const struct keyring *r, const char *aad, const char *text, int64_t now,
                          char **fields, size_t n)
{
	char *plain = keyring_open_fields(r, aad, text, fields, n);

	if (plain && strlen(fields[0]) == SECRET_HASH_LEN && now < strtoll(fields[1], NULL, 10))
		return plain;
	crypto_free_wiped(plain);
	return NULL;
}

char *factor_pending_seal(const struct keyring *r, const char *project_id,
                          const struct factor_pending *p)
{
	char *aad = pending_aad(project_id);
	char *text = keyring_seal_fields(r, aad,
	                                 "%s\n%" PRId64 "\n%" PRId64 "\n%lld\n%" PRId64 "\n%s\n%s",
	                                 p->binding, p->expires_at, p->last_step, p->recovery_left,
	                                 p->passkey_used_at, p->user_id, p->email);

	free(aad);
	return text;
}

int factor_pending_open(const struct keyring *r, const char *project_id, const char *text,
                        int64_t now, struct factor_pending *out)
{
	char *aad = pending_aad(project_id), *fields[7];
	char *plain = factor_binding_open(r, aad, text, now, fields, 7);

	memset(out, 0, sizeof *out);
	free(aad);
	if (!plain)
		return -1;
	memcpy(out->binding, fields[0], SECRET_HASH_LEN + 1);
	out->expires_at = strtoll(fields[1], NULL, 10);
	out->last_step = strtoll(fields[2], NULL, 10);
	out->recovery_left = strtoll(fields[3], NULL, 10);
	out->passkey_used_at = strtoll(fields[4], NULL, 10);
	out->user_id = xstrdup(fields[5]);
	out->email = xstrdup(fields[6]);
	crypto_free_wiped(plain);
	return 0;
}

void factor_enroll_release(struct factor_enroll *e)
{
	free(e->user_id);
	crypto_free_wiped(e->email);
	memset(e, 0, sizeof *e);
}

char *factor_enroll_seal(const struct keyring *r, const char *project_id,
                         const struct factor_enroll *e)
{
	char *aad = enroll_aad(project_id);
	char *text = keyring_seal_fields(r, aad, "%s\n%" PRId64 "\n%s\n%s\n%s", e->binding,
	                                 e->expires_at, e->secret_hash, e->user_id, e->email);

	free(aad);
	return text;
}

int factor_enroll_open(const struct keyring *r, const char *project_id, const char *text,
                       int64_t now, struct factor_enroll *out)
{
	char *aad = enroll_aad(project_id), *fields[5];
	char *plain = factor_binding_open(r, aad, text, now, fields, 5);

	memset(out, 0, sizeof *out);
	free(aad);
	if (!plain || strlen(fields[2]) != SECRET_HASH_LEN) {
		crypto_free_wiped(plain);
		return -1;
	}
	memcpy(out->binding, fields[0], SECRET_HASH_LEN + 1);
	out->expires_at = strtoll(fields[1], NULL, 10);
	memcpy(out->secret_hash, fields[2], SECRET_HASH_LEN + 1);
	out->user_id = xstrdup(fields[3]);
	out->email = xstrdup(fields[4]);
	crypto_free_wiped(plain);
	return 0;
}
