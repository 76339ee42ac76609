#ifndef EDGEAUTH_KEYRING_H
#define EDGEAUTH_KEYRING_H
/*
 * The signing keys a process signs and verifies with (docs/tokens.md §"Signing keys"): the
 * store's keys, opened with the key-encryption key, kept in memory, read
 * again when the store's keys changed (a rotation or retirement by the CLI
 * is seen at the next request). Which key signs, and which are published,
 * is a function of the clock and the ring (key_schedule.h), asked at each
 * use. Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "crypto.h"
#include "flow.h"
#include "jwt.h"
#include "store_cache.h"
#include "store_keys.h"

struct config;
struct store;
struct keyring;

/* The key-encryption key file's size: an AES-256 key. */
#define KEYRING_KEK_BYTES 32

/*
 * Opens the ring of the store at start (serve, and `key rotate`): reads the
 * key-encryption key file ([tokens] key_encryption_key_file; created with
 * 32 random bytes and mode 0600 when missing), adds the keys the store
 * lacks (into a store without keys, the [tokens] signing_key file's key
 * with its kid, created as before when missing, and a new RSA key; a new
 * key for any other algorithm without a published key), warns on stderr
 * when the signing_key file differs from every stored key, and opens every
 * published key. NULL with a reason in errbuf: the key-encryption key file
 * is unusable (accessible to others, not 32 bytes), or a stored key does
 * not open with it.
 */
struct keyring *keyring_open(const struct config *cfg, struct store *st, char *errbuf,
                             size_t errlen);
void keyring_free(struct keyring *r);

/* A logout token's lifetime (docs/signin.md §"Back-channel logout": exp = iat + 120). */
#define LOGOUT_TOKEN_TTL_S 120

/* The longest lifetime, in ms, of what a key signs: a key stays published
 * that long after a newer one takes over, so that every token it signed
 * verifies until it expires. Of access tokens ([tokens] access_ttl_s), ID
 * tokens ([oidc] id_token_ttl_s) and logout tokens (LOGOUT_TOKEN_TTL_S),
 * whichever lives longest: both algorithms sign ID and logout tokens. */
int64_t keyring_lifetime_ms(const struct config *cfg);

/* Signs payload[0..len) (JSON text) as a typ token with the key that signs
 * alg now. Returns a new string, or NULL when no key signs alg or signing
 * failed. */
char *keyring_sign(const struct keyring *r, enum jwt_alg alg, enum jwt_typ typ,
                   const char *payload, size_t len);
/* The key kid when it is published now, else NULL (unknown, retired, or
 * its publication over). */
const struct jwt_key *keyring_find(const struct keyring *r, const char *kid);
/* What keyring_verify found out beside the claims. */
struct keyring_verdict {
	/* the header named a kid this ring does not publish: the caller may
	 * refresh the ring (forced) and try again */
	bool kid_unknown;
	char kid[SECRET_HASH_LEN + 1];   /* of the key that verified the token */
};
/* Verifies a typ token by the published key its kid names (jwt_verify_with).
 * Returns the claims (new reference) or NULL; fills *v when v is not NULL. */
json_t *keyring_verify(const struct keyring *r, enum jwt_typ typ, const char *token, size_t len,
                       struct keyring_verdict *v);
/* The ring's keys (their rows, without the sealed part), *n of them, in
 * the ring's order; valid until the ring is next refreshed. */
const struct key_row *keyring_rows(const struct keyring *r, size_t *n);
/* True when a key of each algorithm signs now (what /readyz needs). */
bool keyring_can_sign(const struct keyring *r);
/* {"keys":[...]}: every published key's JWK, in activation order. */
json_t *keyring_jwks(const struct keyring *r);

/* Adds a new key of each of algs[0..n), generated here, signing from now +
 * [tokens] key_activation_delay_s and published at once; the keys they take
 * over from get their bounds. Fills added[0..n) with the new rows (no
 * sealed key; the caller prints them). 0, or -1 with err. */
int keyring_rotate(struct keyring *r, struct store *st, const enum jwt_alg *algs, size_t n,
                   struct key_row *added, struct api_error *err);

/* Secrets kept sealed under the key-encryption key besides the signing keys
 * (a TOTP secret, docs/signin.md §"Second factors"): pt[0..len) sealed
 * (crypto_seal) with aad bound in, as base64url text (caller frees). */
char *keyring_seal_text(const struct keyring *r, const char *aad, const unsigned char *pt,
                        size_t len);
/* keyring_seal_text of the text fmt makes: fields joined by newlines, for
 * keyring_open_fields. The formatted text is wiped before it is freed. */
char *keyring_seal_fields(const struct keyring *r, const char *aad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Opens keyring_seal_text's text: a new buffer of *len bytes (caller wipes
 * and frees: crypto_free_wiped), or NULL when the text, the key or aad is
 * not the one it was sealed with. */
unsigned char *keyring_open_text(const struct keyring *r, const char *aad, const char *text,
                                 size_t *len);
/* Opens keyring_seal_fields's text of n fields: a new string (caller wipes
 * and frees: crypto_free_wiped) that fields[0..n) point into, or NULL when
 * it does not open or does not hold n fields. */
char *keyring_open_fields(const struct keyring *r, const char *aad, const char *text,
                          char **fields, size_t n);

/* Brings the ring up to the store (a nested flow; the caller keeps c until
 * done ran). Without force it reads the store only when the store's stamp
 * moved since the ring's last look, and so must be called after the
 * request has stepped a statement (store_stamp's rule); with force it
 * always reads the store's key version (the requests that read nothing
 * else: JWKS; a token naming a kid the ring does not know). The keys are
 * read again only when that version moved. */
struct keyring_refresh {
	struct flow flow;
	struct keyring *ring;
	struct store *store;
	bool force;
	bool changed;
	struct key_rows rows;
	struct store_stamp at;   /* the store's, taken before the read */
	struct completion done;
};
void keyring_refresh(struct keyring_refresh *c, struct keyring *ring, struct store *st,
                     bool force, struct completion done);
/* Frees what c still holds; safe on a zeroed one. */
void keyring_refresh_release(struct keyring_refresh *c);

#endif
