/*
 * The keys that sign JWTs (jwt_key.h): the P-256 key file, keys generated
 * for the store and read back from it as PKCS#8 DER, and what each key
 * computes once (its kid, its public JWK, its protected headers).
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
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "b64url.h"
#include "crypto.h"
#include "jwt_key.h"
#include "secret_file.h"
#include "util.h"

#define JWT_KEY_FILE_MAX 16384  /* a PEM P-256 key is about 250 bytes */
#define JWT_CURVE_NAME "prime256v1"

static const char *const alg_names[JWT_ALG_COUNT] = { "ES256", "RS256" };
static const char *const typ_names[JWT_TYP_COUNT] = {
	[JWT_TYP_ACCESS] = "at+jwt", [JWT_TYP_ID] = "JWT", [JWT_TYP_LOGOUT] = "logout+jwt",
};

const char *jwt_typ_name(enum jwt_typ typ)
{
	return typ_names[typ];
}

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
