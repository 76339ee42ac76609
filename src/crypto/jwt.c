/*
 * JWTs (RFC 7515 compact JWS) signed ES256 (RFC 7518 §3.4) or RS256 (§3.3),
 * and their keys: the P-256 key file, keys generated for the store and read
 * back from it as PKCS#8 DER. jwt_verify_with reads hostile input: it checks
 * every length before use and never lets the token choose the algorithm or
 * the key.
 */
#include <assert.h>
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
#include <openssl/rsa.h>
#include <openssl/x509.h>

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
#define JWT_RSA_MAX_BITS 4096  /* the signature and number buffers are sized for it */

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

static const char *const alg_names[JWT_ALG_COUNT] = { "ES256", "RS256" };
static const char *const typ_names[JWT_TYP_COUNT] = {
	[JWT_TYP_ACCESS] = "at+jwt", [JWT_TYP_ID] = "JWT", [JWT_TYP_LOGOUT] = "logout+jwt",
};

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

#define KEY_FILE "key file"

const char *jwt_alg_name(enum jwt_alg alg)
{
	return alg_names[alg];
}

int jwt_alg_parse(const char *name, enum jwt_alg *out)
{
	for (int a = 0; a < JWT_ALG_COUNT; a++)
		if (name && !strcmp(name, alg_names[a])) {
			*out = (enum jwt_alg)a;
			return 0;
		}
	return -1;
}

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

/* A new key of alg, or NULL (OpenSSL's error queue says why). */
static EVP_PKEY *key_generate(enum jwt_alg alg)
{
	if (alg == JWT_ES256)
		return EVP_EC_gen("P-256");
	return EVP_RSA_gen(JWT_RSA_BITS);
}

/*
 * Generates a P-256 key and writes it to path as PEM PKCS#8, mode 0600. The
 * file is created with O_EXCL, so an existing key is never overwritten.
 * Returns 0 with *out set, 1 if the file appeared meanwhile (another process
 * made it), -1 with errbuf set.
 */
static int key_create(const char *path, EVP_PKEY **out, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	char *pem = NULL;
	long pem_len;
	char reason[256];
	int ret = -1;

	pkey = key_generate(JWT_ES256);
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

/* A big number of the key as base64url: fixed width when width > 0 (EC
 * coordinates, RFC 7518 §6.2.1.2), else its minimal bytes (RSA, §6.3.1). */
static char *key_number(EVP_PKEY *pkey, const char *param, int width)
{
	unsigned char raw[JWT_RSA_MAX_BITS / 8];
	BIGNUM *bn = NULL;
	char *enc = NULL;
	int n = -1;

	if (EVP_PKEY_get_bn_param(pkey, param, &bn) == 1) {
		if (width > 0)
			n = BN_bn2binpad(bn, raw, width);
		else if (BN_num_bytes(bn) <= (int)sizeof raw)
			n = BN_bn2bin(bn, raw);
	}
	if (n > 0)
		enc = b64url_encode(raw, (size_t)n);
	BN_free(bn);
	return enc;
}

/* The public JWK's required members (RFC 7638 §3.2: in lexicographic order,
 * no whitespace), as text for the thumbprint, and as an object. */
static char *key_public_members(EVP_PKEY *pkey, enum jwt_alg alg, json_t **jwk)
{
	char *a, *b, *text = NULL;

	if (alg == JWT_ES256) {
		a = key_number(pkey, OSSL_PKEY_PARAM_EC_PUB_X, JWT_SCALAR_BYTES);
		b = key_number(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, JWT_SCALAR_BYTES);
		if (a && b) {
			text = xasprintf("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\",\"y\":\"%s\"}",
			                 a, b);
			*jwk = json_pack("{s:s, s:s, s:s, s:s}", "kty", "EC", "crv", "P-256",
			                 "x", a, "y", b);
		}
	} else {
		a = key_number(pkey, OSSL_PKEY_PARAM_RSA_N, 0);
		b = key_number(pkey, OSSL_PKEY_PARAM_RSA_E, 0);
		if (a && b) {
			text = xasprintf("{\"e\":\"%s\",\"kty\":\"RSA\",\"n\":\"%s\"}", b, a);
			*jwk = json_pack("{s:s, s:s, s:s}", "kty", "RSA", "n", a, "e", b);
		}
	}
	free(a);
	free(b);
	return text;
}

/* Fills the public half: the JWK, kid, signature size and encoded headers. */
static int key_init_public(struct jwt_key *key)
{
	char *thumb_input = key_public_members(key->pkey, key->alg, &key->jwk);

	if (!thumb_input || !key->jwk)
		return -1;
	/* the thumbprint is their SHA-256, base64url: crypto_hash_secret's computation */
	crypto_hash_secret(thumb_input, strlen(thumb_input), key->kid);
	free(thumb_input);
	json_object_set_new(key->jwk, "kid", json_string(key->kid));
	json_object_set_new(key->jwk, "use", json_string("sig"));
	json_object_set_new(key->jwk, "alg", json_string(alg_names[key->alg]));

	key->sig_len = key->alg == JWT_ES256 ? JWT_SIG_BYTES : (size_t)EVP_PKEY_get_size(key->pkey);
	for (int t = 0; t < JWT_TYP_COUNT; t++) {
		char *header = xasprintf("{\"alg\":\"%s\",\"typ\":\"%s\",\"kid\":\"%s\"}",
		                         alg_names[key->alg], typ_names[t], key->kid);

		key->header_b64[t] = b64url_encode((const unsigned char *)header, strlen(header));
		free(header);
	}
	return 0;
}

/* The signing context: RS256 is PKCS#1 v1.5 over a SHA-256 DigestInfo. */
static int key_init_sign(struct jwt_key *key)
{
	key->sign_ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key->pkey, NULL);
	if (!key->sign_ctx || EVP_PKEY_sign_init(key->sign_ctx) != 1)
		return -1;
	if (key->alg == JWT_RS256 &&
	    (EVP_PKEY_CTX_set_rsa_padding(key->sign_ctx, RSA_PKCS1_PADDING) != 1 ||
	     EVP_PKEY_CTX_set_signature_md(key->sign_ctx, EVP_sha256()) != 1))
		return -1;
	return 0;
}

/* Takes pkey (freed on failure too) into a new key of alg. */
static struct jwt_key *key_wrap(EVP_PKEY *pkey, enum jwt_alg alg, const char *what,
                                char *errbuf, size_t errlen)
{
	struct jwt_key *key = xcalloc(1, sizeof *key);
	char reason[256];

	key->pkey = pkey;
	key->alg = alg;
	if (key_init_sign(key) != 0 || key_init_public(key) != 0) {
		set_error(errbuf, errlen, "%s: cannot read the public key: %s", what,
		          ossl_reason(reason, sizeof reason));
		jwt_key_free(key);
		return NULL;
	}
	return key;
}

int jwt_key_load(const char *path, struct jwt_key **out, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	int r;

	if (!path || !*path) {
		set_error(errbuf, errlen, "no key file path");
		return -1;
	}
	r = key_read(path, &pkey, errbuf, errlen);
	if (r != 0)
		return r;
	*out = key_wrap(pkey, JWT_ES256, path, errbuf, errlen);
	return *out ? 0 : -1;
}

struct jwt_key *jwt_key_load_or_create(const char *path, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	struct jwt_key *key = NULL;
	int r = jwt_key_load(path, &key, errbuf, errlen);

	if (r != 1)
		return key;
	r = key_create(path, &pkey, errbuf, errlen);
	if (r == 0)
		return key_wrap(pkey, JWT_ES256, path, errbuf, errlen);
	if (r == 1)     /* lost a race with another process creating it */
		r = jwt_key_load(path, &key, errbuf, errlen);
	if (r == 1)
		set_error(errbuf, errlen, "key file %s exists but cannot be opened", path);
	return key;
}

struct jwt_key *jwt_key_generate(enum jwt_alg alg, char *errbuf, size_t errlen)
{
	EVP_PKEY *pkey = key_generate(alg);
	char reason[256];

	if (!pkey) {
		set_error(errbuf, errlen, "cannot generate an %s key: %s", alg_names[alg],
		          ossl_reason(reason, sizeof reason));
		return NULL;
	}
	return key_wrap(pkey, alg, alg_names[alg], errbuf, errlen);
}

struct jwt_key *jwt_key_from_der(const unsigned char *der, size_t len, char *errbuf,
                                 size_t errlen)
{
	const unsigned char *p = der;
	EVP_PKEY *pkey = d2i_AutoPrivateKey(NULL, &p, (long)len);
	char reason[256];

	if (!pkey || p != der + len) {
		set_error(errbuf, errlen, "not a DER private key: %s",
		          ossl_reason(reason, sizeof reason));
		EVP_PKEY_free(pkey);
		return NULL;
	}
	if (key_is_p256(pkey))
		return key_wrap(pkey, JWT_ES256, "key", errbuf, errlen);
	if (EVP_PKEY_is_a(pkey, "RSA") && EVP_PKEY_get_bits(pkey) >= JWT_RSA_BITS &&
	    EVP_PKEY_get_bits(pkey) <= JWT_RSA_MAX_BITS)
		return key_wrap(pkey, JWT_RS256, "key", errbuf, errlen);
	set_error(errbuf, errlen, "neither a P-256 key nor an RSA key of %d to %d bits",
	          JWT_RSA_BITS, JWT_RSA_MAX_BITS);
	EVP_PKEY_free(pkey);
	return NULL;
}

int jwt_key_to_der(const struct jwt_key *key, unsigned char **der, size_t *len)
{
	PKCS8_PRIV_KEY_INFO *p8 = EVP_PKEY2PKCS8(key->pkey);
	int n = p8 ? i2d_PKCS8_PRIV_KEY_INFO(p8, NULL) : -1;
	unsigned char *buf = n > 0 ? xmalloc((size_t)n) : NULL, *p = buf;

	if (buf && i2d_PKCS8_PRIV_KEY_INFO(p8, &p) != n) {
		OPENSSL_cleanse(buf, (size_t)n);
		free(buf);
		buf = NULL;
	}
	PKCS8_PRIV_KEY_INFO_free(p8);
	if (!buf) {
		ERR_clear_error();
		return -1;
	}
	*der = buf;
	*len = (size_t)n;
	return 0;
}

void jwt_key_free(struct jwt_key *key)
{
	if (!key)
		return;
	EVP_PKEY_CTX_free(key->sign_ctx);
	EVP_PKEY_free(key->pkey);
	json_decref(key->jwk);
	for (int t = 0; t < JWT_TYP_COUNT; t++)
		free(key->header_b64[t]);
	free(key);
}

enum jwt_alg jwt_key_alg(const struct jwt_key *key)
{
	return key->alg;
}

const char *jwt_key_kid(const struct jwt_key *key)
{
	return key->kid;
}

json_t *jwt_key_jwk(const struct jwt_key *key)
{
	return json_deep_copy(key->jwk);
}

json_t *jwt_key_jwks(const struct jwt_key *key)
{
	return json_pack("{s:[o]}", "keys", jwt_key_jwk(key));
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
	    strcmp(typ_name, typ_names[typ]) != 0)
		return NULL;
	key = find(arg, kid);
	if (!key || strcmp(kid, key->kid) != 0 || strcmp(alg, alg_names[key->alg]) != 0)
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
