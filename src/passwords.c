/*
 * argon2id hashing. For now the work runs inline on the caller's thread and
 * the callback is called before the function returns; the interface already
 * allows a worker pool to run it elsewhere.
 */
#include <stdlib.h>
#include <string.h>
#include <argon2.h>
#include <openssl/crypto.h>

#include "config.h"
#include "crypto.h"
#include "passwords.h"
#include "util.h"

#define SALT_BYTES 16
#define HASH_BYTES 32

struct passwords {
	const struct config *cfg;
	char *dummy;   /* a hash of a random password, verified for unknown accounts */
};

static char *hash_now(const struct config *cfg, const char *password)
{
	unsigned char salt[SALT_BYTES];
	size_t len = argon2_encodedlen(cfg->argon2_iterations, cfg->argon2_memory_kib,
	                               cfg->argon2_parallelism, SALT_BYTES, HASH_BYTES,
	                               Argon2_id);
	char *encoded = xmalloc(len);

	crypto_random(salt, sizeof salt);
	if (argon2id_hash_encoded(cfg->argon2_iterations, cfg->argon2_memory_kib,
	                          cfg->argon2_parallelism, password, strlen(password), salt,
	                          SALT_BYTES, HASH_BYTES, encoded, len) != ARGON2_OK) {
		free(encoded);
		return NULL;
	}
	return encoded;
}

struct passwords *passwords_new(struct event_base *base, const struct config *cfg)
{
	struct passwords *pw = xcalloc(1, sizeof *pw);
	char *random_pw = crypto_new_secret();

	(void)base;
	pw->cfg = cfg;
	pw->dummy = hash_now(cfg, random_pw);
	crypto_wipe_free(random_pw);
	return pw;
}

void passwords_free(struct passwords *pw)
{
	if (!pw)
		return;
	free(pw->dummy);
	free(pw);
}

int passwords_hash(struct passwords *pw, const char *password,
                   passwords_hash_done *done, void *arg, struct api_error *err)
{
	(void)err;
	done(arg, hash_now(pw->cfg, password));
	return 0;
}

int passwords_verify(struct passwords *pw, const char *encoded, const char *password,
                     passwords_verify_done *done, void *arg, struct api_error *err)
{
	const char *against = encoded ? encoded : pw->dummy;
	int rc;

	(void)err;
	rc = against ? argon2id_verify(against, password, strlen(password)) : ARGON2_VERIFY_MISMATCH;
	if (!encoded)
		done(arg, 0);
	else
		done(arg, rc == ARGON2_OK ? 1 : rc == ARGON2_VERIFY_MISMATCH ? 0 : -1);
	return 0;
}
