/*
 * argon2id hashing and verification on the worker pool. The loop hands a
 * copy of the password to a job and forgets it; the job wipes it. Results
 * come back through the pool's done() on the loop thread.
 */
#include <stdlib.h>
#include <string.h>
#include <argon2.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "config.h"
#include "crypto.h"
#include "metrics.h"
#include "passwords.h"
#include "util.h"
#include "workers.h"

#define SALT_BYTES 16
#define HASH_BYTES 32

struct passwords {
	const struct config *cfg;
	struct workers *pool;
	char *dummy;   /* a hash of a random password, verified for unknown accounts */
};

struct pw_job {
	const struct config *cfg;
	char *password;         /* wiped by the job */
	char *encoded;          /* in: the hash to verify; out: the new hash */
	bool is_dummy;
	int ok;
	passwords_hash_done *hash_done;
	passwords_verify_done *verify_done;
	void *arg;
};

/* NULL when the hash cannot run: argon2 takes argon2_memory_kib from the
 * heap for each job, and under a memory limit that allocation (or this
 * one) fails. Not xmalloc: a job that cannot get memory is answered 503,
 * and the server goes on (docs/decisions.md "A password hash that cannot run"). */
char *passwords_hash_now(const struct config *cfg, const char *password)
{
	unsigned char salt[SALT_BYTES];
	size_t len = argon2_encodedlen(cfg->argon2_iterations, cfg->argon2_memory_kib,
	                               cfg->argon2_parallelism, SALT_BYTES, HASH_BYTES,
	                               Argon2_id);
	char *encoded = malloc(len);

	if (!encoded)
		return NULL;
	crypto_random(salt, sizeof salt);
	if (argon2id_hash_encoded(cfg->argon2_iterations, cfg->argon2_memory_kib,
	                          cfg->argon2_parallelism, password, strlen(password), salt,
	                          SALT_BYTES, HASH_BYTES, encoded, len) != ARGON2_OK) {
		free(encoded);
		return NULL;
	}
	return encoded;
}

/* Base64 without padding, as argon2's encoding writes it. */
static void b64_nopad(const unsigned char *in, int len, char *out)
{
	int n = EVP_EncodeBlock((unsigned char *)out, in, len);
	while (n > 0 && out[n - 1] == '=')
		out[--n] = '\0';
}

/* An encoded argon2id hash with the configured cost and random salt and
 * digest: verifying anything against it costs one real hash and never
 * matches. Made without hashing, so that start-up does not wait for it. */
static char *dummy_encoded(const struct config *cfg)
{
	unsigned char salt[SALT_BYTES], digest[HASH_BYTES];
	char salt64[32], digest64[48];

	crypto_random(salt, sizeof salt);
	crypto_random(digest, sizeof digest);
	b64_nopad(salt, sizeof salt, salt64);
	b64_nopad(digest, sizeof digest, digest64);
	return xasprintf("$argon2id$v=19$m=%u,t=%u,p=%u$%s$%s", cfg->argon2_memory_kib,
	                 cfg->argon2_iterations, cfg->argon2_parallelism, salt64, digest64);
}

struct passwords *passwords_new(struct event_base *base, const struct config *cfg)
{
	struct passwords *pw = xcalloc(1, sizeof *pw);

	pw->cfg = cfg;
	pw->pool = workers_new(base, cfg->hash_threads, cfg->max_pending_hashes, WORKERS_BATCH,
	                       metrics_hash_queue);
	pw->dummy = dummy_encoded(cfg);
	return pw;
}

void passwords_free(struct passwords *pw)
{
	if (!pw)
		return;
	workers_free(pw->pool);
	free(pw->dummy);
	free(pw);
}

static void job_free(struct pw_job *j)
{
	crypto_free_wiped(j->password);
	if (!j->is_dummy)
		free(j->encoded);
	free(j);
}

static void work_hash(void *arg)
{
	struct pw_job *j = arg;
	j->encoded = passwords_hash_now(j->cfg, j->password);
	OPENSSL_cleanse(j->password, strlen(j->password));
}

static void done_hash(void *arg)
{
	struct pw_job *j = arg;
	char *encoded = j->encoded;

	j->encoded = NULL;   /* handed to the callback */
	j->hash_done(j->arg, encoded);
	job_free(j);
}

/* ok -1 when the hash could not run (ARGON2_MEMORY_ALLOCATION_ERROR under a
 * memory limit), for the dummy too: an unknown account then answers as a
 * known one does, and neither counts as a wrong password. */
static void work_verify(void *arg)
{
	struct pw_job *j = arg;
	int rc = argon2id_verify(j->encoded, j->password, strlen(j->password));

	OPENSSL_cleanse(j->password, strlen(j->password));
	if (rc != ARGON2_OK && rc != ARGON2_VERIFY_MISMATCH)
		j->ok = -1;
	else
		j->ok = rc == ARGON2_OK && !j->is_dummy;
}

static void done_verify(void *arg)
{
	struct pw_job *j = arg;
	j->verify_done(j->arg, j->ok);
	job_free(j);
}

static int submit(struct passwords *pw, struct pw_job *j, worker_fn *work, worker_fn *done,
                  struct api_error *err)
{
	if (workers_submit(pw->pool, work, done, j) < 0) {
		job_free(j);
		return api_fail(err, E_UNAVAILABLE, "Too many sign-ins at once; try again shortly.");
	}
	return 0;
}

int passwords_hash(struct passwords *pw, const char *password,
                   passwords_hash_done *done, void *arg, struct api_error *err)
{
	struct pw_job *j = xcalloc(1, sizeof *j);

	j->cfg = pw->cfg;
	j->password = xstrdup(password);
	j->hash_done = done;
	j->arg = arg;
	return submit(pw, j, work_hash, done_hash, err);
}

int passwords_verify(struct passwords *pw, const char *encoded, const char *password,
                     passwords_verify_done *done, void *arg, struct api_error *err)
{
	struct pw_job *j = xcalloc(1, sizeof *j);

	j->cfg = pw->cfg;
	j->password = xstrdup(password);
	j->is_dummy = encoded == NULL;
	j->encoded = encoded ? xstrdup(encoded) : pw->dummy;
	j->verify_done = done;
	j->arg = arg;
	return submit(pw, j, work_verify, done_verify, err);
}

const char *passwords_dummy(const struct passwords *pw)
{
	return pw->dummy;
}
