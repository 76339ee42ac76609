#ifndef EDGEAUTH_JWT_H
#define EDGEAUTH_JWT_H
/*
 * ES256 (P-256) JWTs for access tokens, RFC 9068: header {"alg":"ES256",
 * "typ":"at+jwt","kid":...}. The key lives in a PEM file created on first
 * start with mode 0600. Verification never trusts the header's alg.
 */
#include <stddef.h>
#include <jansson.h>

struct jwt_key;

/* Loads the private key at path, or creates it (P-256, mode 0600, parent
 * directory created if missing) when the file does not exist. On failure
 * returns NULL and writes a one-line reason into errbuf. */
struct jwt_key *jwt_key_load_or_create(const char *path, char *errbuf, size_t errlen);
void jwt_key_free(struct jwt_key *key);

/* RFC 7638 JWK thumbprint of the public key, base64url. Owned by the key. */
const char *jwt_key_kid(const struct jwt_key *key);
/* {"keys":[{"kty":"EC","crv":"P-256","x":..,"y":..,"kid":..,"use":"sig","alg":"ES256"}]}.
 * New reference; caller decrefs. */
json_t *jwt_key_jwks(const struct jwt_key *key);

/* Signs the claims (borrowed) into a compact JWS. Returns a new string
 * (caller frees), or NULL when signing failed. */
char *jwt_sign(const struct jwt_key *key, const json_t *claims);
/* The same for claims already written as JSON text (payload[0..len)). */
char *jwt_sign_payload(const struct jwt_key *key, const char *payload, size_t len);

#define JWT_MAX_LEN 8192
/* Checks a compact JWS: three base64url parts, header alg ES256, typ at+jwt,
 * kid equal to this key's, a valid signature over the first two parts, and a
 * JSON object as payload. Does not look at any claim. Returns the claims (new
 * reference) or NULL for anything malformed or forged. len over JWT_MAX_LEN fails. */
json_t *jwt_verify(const struct jwt_key *key, const char *token, size_t len);

#endif
