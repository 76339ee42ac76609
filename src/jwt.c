/*
 * ES256 access tokens (RFC 7515 compact JWS, RFC 7518 §3.4, RFC 9068) and the
 * P-256 key that signs them. jwt_verify reads hostile input: it checks every
 * length before use and never lets the token choose the algorithm or the key.
 */
#include <stdarg.h>
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

#include "b64url.h"
#include "crypto.h"
#include "jwt.h"
#include "secret_file.h"
#include "util.h"

#define JWT_SCALAR_BYTES 32     /* P-256 coordinates and scalars */
#define JWT_SIG_BYTES 64        /* RFC 7518 §3.4: R || S, 32 octets each */
#define JWT_DER_SIG_MAX 128     /* a DER ECDSA-Sig-Value for P-256 is at most 72 */
#define JWT_KEY_FILE_MAX 16384  /* a PEM P-256 key is about 250 bytes */
#define JWT_CURVE_NAME "prime256v1"
#define KEY_FILE "key file"

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

struct jwt_key {
	EVP_PKEY *pkey;                 /* P-256, with its private part */
	/* Initialised for signing once: a fresh EVP_DigestSignInit per token
	 * cost about an eighth of the signature. Loop thread only. */
	EVP_PKEY_CTX *sign_ctx;
	char kid[SECRET_HASH_LEN + 1];  /* RFC 7638 thumbprint */
	char *x, *y;                    /* base64url public coordinates */
	char *header_b64;               /* the protected header, the same for every token */
};

static void set_error(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/* The last OpenSSL error as text, into buf; empties the error queue. */
static const char *ossl_reason(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();

	if (e == 0)
		snprintf(buf, len, "unknown OpenSSL error");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

/* A key file is never encrypted: fail instead of prompting on a terminal. */
static int pem_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static int key_is_p256(EVP_PKEY *pkey)
{
	char name[64];

	if (!EVP_PKEY_is_a(pkey, "EC"))
		return 0;
	if (EVP_PKEY_get_group_name(pkey, name, sizeof name, NULL) != 1)
		return 0;
	return strcmp(name, JWT_CURVE_NAME) == 0;
}

/*
 * Reads the PEM private key at path (PKCS#8 as we write it; any PEM private key
 * form OpenSSL reads is taken, as long as it is P-256). Returns 0 with *out set,
 * 1 when the file does not exist, -1 with errbuf set.
 */
static int key_read(const char *path, EVP_PKEY **out, char *errbuf, size_t errlen)
{
	char reason[256];
	unsigned char *buf = NULL;
	size_t have = 0;
	BIO *bio = NULL;
	EVP_PKEY *pkey = NULL;
	int ret = secret_file_read(path, KEY_FILE, JWT_KEY_FILE_MAX, &buf, &have, reason,
	                           sizeof reason);

	if (ret != 0) {
		set_error(errbuf, errlen, "%s", reason);
		return ret;
	}
	ret = -1;
	bio = BIO_new_mem_buf(buf, (int)have);
	if (!bio) {
		set_error(errbuf, errlen, "key file %s: %s", path, ossl_reason(reason, sizeof reason));
		goto out;
	}
	pkey = PEM_read_bio_PrivateKey(bio, NULL, pem_no_passphrase, NULL);
	if (!pkey) {
		set_error(errbuf, errlen, "key file %s is not an unencrypted PEM private key: %s",
		          path, ossl_reason(reason, sizeof reason));
		goto out;
	}
	if (!key_is_p256(pkey)) {
		set_error(errbuf, errlen, "key file %s does not hold a P-256 (ES256) key", path);
		goto out;
	}
	*out = pkey;
	pkey = NULL;
	ret = 0;
out:
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	secret_file_free(buf, JWT_KEY_FILE_MAX);
	return ret;
}

/*
 * Generates a P-256 key and writes it to path as PEM PKCS#8, mode 0600. The
 * file is created with O_EXCL, so an existing key is never overwritten, and
 * removed again if it cannot be written whole. Returns 0 with *out set, 1 if
 * the file appeared meanwhile (another process made it), -1 with errbuf set.
 */
static int key_create(const char *path, EVP_PKEY **out, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	char *pem = NULL;
	long pem_len;
	char reason[256];
	int ret = -1;

	pkey = EVP_EC_gen("P-256");
	/* secmem: the PEM copy of the private key is wiped when freed */
	bio = pkey ? BIO_new(BIO_s_secmem()) : NULL;
	if (!bio || PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) != 1 ||
	    (pem_len = BIO_get_mem_data(bio, &pem)) <= 0) {
		set_error(errbuf, errlen, "cannot generate a P-256 key: %s",
		          ossl_reason(reason, sizeof reason));
		goto out;
	}
	ret = secret_file_create(path, KEY_FILE, pem, (size_t)pem_len, reason, sizeof reason);
	if (ret < 0)
		set_error(errbuf, errlen, "%s", reason);
	if (ret == 0) {
		*out = pkey;
		pkey = NULL;
	}
out:
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return ret;
}

/* One public coordinate of the key, as 32 bytes base64url (RFC 7518 §6.2.1.2). */
static char *key_coordinate(EVP_PKEY *pkey, const char *param)
{
	unsigned char raw[JWT_SCALAR_BYTES];
	BIGNUM *bn = NULL;
	char *enc = NULL;

	if (EVP_PKEY_get_bn_param(pkey, param, &bn) == 1 &&
	    BN_bn2binpad(bn, raw, sizeof raw) == (int)sizeof raw)
		enc = b64url_encode(raw, sizeof raw);
	BN_free(bn);
	return enc;
}

/* Fills the public half: coordinates, kid and the encoded header. */
static int key_init_public(struct jwt_key *key)
{
	json_t *header;
	char *thumb_input, *header_json;

	key->x = key_coordinate(key->pkey, OSSL_PKEY_PARAM_EC_PUB_X);
	key->y = key_coordinate(key->pkey, OSSL_PKEY_PARAM_EC_PUB_Y);
	if (!key->x || !key->y)
		return -1;

	/* RFC 7638 §3.2: the required members in lexicographic order, no
	 * whitespace; the thumbprint is their SHA-256, base64url, which is the
	 * same computation as crypto_hash_secret. */
	thumb_input = xasprintf("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\",\"y\":\"%s\"}",
	                        key->x, key->y);
	crypto_hash_secret(thumb_input, strlen(thumb_input), key->kid);
	free(thumb_input);

	header = json_pack("{s:s, s:s, s:s}", "alg", "ES256", "typ", "at+jwt", "kid", key->kid);
	header_json = header ? json_dumps(header, JSON_COMPACT) : NULL;
	json_decref(header);
	if (!header_json)
		return -1;
	key->header_b64 = b64url_encode((const unsigned char *)header_json, strlen(header_json));
	free(header_json);
	return 0;
}

struct jwt_key *jwt_key_load_or_create(const char *path, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	struct jwt_key *key;
	int r;

	if (!path || !*path) {
		set_error(errbuf, errlen, "no key file path");
		return NULL;
	}
	r = key_read(path, &pkey, errbuf, errlen);
	if (r == 1)
		r = key_create(path, &pkey, errbuf, errlen);
	if (r == 1)     /* lost a race with another process creating it */
		r = key_read(path, &pkey, errbuf, errlen);
	if (r == 1)
		set_error(errbuf, errlen, "key file %s exists but cannot be opened", path);
	if (r != 0)
		return NULL;

	key = xcalloc(1, sizeof *key);
	key->pkey = pkey;
	key->sign_ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
	if (!key->sign_ctx || EVP_PKEY_sign_init(key->sign_ctx) != 1 || key_init_public(key) != 0) {
		char reason[256];

		set_error(errbuf, errlen, "key file %s: cannot read the public key: %s", path,
		          ossl_reason(reason, sizeof reason));
		jwt_key_free(key);
		return NULL;
	}
	return key;
}

void jwt_key_free(struct jwt_key *key)
{
	if (!key)
		return;
	EVP_PKEY_CTX_free(key->sign_ctx);
	EVP_PKEY_free(key->pkey);
	free(key->x);
	free(key->y);
	free(key->header_b64);
	free(key);
}

const char *jwt_key_kid(const struct jwt_key *key)
{
	return key->kid;
}

json_t *jwt_key_jwks(const struct jwt_key *key)
{
	return json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:s}]}", "keys",
	                 "kty", "EC", "crv", "P-256", "x", key->x, "y", key->y,
	                 "kid", key->kid, "use", "sig", "alg", "ES256");
}

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

/* header.payload.signature, written into one buffer: the signing input is
 * its first part. */
char *jwt_sign_payload(const struct jwt_key *key, const char *payload, size_t len)
{
	unsigned char sig[JWT_SIG_BYTES];
	size_t hlen = strlen(key->header_b64), n;
	char *token = xmalloc(hlen + 1 + B64URL_ENCODED_MAX(len) + 1 +
	                      B64URL_ENCODED_MAX(sizeof sig));

	memcpy(token, key->header_b64, hlen);
	token[hlen] = '.';
	n = hlen + 1 + b64url_encode_into(token + hlen + 1, (const unsigned char *)payload, len);
	if (es256_sign(key->sign_ctx, token, n, sig) != 0) {
		ERR_clear_error();
		free(token);
		return NULL;
	}
	token[n] = '.';
	b64url_encode_into(token + n + 1, sig, sizeof sig);
	return token;
}

char *jwt_sign(const struct jwt_key *key, const json_t *claims)
{
	char *payload = json_dumps(claims, JSON_COMPACT), *token;

	if (!payload)
		abort();   /* out of memory: jansson allocates through xmalloc */
	token = jwt_sign_payload(key, payload, strlen(payload));
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

/* The header must name our algorithm, type and key; the token never chooses. */
static int header_ok(const json_t *header, const struct jwt_key *key)
{
	const char *alg = json_string_value(json_object_get(header, "alg"));
	const char *typ = json_string_value(json_object_get(header, "typ"));
	const char *kid = json_string_value(json_object_get(header, "kid"));

	/* RFC 7515 §4.1.11: we understand no extension, so any "crit" fails. */
	if (json_object_get(header, "crit"))
		return 0;
	return alg && strcmp(alg, "ES256") == 0 &&
	       typ && strcmp(typ, "at+jwt") == 0 &&
	       kid && strcmp(kid, key->kid) == 0;
}

json_t *jwt_verify(const struct jwt_key *key, const char *token, size_t len)
{
	const char *dot1, *dot2, *sig_part, *end;
	unsigned char *sig = NULL;
	size_t sig_len = 0;
	json_t *header = NULL, *claims = NULL;

	if (!key || !token || len == 0 || len > JWT_MAX_LEN)
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
	if (!header || !header_ok(header, key))
		goto fail;

	sig = b64url_decode_any(sig_part, (size_t)(end - sig_part), &sig_len);
	if (!sig || sig_len != JWT_SIG_BYTES)
		goto fail;
	if (!es256_verify(key->pkey, token, (size_t)(dot2 - token), sig))
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
