#ifndef EDGEAUTH_CRYPTO_H
#define EDGEAUTH_CRYPTO_H
/* Random values, secret hashes and comparisons, over OpenSSL. Aborts if the
 * system cannot give random bytes: nothing may go on without them. */
#include <stddef.h>

#define ID_RANDOM_BYTES 16      /* IDs: 128 random bits, 22 base64url chars */
#define ID_CHARS 22             /* an ID's length */
#define SECRET_RANDOM_BYTES 32  /* secrets, refresh tokens, codes: 256 bits */
#define SECRET_HASH_LEN 43      /* base64url of a SHA-256, without padding */

void crypto_random(unsigned char *buf, size_t len);
/* Why the last OpenSSL call failed, from its error queue, which it empties.
 * Static text. */
const char *crypto_openssl_reason(void);
/* A new opaque ID: 22 base64url characters. Caller frees. */
char *crypto_new_id(void);
/* A new secret of SECRET_RANDOM_BYTES, base64url (43 chars). Caller frees and
 * should crypto_free_wiped it. */
char *crypto_new_secret(void);
/* SHA-256 of data into out. */
void crypto_sha256(const void *data, size_t len, unsigned char out[32]);
/* SHA-256 of s, base64url without padding, into out (SECRET_HASH_LEN + 1).
 * Secrets with 256 bits of entropy are stored as this hash. */
void crypto_hash_secret(const char *s, size_t len, char out[SECRET_HASH_LEN + 1]);
/* Constant-time equality of two strings of possibly different length. */
int crypto_equal(const char *a, const char *b);
/* RFC 7636 §4.6: BASE64URL(SHA256(ASCII(verifier))) == challenge. The verifier
 * must be 43..128 chars of [A-Za-z0-9-._~]. Returns 1 on match, 0 otherwise. */
int crypto_pkce_s256_verify(const char *verifier, const char *challenge);
/* AES-256-GCM under a 32-byte key, with associated data that must be the
 * same to open (the kid of a sealed signing key, so that a sealed value
 * cannot be moved to another row). Sealed form: nonce (12 random bytes) |
 * ciphertext | tag (16 bytes). */
#define CRYPTO_AEAD_KEY_BYTES 32
#define CRYPTO_AEAD_OVERHEAD (12 + 16)
/* Seals pt[0..len) into a new buffer of len + CRYPTO_AEAD_OVERHEAD bytes
 * (*out_len); caller frees. Aborts if OpenSSL cannot encrypt. */
unsigned char *crypto_seal(const unsigned char key[CRYPTO_AEAD_KEY_BYTES], const char *aad,
                           const unsigned char *pt, size_t len, size_t *out_len);
/* Opens sealed[0..len): a new buffer (*out_len bytes; caller wipes with
 * OPENSSL_cleanse and frees) or NULL when the key, the associated data or
 * any byte is wrong. */
unsigned char *crypto_open(const unsigned char key[CRYPTO_AEAD_KEY_BYTES], const char *aad,
                           const unsigned char *sealed, size_t len, size_t *out_len);
/* free and realloc that wipe the memory they give back, whatever it held:
 * the one way to free a secret. libevent and jansson allocate through them
 * (main.c), so the bytes of a request (a password, a client secret, a
 * token) and of an answer (a new token or secret) do not outlive the
 * buffers that held them. NULL is a no-op; realloc aborts when out of
 * memory, as xmalloc does. */
void crypto_free_wiped(void *p);
void *crypto_realloc_wiped(void *p, size_t n);

#endif
