/*
 * Random IDs and secrets, secret hashes, constant-time comparison and PKCE,
 * over OpenSSL. Never goes on without random bytes: a failing RAND_bytes
 * aborts. Never compares a secret with memcmp or strcmp.
 */
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "b64url.h"
#include "crypto.h"
#include "log.h"
#include "util.h"

/* RFC 7636 §4.1: code_verifier = 43*128unreserved */
#define PKCE_VERIFIER_MIN 43
#define PKCE_VERIFIER_MAX 128

void crypto_random(unsigned char *buf, size_t len)
{
	while (len > 0) {
		int chunk = len > INT_MAX ? INT_MAX : (int)len;

		if (RAND_bytes(buf, chunk) != 1) {
			log_error("RAND_bytes failed");
			abort();
		}
		buf += chunk;
		len -= (size_t)chunk;
	}
}

const char *crypto_openssl_reason(void)
{
	const char *why = ERR_reason_error_string(ERR_peek_last_error());

	ERR_clear_error();
	return why ? why : "unknown OpenSSL error";
}

/* IDs draw their bytes from a pool filled ID_POOL_BYTES at a time: one
 * RAND_bytes call costs about as much for 16 bytes as for a kilobyte, and
 * was 1.7% of a grant per ID (docs/BENCHMARKS.md). Each byte serves once
 * and is wiped. Per thread; the process never forks. Secrets do not use it. */
#define ID_POOL_BYTES 1024
static _Thread_local unsigned char id_pool[ID_POOL_BYTES];
static _Thread_local size_t id_pool_left;

char *crypto_new_id(void)
{
	unsigned char *raw;
	char *id;

	if (id_pool_left < ID_RANDOM_BYTES) {
		crypto_random(id_pool, sizeof id_pool);
		id_pool_left = sizeof id_pool;
	}
	raw = id_pool + sizeof id_pool - id_pool_left;
	id_pool_left -= ID_RANDOM_BYTES;
	id = b64url_encode(raw, ID_RANDOM_BYTES);
	OPENSSL_cleanse(raw, ID_RANDOM_BYTES);
	return id;
}

char *crypto_new_secret(void)
{
	unsigned char raw[SECRET_RANDOM_BYTES];
	char *s;

	crypto_random(raw, sizeof raw);
	s = b64url_encode(raw, sizeof raw);
	OPENSSL_cleanse(raw, sizeof raw);
	return s;
}

/* EVP_sha256() makes OpenSSL 3 look the algorithm up on every digest, which
 * cost more than the hashing itself; fetch it once. */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

void crypto_sha256(const void *data, size_t len, unsigned char out[32])
{
	unsigned int mdlen = 0;

	pthread_once(&sha256_once, sha256_fetch);
	if (!sha256_md || EVP_Digest(data, len, out, &mdlen, sha256_md, NULL) != 1 || mdlen != 32) {
		log_error("SHA-256 failed");
		abort();
	}
}

void crypto_hash_secret(const char *s, size_t len, char out[SECRET_HASH_LEN + 1])
{
	unsigned char md[32];
	char enc[B64URL_ENCODED_MAX(sizeof md)];

	crypto_sha256(s, len, md);
	b64url_encode_into(enc, md, sizeof md);
	memcpy(out, enc, SECRET_HASH_LEN + 1);
	OPENSSL_cleanse(md, sizeof md);
	OPENSSL_cleanse(enc, sizeof enc);
}

/* The time taken depends on the lengths only, never on where a and b differ.
 * NULL equals nothing. */
int crypto_equal(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return 0;
	return CRYPTO_memcmp(a, b, la) == 0;
}

/* RFC 3986 §2.3 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~" */
static int pkce_char_ok(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

int crypto_pkce_s256_verify(const char *verifier, const char *challenge)
{
	char computed[SECRET_HASH_LEN + 1];
	size_t len;
	int ok;

	if (!verifier || !challenge)
		return 0;
	len = strlen(verifier);
	if (len < PKCE_VERIFIER_MIN || len > PKCE_VERIFIER_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!pkce_char_ok((unsigned char)verifier[i]))
			return 0;
	crypto_hash_secret(verifier, len, computed);
	ok = crypto_equal(computed, challenge);
	OPENSSL_cleanse(computed, sizeof computed);
	return ok;
}

#define AEAD_NONCE_BYTES 12
#define AEAD_TAG_BYTES 16

/* One AES-256-GCM pass: encrypt (seal) or decrypt and check the tag. in and
 * out are len bytes; tag is written when sealing, checked when opening.
 * Returns 0, or -1 when opening finds a wrong tag (or OpenSSL fails). */
static int aead_run(bool seal, const unsigned char *key, const unsigned char *nonce,
                    const char *aad, const unsigned char *in, size_t len, unsigned char *out,
                    unsigned char *tag)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int n, ok;

	ok = ctx && len <= INT_MAX && strlen(aad) <= INT_MAX &&
	     EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce, seal) == 1 &&
	     EVP_CipherUpdate(ctx, NULL, &n, (const unsigned char *)aad, (int)strlen(aad)) == 1 &&
	     EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1 &&
	     (seal || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, AEAD_TAG_BYTES, tag) == 1) &&
	     EVP_CipherFinal_ex(ctx, out + n, &n) == 1 &&
	     (!seal || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, AEAD_TAG_BYTES, tag) == 1);
	EVP_CIPHER_CTX_free(ctx);
	ERR_clear_error();
	return ok ? 0 : -1;
}

unsigned char *crypto_seal(const unsigned char key[CRYPTO_AEAD_KEY_BYTES], const char *aad,
                           const unsigned char *pt, size_t len, size_t *out_len)
{
	unsigned char *out = xmalloc(len + CRYPTO_AEAD_OVERHEAD);

	crypto_random(out, AEAD_NONCE_BYTES);
	if (aead_run(true, key, out, aad, pt, len, out + AEAD_NONCE_BYTES,
	             out + AEAD_NONCE_BYTES + len) != 0) {
		log_error("AES-256-GCM failed");
		abort();
	}
	*out_len = len + CRYPTO_AEAD_OVERHEAD;
	return out;
}

unsigned char *crypto_open(const unsigned char key[CRYPTO_AEAD_KEY_BYTES], const char *aad,
                           const unsigned char *sealed, size_t len, size_t *out_len)
{
	unsigned char tag[AEAD_TAG_BYTES], *out;
	size_t n;

	if (len < CRYPTO_AEAD_OVERHEAD)
		return NULL;
	n = len - CRYPTO_AEAD_OVERHEAD;
	memcpy(tag, sealed + AEAD_NONCE_BYTES + n, sizeof tag);
	out = xmalloc(n + 1);
	if (aead_run(false, key, sealed, aad, sealed + AEAD_NONCE_BYTES, n, out, tag) != 0) {
		OPENSSL_cleanse(out, n + 1);
		free(out);
		return NULL;
	}
	*out_len = n;
	return out;
}

/* The whole block, not only what the caller asked for: the allocator's size
 * is the one that is sure to cover every byte written. */
void crypto_free_wiped(void *p)
{
	if (!p)
		return;
	OPENSSL_cleanse(p, malloc_usable_size(p));
	free(p);
}

void *crypto_realloc_wiped(void *p, size_t n)
{
	size_t had;
	void *q;

	if (!p)
		return xmalloc(n);
	had = malloc_usable_size(p);
	if (n <= had)
		return p;
	q = xmalloc(n);
	memcpy(q, p, had);
	crypto_free_wiped(p);
	return q;
}
