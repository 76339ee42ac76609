#ifndef EDGEAUTH_JWT_H
#define EDGEAUTH_JWT_H
/*
 * JWTs (RFC 7515 compact JWS) signed ES256 (P-256) or RS256 (RSA 2048),
 * and the keys that sign them. A key has one algorithm; each token's
 * protected header is {"alg":...,"typ":...,"kid":...} with the typ of what
 * it is (RFC 9068 access tokens: at+jwt). Verification never lets the token
 * choose the algorithm or the key: the kid names a key the caller knows,
 * whose algorithm must be the header's.
 */
#include <stddef.h>
#include <jansson.h>

struct jwt_key;

enum jwt_alg {
	JWT_ES256,   /* ECDSA P-256 SHA-256 (RFC 7518 §3.4) */
	JWT_RS256,   /* RSASSA-PKCS1-v1_5 SHA-256 (RFC 7518 §3.3) */
	JWT_ALG_COUNT
};

enum jwt_typ {
	JWT_TYP_ACCESS,   /* "at+jwt", RFC 9068 */
	JWT_TYP_ID,       /* "JWT", OpenID Connect ID tokens */
	JWT_TYP_LOGOUT,   /* "logout+jwt", OIDC Back-Channel Logout */
	JWT_TYP_COUNT
};

#define JWT_RSA_BITS 2048

/* "ES256", "RS256". */
const char *jwt_alg_name(enum jwt_alg alg);
/* 0 with *out set when name is one of them, else -1. */
int jwt_alg_parse(const char *name, enum jwt_alg *out);

/* Loads the P-256 private key at path, or creates it (mode 0600, parent
 * directory created if missing) when the file does not exist. On failure
 * returns NULL and writes a one-line reason into errbuf. */
struct jwt_key *jwt_key_load_or_create(const char *path, char *errbuf, size_t errlen);
/* Reads the P-256 private key at path (never creates it): 0 with *out set,
 * 1 when there is no such file, -1 with a reason in errbuf. */
int jwt_key_load(const char *path, struct jwt_key **out, char *errbuf, size_t errlen);
/* A new key of alg (P-256, or RSA of JWT_RSA_BITS). NULL with a reason. */
struct jwt_key *jwt_key_generate(enum jwt_alg alg, char *errbuf, size_t errlen);
/* The key whose private part is the PKCS#8 DER der[0..len): a P-256 key is
 * ES256, an RSA key of JWT_RSA_BITS to 4096 bits RS256, anything else is
 * refused. NULL with a reason. */
struct jwt_key *jwt_key_from_der(const unsigned char *der, size_t len, char *errbuf,
                                 size_t errlen);
/* The private key as PKCS#8 DER into *der (*len bytes, caller wipes and
 * frees after OPENSSL_cleanse). 0, or -1. */
int jwt_key_to_der(const struct jwt_key *key, unsigned char **der, size_t *len);
void jwt_key_free(struct jwt_key *key);

enum jwt_alg jwt_key_alg(const struct jwt_key *key);
/* RFC 7638 JWK thumbprint of the public key, base64url. Owned by the key. */
const char *jwt_key_kid(const struct jwt_key *key);
/* The public JWK: {"kty":"EC","crv":"P-256","x","y",...} or
 * {"kty":"RSA","n","e",...}, then "kid", "use":"sig", "alg". New reference. */
json_t *jwt_key_jwk(const struct jwt_key *key);
/* {"keys":[that JWK]}. New reference; caller decrefs. */
json_t *jwt_key_jwks(const struct jwt_key *key);

/* Signs payload[0..len) (JSON text) with a header of the key's alg, typ and
 * kid. Returns a new string (caller frees), or NULL when signing failed. */
char *jwt_sign_payload(const struct jwt_key *key, enum jwt_typ typ, const char *payload,
                       size_t len);
/* The claims (borrowed) as an access token (at+jwt). */
char *jwt_sign(const struct jwt_key *key, const json_t *claims);

#define JWT_MAX_LEN 8192
/* Finds the key a token's kid names (NULL: none may verify it). */
typedef const struct jwt_key *jwt_key_lookup(void *arg, const char *kid);
/* Checks a compact JWS: three base64url parts, a header with typ, a kid
 * that find knows and that key's alg, no crit, a valid signature over the
 * first two parts, and a JSON object as payload. Does not look at any claim.
 * Returns the claims (new reference) or NULL for anything malformed or
 * forged. len over JWT_MAX_LEN fails. */
json_t *jwt_verify_with(jwt_key_lookup *find, void *arg, enum jwt_typ typ, const char *token,
                        size_t len);
/* The same for an access token (at+jwt) of this one key. */
json_t *jwt_verify(const struct jwt_key *key, const char *token, size_t len);

#endif
