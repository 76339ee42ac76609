#ifndef EDGEAUTH_JWT_KEY_H
#define EDGEAUTH_JWT_KEY_H
/*
 * The keys that sign JWTs (jwt.h signs and verifies with them): ES256
 * (P-256) or RS256 (RSA 2048), loaded from the key file, generated, or read
 * back from the store as PKCS#8 DER. A key has one algorithm.
 */
#include <stddef.h>
#include <jansson.h>
#include <openssl/evp.h>

#include "crypto.h"

#define JWT_SCALAR_BYTES 32     /* P-256 coordinates and scalars */
#define JWT_SIG_BYTES 64        /* RFC 7518 §3.4: R || S, 32 octets each */
#define JWT_RSA_MAX_BITS 4096   /* the signature and number buffers are sized for it */


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
/* A token type's typ header value: "at+jwt", "JWT", "logout+jwt". */
const char *jwt_typ_name(enum jwt_typ typ);

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

/* Its fields are jwt_key.c's and jwt.c's; everyone else uses the functions. */
struct jwt_key {
	EVP_PKEY *pkey;                 /* with its private part */
	enum jwt_alg alg;
	size_t sig_len;                 /* 64 for ES256, the modulus' bytes for RS256 */
	/* Initialised for signing once: a fresh EVP_DigestSignInit per token
	 * cost about an eighth of the signature. Loop thread only. */
	EVP_PKEY_CTX *sign_ctx;
	char kid[SECRET_HASH_LEN + 1];  /* RFC 7638 thumbprint */
	json_t *jwk;                    /* the public JWK */
	/* The protected header of each typ, encoded once: the same for every token. */
	char *header_b64[JWT_TYP_COUNT];
};

#endif
