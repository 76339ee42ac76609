/*
 * Second factors' rules (factors.h). A secret or a pending sign-in leaves
 * this file only sealed; the opened bytes are wiped before they are freed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *factor_totp_seal(const struct keyring *r, const char *user_id, const unsigned char *key,
                       size_t len)
{
	char *aad = totp_aad(user_id), *text = keyring_seal_text(r, aad, key, len);

	free(aad);
	return text;
}

int64_t factor_totp_check(const struct keyring *r, const char *user_id, const char *sealed,
                          const char *code, int64_t now_s, int64_t last_step)
{
	char *aad = totp_aad(user_id);
	size_t len = 0;
	unsigned char *key = keyring_open_text(r, aad, sealed, &len);
	int64_t step = key ? totp_verify(key, len, code, now_s, last_step) : -1;

	crypto_free_wiped(key);
	free(aad);
	return step;
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

char *factor_pending_seal(const struct keyring *r, const char *project_id,
                          const struct factor_pending *p)
{
	char *aad = pending_aad(project_id);
	char *plain = xasprintf("%s\n%" PRId64 "\n%" PRId64 "\n%s\n%s", p->binding, p->last_step,
	                        p->expires_at, p->user_id, p->email);
	char *text = keyring_seal_text(r, aad, (const unsigned char *)plain, strlen(plain));

	crypto_free_wiped(plain);
	free(aad);
	return text;
}

int factor_pending_open(const struct keyring *r, const char *project_id, const char *text,
                        int64_t now, struct factor_pending *out)
{
	char *aad = pending_aad(project_id), *fields[5];
	char *plain = keyring_open_fields(r, aad, text, fields, 5);
	int rc = -1;

	memset(out, 0, sizeof *out);
	free(aad);
	if (!plain)
		return -1;
	if (strlen(fields[0]) == SECRET_HASH_LEN) {
		memcpy(out->binding, fields[0], SECRET_HASH_LEN + 1);
		out->last_step = strtoll(fields[1], NULL, 10);
		out->expires_at = strtoll(fields[2], NULL, 10);
		out->user_id = xstrdup(fields[3]);
		out->email = xstrdup(fields[4]);
		rc = now < out->expires_at ? 0 : -1;
	}
	crypto_free_wiped(plain);
	if (rc < 0)
		factor_pending_release(out);
	return rc;
}
