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

#include "jwt_key.h"   /* the keys, their algorithms and the token types */

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
