/*
 * JWTs (RFC 7515 compact JWS) signed ES256 (RFC 7518 §3.4) or RS256 (§3.3)
 * with a key of jwt_key.c. jwt_verify_with reads hostile input: it checks
 * every length before use and never lets the token choose the algorithm or
 * the key.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "b64url.h"
#include "crypto.h"
#include "jwt.h"
#include "util.h"

#define JWT_DER_SIG_MAX 128     /* a DER ECDSA-Sig-Value for P-256 is at most 72 */

/* The order n of P-256 (SEC 2 §2.4.2), and floor(n/2), big-endian. */
static const unsigned char p256_order[JWT_SCALAR_BYTES] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
};
static const unsigned char p256_half_order[JWT_SCALAR_BYTES] = {
	0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00,
	0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42,
	0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8,
};



/*
 * ES256 over data[0..len) into raw (R || S). S is normalised to the lower half
 * of the order, which every verifier accepts and jwt_verify requires, so that
 * a token cannot be re-signed by an outsider as (R, n - S). Returns 0 or -1.
 */
static int es256_sign(EVP_PKEY_CTX *sign_ctx, const char *data, size_t len,
                      unsigned char raw[JWT_SIG_BYTES])
{
	unsigned char der[JWT_DER_SIG_MAX];
	const unsigned char *p = der;
	size_t der_len = sizeof der;
	unsigned char digest[32];
	ECDSA_SIG *sig = NULL;
	const BIGNUM *r, *s;
	BIGNUM *n = NULL, *low_s = NULL;
	int ret = -1;

	crypto_sha256(data, len, digest);
	if (EVP_PKEY_sign(sign_ctx, der, &der_len, digest, sizeof digest) != 1)
		goto out;
	sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (!sig)
		goto out;
	ECDSA_SIG_get0(sig, &r, &s);
	if (BN_bn2binpad(r, raw, JWT_SCALAR_BYTES) != JWT_SCALAR_BYTES ||
	    BN_bn2binpad(s, raw + JWT_SCALAR_BYTES, JWT_SCALAR_BYTES) != JWT_SCALAR_BYTES)
		goto out;
	if (memcmp(raw + JWT_SCALAR_BYTES, p256_half_order, JWT_SCALAR_BYTES) > 0) {
		n = BN_bin2bn(p256_order, JWT_SCALAR_BYTES, NULL);
		low_s = BN_new();
		if (!n || !low_s || BN_sub(low_s, n, s) != 1 ||
		    BN_bn2binpad(low_s, raw + JWT_SCALAR_BYTES, JWT_SCALAR_BYTES) != JWT_SCALAR_BYTES)
			goto out;
	}
	ret = 0;
out:
	BN_free(low_s);
	BN_free(n);
	ECDSA_SIG_free(sig);
	return ret;
}

/* 0 < v < n, for a big-endian 32-byte scalar. */
static int scalar_in_range(const unsigned char v[JWT_SCALAR_BYTES])
{
	unsigned char any = 0;

	for (size_t i = 0; i < JWT_SCALAR_BYTES; i++)
		any |= v[i];
	return any != 0 && memcmp(v, p256_order, JWT_SCALAR_BYTES) < 0;
}

/* Checks raw (R || S) over data[0..len) with the key. R and S must be in
 * [1, n-1] and S in the lower half (see es256_sign). Returns 1 if valid. */
static int es256_verify(EVP_PKEY *pkey, const char *data, size_t len,
                        const unsigned char raw[JWT_SIG_BYTES])
{
	const unsigned char *r_raw = raw, *s_raw = raw + JWT_SCALAR_BYTES;
	unsigned char der[JWT_DER_SIG_MAX], *p = der;
	EVP_MD_CTX *md = NULL;
	ECDSA_SIG *sig = NULL;
	BIGNUM *r = NULL, *s = NULL;
	int der_len, ok = 0;

	if (!scalar_in_range(r_raw) || !scalar_in_range(s_raw) ||
	    memcmp(s_raw, p256_half_order, JWT_SCALAR_BYTES) > 0)
		return 0;

	r = BN_bin2bn(r_raw, JWT_SCALAR_BYTES, NULL);
	s = BN_bin2bn(s_raw, JWT_SCALAR_BYTES, NULL);
	sig = ECDSA_SIG_new();
	if (!r || !s || !sig || ECDSA_SIG_set0(sig, r, s) != 1)
		goto out;
	r = s = NULL;   /* owned by sig now */
	der_len = i2d_ECDSA_SIG(sig, NULL);
	if (der_len <= 0 || der_len > (int)sizeof der || i2d_ECDSA_SIG(sig, &p) != der_len)
		goto out;

	md = EVP_MD_CTX_new();
	if (!md || EVP_DigestVerifyInit_ex(md, NULL, "SHA256", NULL, NULL, pkey, NULL) != 1)
		goto out;
	ok = EVP_DigestVerify(md, der, (size_t)der_len, (const unsigned char *)data, len) == 1;
out:
	EVP_MD_CTX_free(md);
	ECDSA_SIG_free(sig);
	BN_free(r);
	BN_free(s);
	return ok;
}

/* RS256 over data[0..len) into sig (the modulus' size). Returns 0 or -1. */
static int rs256_sign(EVP_PKEY_CTX *sign_ctx, const char *data, size_t len,
                      unsigned char *sig, size_t sig_len)
{
	unsigned char digest[32];
	size_t n = sig_len;

	crypto_sha256(data, len, digest);
	if (EVP_PKEY_sign(sign_ctx, sig, &n, digest, sizeof digest) != 1 || n != sig_len)
		return -1;
	return 0;
}

/* header.payload.signature, written into one buffer: the signing input is
 * its first part. */
char *jwt_sign_payload(const struct jwt_key *key, enum jwt_typ typ, const char *payload,
                       size_t len)
{
	unsigned char sig[JWT_RSA_MAX_BITS / 8];
	const char *header = key->header_b64[typ];
	size_t hlen = strlen(header), n;
	char *token;
	int rc;

	assert(key->sig_len <= sizeof sig);   /* jwt_key_from_der's bound on the modulus */
	token = xmalloc(hlen + 1 + B64URL_ENCODED_MAX(len) + 1 + B64URL_ENCODED_MAX(key->sig_len));
	memcpy(token, header, hlen);
	token[hlen] = '.';
	n = hlen + 1 + b64url_encode_into(token + hlen + 1, (const unsigned char *)payload, len);
	if (key->alg == JWT_ES256)
		rc = es256_sign(key->sign_ctx, token, n, sig);
	else
		rc = rs256_sign(key->sign_ctx, token, n, sig, key->sig_len);
	if (rc != 0) {
		ERR_clear_error();
		free(token);
		return NULL;
	}
	token[n] = '.';
	b64url_encode_into(token + n + 1, sig, key->sig_len);
	return token;
}

char *jwt_sign(const struct jwt_key *key, const json_t *claims)
{
	char *payload = json_dumps(claims, JSON_COMPACT), *token;

	if (!payload)
		abort();   /* out of memory: jansson allocates through xmalloc */
	token = jwt_sign_payload(key, JWT_TYP_ACCESS, payload, strlen(payload));
	free(payload);
	return token;
}

/* RFC 7515 §2: base64url without padding, and nothing else. */
static int part_is_b64url(const char *p, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

/* Decodes a part that is a JSON object: duplicate keys, invalid UTF-8 and
 * U+0000 fail (jansson's defaults plus JSON_REJECT_DUPLICATES). */
static json_t *part_json_object(const char *p, size_t len)
{
	unsigned char *raw;
	size_t raw_len;
	json_t *obj;

	raw = b64url_decode_any(p, len, &raw_len);
	if (!raw)
		return NULL;
	obj = json_loadb((const char *)raw, raw_len, JSON_REJECT_DUPLICATES, NULL);
	free(raw);
	if (obj && !json_is_object(obj)) {
		json_decref(obj);
		obj = NULL;
	}
	return obj;
}

/* The header must name a key find knows, that key's algorithm, and typ;
 * the token never chooses. Returns the key, or NULL. */
static const struct jwt_key *header_key(const json_t *header, jwt_key_lookup *find, void *arg,
                                        enum jwt_typ typ)
{
	const char *alg = json_string_value(json_object_get(header, "alg"));
	const char *typ_name = json_string_value(json_object_get(header, "typ"));
	const char *kid = json_string_value(json_object_get(header, "kid"));
	const struct jwt_key *key;

	/* RFC 7515 §4.1.11: we understand no extension, so any "crit" fails. */
	if (json_object_get(header, "crit") || !alg || !typ_name || !kid ||
	    strcmp(typ_name, jwt_typ_name(typ)) != 0)
		return NULL;
	key = find(arg, kid);
	if (!key || strcmp(kid, key->kid) != 0 || strcmp(alg, jwt_alg_name(key->alg)) != 0)
		return NULL;
	return key;
}

/* RSASSA-PKCS1-v1_5 SHA-256: sig must be exactly the modulus' size. */
static int rs256_verify(const struct jwt_key *key, const char *data, size_t len,
                        const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *md;
	int ok;

	if (sig_len != key->sig_len)
		return 0;
	md = EVP_MD_CTX_new();
	ok = md && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", NULL, NULL, key->pkey, NULL) == 1 &&
	     EVP_DigestVerify(md, sig, sig_len, (const unsigned char *)data, len) == 1;
	EVP_MD_CTX_free(md);
	return ok;
}

static int signature_ok(const struct jwt_key *key, const char *data, size_t len,
                        const unsigned char *sig, size_t sig_len)
{
	if (key->alg == JWT_RS256)
		return rs256_verify(key, data, len, sig, sig_len);
	return sig_len == JWT_SIG_BYTES && es256_verify(key->pkey, data, len, sig);
}

json_t *jwt_verify_with(jwt_key_lookup *find, void *arg, enum jwt_typ typ, const char *token,
                        size_t len)
{
	const char *dot1, *dot2, *sig_part, *end;
	const struct jwt_key *key;
	unsigned char *sig = NULL;
	size_t sig_len = 0;
	json_t *header = NULL, *claims = NULL;

	if (!token || len == 0 || len > JWT_MAX_LEN)
		return NULL;
	end = token + len;
	dot1 = memchr(token, '.', len);
	if (!dot1)
		return NULL;
	dot2 = memchr(dot1 + 1, '.', (size_t)(end - (dot1 + 1)));
	if (!dot2)
		return NULL;
	sig_part = dot2 + 1;
	if (!part_is_b64url(token, (size_t)(dot1 - token)) ||
	    !part_is_b64url(dot1 + 1, (size_t)(dot2 - (dot1 + 1))) ||
	    !part_is_b64url(sig_part, (size_t)(end - sig_part)))
		return NULL;    /* also a third '.', an empty part or a NUL */

	header = part_json_object(token, (size_t)(dot1 - token));
	key = header ? header_key(header, find, arg, typ) : NULL;
	if (!key)
		goto fail;

	sig = b64url_decode_any(sig_part, (size_t)(end - sig_part), &sig_len);
	if (!sig || !signature_ok(key, token, (size_t)(dot2 - token), sig, sig_len))
		goto fail;

	claims = part_json_object(dot1 + 1, (size_t)(dot2 - (dot1 + 1)));
	if (!claims)
		goto fail;
	free(sig);
	json_decref(header);
	return claims;
fail:
	ERR_clear_error();
	free(sig);
	json_decref(header);
	return NULL;
}

/* jwt_verify's lookup: the one key, whatever kid is asked (header_key
 * compares it). */
static const struct jwt_key *the_key(void *arg, const char *kid)
{
	(void)kid;
	return arg;
}

json_t *jwt_verify(const struct jwt_key *key, const char *token, size_t len)
{
	if (!key)
		return NULL;
	return jwt_verify_with(the_key, (void *)key, JWT_TYP_ACCESS, token, len);
}

