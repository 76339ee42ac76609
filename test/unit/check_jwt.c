/*
 * Unit tests for jwt.c: the key file, the JWKS, signing, and a table of forged
 * and malformed tokens that jwt_verify must refuse. Forged tokens are signed
 * with the real key by OpenSSL directly (sign_json), so that each one is
 * refused for the one thing it gets wrong, not merely for a bad signature;
 * test_jwt_control_helper_token shows that the helper's honest tokens verify.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "b64url.h"
#include "check_suite.h"
#include "crypto.h"
#include "jwt.h"
#include "util.h"

/* A fixed P-256 key, and its JWK coordinates and RFC 7638 thumbprint as
 * computed by an independent implementation (Python cryptography + hashlib). */
static const char fixed_pkcs8_pem[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHy49TFtqeYgfLj1M\n"
	"W2p5iB8uPUxbanmIHy49TFtqeYihRANCAAS9fHO4iy6bTO2mICKy2ovhMZOltW7c\n"
	"JuffeELiTNC16wYFrae9qDrGorgNfjFAQPpH/xa4O6yFztsBRFG7fOca\n"
	"-----END PRIVATE KEY-----\n";
/* The same key in SEC1 form ("openssl ecparam -genkey" writes this). */
static const char fixed_sec1_pem[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIB8uPUxbanmIHy49TFtqeYgfLj1MW2p5iB8uPUxbanmIoAoGCCqGSM49\n"
	"AwEHoUQDQgAEvXxzuIsum0ztpiAistqL4TGTpbVu3Cbn33hC4kzQtesGBa2nvag6\n"
	"xqK4DX4xQED6R/8WuDushc7bAURRu3znGg==\n"
	"-----END EC PRIVATE KEY-----\n";
#define FIXED_X "vXxzuIsum0ztpiAistqL4TGTpbVu3Cbn33hC4kzQtes"
#define FIXED_Y "BgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"
#define FIXED_KID "gMqM1mPyH0V6wBKhGdbJXnB9WXgA7pRJHgIeqrT4KJk"

#define P256_ORDER_HEX "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"

#define HEADER_OK_FMT "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}"
#define PAYLOAD_OK "{\"iss\":\"https://auth.example\",\"sub\":\"user-1\",\"exp\":4102444800}"

/* ---- fixture: a temporary directory and a key created in it ----------- */

/*
 * Each test gets its own directory, tmp_root/t.XXXXXX, and a new key in it.
 * tmp_root is made and removed by the parent process around each TCase
 * (unchecked fixture): in fork mode a failed assertion ends the test with
 * _exit(), skipping the checked teardown, and the parent still cleans up.
 */
static char *tmp_root;
static char *tmp_dir;
static char *key_path;          /* tmp_dir/keys/jwt.pem: keys/ made by the code */
static struct jwt_key *key;
static json_t *claims;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void root_setup(void)
{
	char tmpl[] = "/tmp/check_jwt.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	tmp_root = xstrdup(tmpl);
}

static void root_teardown(void)
{
	if (tmp_root)
		rm_tree(tmp_root);
	free(tmp_root);
	tmp_root = NULL;
}

static void setup(void)
{
	char *tmpl = xasprintf("%s/t.XXXXXX", tmp_root);
	char errbuf[256] = "";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	tmp_dir = tmpl;
	key_path = xasprintf("%s/keys/jwt.pem", tmp_dir);
	key = jwt_key_load_or_create(key_path, errbuf, sizeof errbuf);
	ck_assert_msg(key != NULL, "key: %s", errbuf);
	claims = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s}",
	                   "iss", "https://auth.example", "sub", "user-1",
	                   "client_id", "client-1", "aud", "project-1",
	                   "scope", "roles:read users:write", "iat", (json_int_t)1700000000,
	                   "exp", (json_int_t)4102444800, "jti", "jti-1");
	ck_assert_ptr_nonnull(claims);
}

static void teardown(void)
{
	jwt_key_free(key);
	key = NULL;
	json_decref(claims);
	claims = NULL;
	if (tmp_dir)
		rm_tree(tmp_dir);
	free(key_path);
	free(tmp_dir);
	key_path = tmp_dir = NULL;
}

/* ---- helpers -------------------------------------------------------- */

static char *path_in_tmp(const char *name)
{
	return xasprintf("%s/%s", tmp_dir, name);
}

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
}

/* The whole file, NUL-terminated; caller frees. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(65536);
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static char *b64s(const char *s)
{
	return b64url_encode((const unsigned char *)s, strlen(s));
}

/* Splits a compact JWS at its two dots; each part is a new string. */
static void split3(const char *tok, char **h, char **p, char **s)
{
	const char *d1 = strchr(tok, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

	ck_assert_ptr_nonnull(d2);
	*h = xstrndup(tok, (size_t)(d1 - tok));
	*p = xstrndup(d1 + 1, (size_t)(d2 - d1 - 1));
	*s = xstrdup(d2 + 1);
}

static EVP_PKEY *read_pem_key(const char *pem_path)
{
	FILE *f = fopen(pem_path, "r");
	EVP_PKEY *pk;

	ck_assert_ptr_nonnull(f);
	pk = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	ck_assert_ptr_nonnull(pk);
	return pk;
}

enum sig_form {
	SIG_LOW_S,      /* R || S with S <= n/2: what jwt_sign makes */
	SIG_HIGH_S,     /* R || (n - S): valid ECDSA, the malleable twin */
	SIG_DER,        /* the DER ECDSA-Sig-Value instead of R || S */
};

/* ES256 of input by the key in pem_path, made by OpenSSL here, base64url. */
static char *es256_sig_b64(const char *pem_path, const char *input, enum sig_form form)
{
	EVP_PKEY *pk = read_pem_key(pem_path);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char der[128], raw[64];
	const unsigned char *p = der;
	size_t der_len = sizeof der;
	ECDSA_SIG *sig;
	const BIGNUM *r, *s;
	BIGNUM *n = NULL, *half, *low, *high;
	char *out;

	ck_assert_int_eq(EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, pk, NULL), 1);
	ck_assert_int_eq(EVP_DigestSign(md, der, &der_len, (const unsigned char *)input,
	                                strlen(input)), 1);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pk);
	if (form == SIG_DER)
		return b64url_encode(der, der_len);

	sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	ck_assert_ptr_nonnull(sig);
	ECDSA_SIG_get0(sig, &r, &s);
	ck_assert_int_gt(BN_hex2bn(&n, P256_ORDER_HEX), 0);
	half = BN_new();
	low = BN_new();
	high = BN_new();
	ck_assert_int_eq(BN_rshift1(half, n), 1);
	if (BN_cmp(s, half) > 0)
		ck_assert_int_eq(BN_sub(low, n, s), 1);
	else
		ck_assert_ptr_nonnull(BN_copy(low, s));
	ck_assert_int_eq(BN_sub(high, n, low), 1);
	ck_assert_int_eq(BN_bn2binpad(r, raw, 32), 32);
	ck_assert_int_eq(BN_bn2binpad(form == SIG_HIGH_S ? high : low, raw + 32, 32), 32);
	out = b64url_encode(raw, sizeof raw);
	BN_free(high);
	BN_free(low);
	BN_free(half);
	BN_free(n);
	ECDSA_SIG_free(sig);
	return out;
}

/* h_b64.p_b64.signature, signed by the key in pem_path. */
static char *sign_parts(const char *pem_path, const char *h_b64, const char *p_b64,
                        enum sig_form form)
{
	char *input = xasprintf("%s.%s", h_b64, p_b64);
	char *sig = es256_sig_b64(pem_path, input, form);
	char *tok = xasprintf("%s.%s", input, sig);

	free(sig);
	free(input);
	return tok;
}

/* Encodes header and payload JSON text as given and signs them. */
static char *sign_json(const char *pem_path, const char *header, const char *payload,
                       enum sig_form form)
{
	char *h = b64s(header), *p = b64s(payload);
	char *tok = sign_parts(pem_path, h, p, form);

	free(h);
	free(p);
	return tok;
}

static char *header_ok(void)
{
	return xasprintf(HEADER_OK_FMT, jwt_key_kid(key));
}

static char *valid_token(void)
{
	char *tok = jwt_sign(key, claims);

	ck_assert_ptr_nonnull(tok);
	return tok;
}

/* Another key, in tmp_dir/other.pem. Caller frees. */
static struct jwt_key *other_key(char **pem_path)
{
	char errbuf[256] = "";
	char *path = path_in_tmp("other.pem");
	struct jwt_key *k = jwt_key_load_or_create(path, errbuf, sizeof errbuf);

	ck_assert_msg(k != NULL, "%s", errbuf);
	if (pem_path)
		*pem_path = path;
	else
		free(path);
	return k;
}

static int is_b64url_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static int b64_value(char c)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *p = strchr(alphabet, c);

	return p && c ? (int)(p - alphabet) : -1;
}

/* The valid token with its signature's raw bytes changed by edit. */
static char *with_raw_sig(void (*edit)(unsigned char *raw, size_t *len))
{
	char *tok = valid_token(), *h, *p, *s, *s2, *out;
	unsigned char raw[80], *dec;
	size_t n = 0;

	split3(tok, &h, &p, &s);
	dec = b64url_decode_any(s, strlen(s), &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, 64);
	memset(raw, 0, sizeof raw);
	memcpy(raw, dec, n);
	edit(raw, &n);
	s2 = b64url_encode(raw, n);
	out = xasprintf("%s.%s.%s", h, p, s2);
	free(s2);
	free(dec);
	free(h);
	free(p);
	free(s);
	free(tok);
	return out;
}

static void set_order(unsigned char out[32])
{
	BIGNUM *n = NULL;

	ck_assert_int_gt(BN_hex2bn(&n, P256_ORDER_HEX), 0);
	ck_assert_int_eq(BN_bn2binpad(n, out, 32), 32);
	BN_free(n);
}

static void edit_r_zero(unsigned char *raw, size_t *len) { (void)len; memset(raw, 0, 32); }
static void edit_s_zero(unsigned char *raw, size_t *len) { (void)len; memset(raw + 32, 0, 32); }
static void edit_r_order(unsigned char *raw, size_t *len) { (void)len; set_order(raw); }
static void edit_s_order(unsigned char *raw, size_t *len) { (void)len; set_order(raw + 32); }
static void edit_r_ones(unsigned char *raw, size_t *len) { (void)len; memset(raw, 0xff, 32); }
static void edit_shorter(unsigned char *raw, size_t *len) { (void)raw; *len = 63; }
static void edit_longer(unsigned char *raw, size_t *len) { raw[64] = 0; *len = 65; }
static void edit_swap_rs(unsigned char *raw, size_t *len)
{
	unsigned char t[32];

	(void)len;
	memcpy(t, raw, 32);
	memcpy(raw, raw + 32, 32);
	memcpy(raw + 32, t, 32);
}

/* ---- builders for the table of refused tokens ----------------------- */

static char *build_payload_swapped(size_t *len)
{
	char *tok = valid_token(), *h, *p, *s, *p2, *out;

	split3(tok, &h, &p, &s);
	p2 = b64s("{\"iss\":\"https://auth.example\",\"sub\":\"admin\",\"exp\":4102444800}");
	out = xasprintf("%s.%s.%s", h, p2, s);
	*len = strlen(out);
	free(p2);
	free(h);
	free(p);
	free(s);
	free(tok);
	return out;
}

/* Changes one character in the middle of part k (0 header, 1 payload, 2 signature). */
static char *flip_in_part(int k)
{
	char *tok = valid_token();
	char *start = tok;

	for (int i = 0; i < k; i++)
		start = strchr(start, '.') + 1;
	char *end = strchr(start, '.');
	size_t plen = end ? (size_t)(end - start) : strlen(start);
	char *c = start + plen / 2;

	*c = *c == 'A' ? 'B' : 'A';
	return tok;
}

static char *build_header_flipped(size_t *len) { char *t = flip_in_part(0); *len = strlen(t); return t; }
static char *build_payload_flipped(size_t *len) { char *t = flip_in_part(1); *len = strlen(t); return t; }
static char *build_sig_flipped(size_t *len) { char *t = flip_in_part(2); *len = strlen(t); return t; }

/* The last character of the 86-character signature carries 4 unused bits:
 * setting one gives the same bytes to a lenient decoder. */
static char *build_sig_trailing_bits(size_t *len)
{
	char *tok = valid_token();
	size_t n = strlen(tok);
	int v = b64_value(tok[n - 1]);

	ck_assert_int_eq(v & 0x0f, 0);
	tok[n - 1] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[v | 1];
	*len = n;
	return tok;
}

static char *build_sig_padded(size_t *len)
{
	char *tok = valid_token(), *out = xasprintf("%s==", tok);

	free(tok);
	*len = strlen(out);
	return out;
}

/* The signature in the standard alphabet: same bytes, wrong encoding. */
static char *build_sig_std_alphabet(size_t *len)
{
	for (int tries = 0; tries < 500; tries++) {
		char *tok = valid_token();
		char *sig = strrchr(tok, '.') + 1;

		if (strpbrk(sig, "-_")) {
			for (char *c = sig; *c; c++)
				*c = *c == '-' ? '+' : *c == '_' ? '/' : *c;
			*len = strlen(tok);
			return tok;
		}
		free(tok);
	}
	ck_abort_msg("no signature with '-' or '_' in 500 tries");
	return NULL;
}

static char *build_sig_der(size_t *len)
{
	char *h = header_ok(), *t = sign_json(key_path, h, PAYLOAD_OK, SIG_DER);

	free(h);
	*len = strlen(t);
	return t;
}

static char *build_sig_high_s(size_t *len)
{
	char *h = header_ok(), *t = sign_json(key_path, h, PAYLOAD_OK, SIG_HIGH_S);

	free(h);
	*len = strlen(t);
	return t;
}

#define RAW_SIG_BUILDER(name, edit) \
	static char *name(size_t *len) { char *t = with_raw_sig(edit); *len = strlen(t); return t; }
RAW_SIG_BUILDER(build_sig_r_zero, edit_r_zero)
RAW_SIG_BUILDER(build_sig_s_zero, edit_s_zero)
RAW_SIG_BUILDER(build_sig_r_order, edit_r_order)
RAW_SIG_BUILDER(build_sig_s_order, edit_s_order)
RAW_SIG_BUILDER(build_sig_r_ones, edit_r_ones)
RAW_SIG_BUILDER(build_sig_63_bytes, edit_shorter)
RAW_SIG_BUILDER(build_sig_65_bytes, edit_longer)
RAW_SIG_BUILDER(build_sig_swapped, edit_swap_rs)

/* Header and payload of the valid token, then text. */
static char *valid_with_sig(const char *sig, size_t *len)
{
	char *tok = valid_token(), *h, *p, *s, *out;

	split3(tok, &h, &p, &s);
	out = xasprintf("%s.%s.%s", h, p, sig);
	*len = strlen(out);
	free(h);
	free(p);
	free(s);
	free(tok);
	return out;
}

static char *build_sig_empty(size_t *len) { return valid_with_sig("", len); }

static char *build_alg_none_unsigned(size_t *len)
{
	char *h = xasprintf("{\"alg\":\"none\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}", jwt_key_kid(key));
	char *hb = b64s(h), *pb = b64s(PAYLOAD_OK);
	char *out = xasprintf("%s.%s.", hb, pb);

	*len = strlen(out);
	free(h);
	free(hb);
	free(pb);
	return out;
}

/* The classic confusion attack: HS256 keyed with the public key. */
static char *build_alg_hs256_pubkey_hmac(size_t *len)
{
	EVP_PKEY *pk = read_pem_key(key_path);
	BIO *bio = BIO_new(BIO_s_mem());
	char *pub, *h, *hb, *pb, *input, *sb, *out;
	long pub_len;
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	ck_assert_int_eq(PEM_write_bio_PUBKEY(bio, pk), 1);
	pub_len = BIO_get_mem_data(bio, &pub);
	h = xasprintf("{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}", jwt_key_kid(key));
	hb = b64s(h);
	pb = b64s(PAYLOAD_OK);
	input = xasprintf("%s.%s", hb, pb);
	ck_assert_ptr_nonnull(HMAC(EVP_sha256(), pub, (int)pub_len, (unsigned char *)input,
	                           strlen(input), mac, &mac_len));
	sb = b64url_encode(mac, mac_len);
	out = xasprintf("%s.%s", input, sb);
	*len = strlen(out);
	free(sb);
	free(input);
	free(pb);
	free(hb);
	free(h);
	BIO_free(bio);
	EVP_PKEY_free(pk);
	return out;
}

static char *build_other_key(size_t *len)
{
	struct jwt_key *k = other_key(NULL);
	char *t = jwt_sign(k, claims);

	ck_assert_str_ne(jwt_key_kid(k), jwt_key_kid(key));
	jwt_key_free(k);
	*len = strlen(t);
	return t;
}

/* Signed by another key, but naming ours: only the signature is wrong. */
static char *build_other_key_our_kid(size_t *len)
{
	char *pem;
	struct jwt_key *k = other_key(&pem);
	char *h = header_ok(), *t = sign_json(pem, h, PAYLOAD_OK, SIG_LOW_S);

	jwt_key_free(k);
	free(pem);
	free(h);
	*len = strlen(t);
	return t;
}

static char *build_two_parts(size_t *len)
{
	char *tok = valid_token();

	*strrchr(tok, '.') = '\0';
	*len = strlen(tok);
	return tok;
}

static char *build_four_parts(size_t *len)
{
	char *tok = valid_token(), *out = xasprintf("%s.%s", tok, strrchr(tok, '.') + 1);

	free(tok);
	*len = strlen(out);
	return out;
}

static char *build_trailing_dot(size_t *len)
{
	char *tok = valid_token(), *out = xasprintf("%s.", tok);

	free(tok);
	*len = strlen(out);
	return out;
}

static char *build_empty_header(size_t *len)
{
	char *tok = valid_token(), *out = xstrdup(strchr(tok, '.'));

	free(tok);
	*len = strlen(out);
	return out;
}

static char *build_empty_payload(size_t *len)
{
	char *tok = valid_token(), *h, *p, *s, *out;

	split3(tok, &h, &p, &s);
	out = xasprintf("%s..%s", h, s);
	*len = strlen(out);
	free(h);
	free(p);
	free(s);
	free(tok);
	return out;
}

static char *literal(const char *s, size_t *len)
{
	*len = strlen(s);
	return xstrdup(s);
}

static char *build_empty(size_t *len) { return literal("", len); }
static char *build_dots(size_t *len) { return literal("..", len); }
static char *build_three_dots(size_t *len) { return literal("...", len); }
static char *build_garbage(size_t *len) { return literal("this is not a token", len); }
static char *build_garbage_parts(size_t *len) { return literal("a.b.c", len); }
static char *build_empty_objects(size_t *len) { return literal("e30.e30.e30", len); }

static char *build_oversize(size_t *len)
{
	char *pad = xmalloc(JWT_MAX_LEN + 1);
	json_t *c = json_deep_copy(claims);
	char *t;

	memset(pad, 'a', JWT_MAX_LEN);
	pad[JWT_MAX_LEN] = '\0';
	json_object_set_new(c, "pad", json_string(pad));
	t = jwt_sign(key, c);
	ck_assert_ptr_nonnull(t);
	*len = strlen(t);
	ck_assert_uint_gt(*len, JWT_MAX_LEN);
	json_decref(c);
	free(pad);
	return t;
}

static char *build_trailing_newline(size_t *len)
{
	char *tok = valid_token(), *out = xasprintf("%s\n", tok);

	free(tok);
	*len = strlen(out);
	return out;
}

static char *build_leading_space(size_t *len)
{
	char *tok = valid_token(), *out = xasprintf(" %s", tok);

	free(tok);
	*len = strlen(out);
	return out;
}

/* len covers the terminating NUL. */
static char *build_trailing_nul(size_t *len)
{
	char *tok = valid_token();

	*len = strlen(tok) + 1;
	return tok;
}

static char *build_nul_in_payload(size_t *len)
{
	char *tok = valid_token();

	*len = strlen(tok);
	strchr(tok, '.')[3] = '\0';
	return tok;
}

/* Only a prefix of the token: the signature is cut. */
static char *build_short_len(size_t *len)
{
	char *tok = valid_token();

	*len = strlen(tok) - 1;
	return tok;
}

/* Header base64url with '=' padding, signed as it stands. */
static char *build_header_padded(size_t *len)
{
	char *h = header_ok(), *hb = b64s(h), *pb = b64s(PAYLOAD_OK), *hp, *t;
	size_t n = strlen(hb);

	ck_assert_uint_ne(n % 4, 0);
	hp = xasprintf("%s%s", hb, n % 4 == 2 ? "==" : "=");
	t = sign_parts(key_path, hp, pb, SIG_LOW_S);
	*len = strlen(t);
	free(hp);
	free(pb);
	free(hb);
	free(h);
	return t;
}

/* Payload in the standard alphabet ('/' for '_'), signed as it stands. */
static char *build_payload_std_alphabet(size_t *len)
{
	char *h = header_ok(), *hb = b64s(h), *t;
	char *pb = b64s("{\"sub\":\"?????????\",\"exp\":4102444800}");

	ck_assert_ptr_nonnull(strchr(pb, '_'));
	for (char *c = pb; *c; c++)
		*c = *c == '-' ? '+' : *c == '_' ? '/' : *c;
	t = sign_parts(key_path, hb, pb, SIG_LOW_S);
	*len = strlen(t);
	free(pb);
	free(hb);
	free(h);
	return t;
}

/*
 * Every token here must be refused. A row with a header (a printf format
 * taking this key's kid) or a payload is signed properly with the real key,
 * with the part not given taken from an honest token; a row with build makes
 * its token itself.
 */
static const struct bad_token {
	const char *name;
	const char *header;
	const char *payload;
	char *(*build)(size_t *len);
} bad_tokens[] = {
	/* tampering */
	{ .name = "payload swapped", .build = build_payload_swapped },
	{ .name = "header char changed", .build = build_header_flipped },
	{ .name = "payload char changed", .build = build_payload_flipped },
	{ .name = "signature char changed", .build = build_sig_flipped },
	{ .name = "signed by another key", .build = build_other_key },
	{ .name = "another key, our kid", .build = build_other_key_our_kid },
	/* algorithm */
	{ .name = "alg none, unsigned", .build = build_alg_none_unsigned },
	{ .name = "alg none, signed", .header = "{\"alg\":\"none\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg HS256, HMAC with public key", .build = build_alg_hs256_pubkey_hmac },
	{ .name = "alg HS256, ES256 signature", .header = "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg ES384", .header = "{\"alg\":\"ES384\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg lowercase", .header = "{\"alg\":\"es256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg trailing space", .header = "{\"alg\":\"ES256 \",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg missing", .header = "{\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg null", .header = "{\"alg\":null,\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg number", .header = "{\"alg\":256,\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg array", .header = "{\"alg\":[\"ES256\"],\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg duplicated", .header = "{\"alg\":\"none\",\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "alg duplicated, same value", .header = "{\"alg\":\"ES256\",\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}" },
	/* type */
	{ .name = "typ JWT", .header = "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"kid\":\"%s\"}" },
	{ .name = "typ uppercase", .header = "{\"alg\":\"ES256\",\"typ\":\"AT+JWT\",\"kid\":\"%s\"}" },
	{ .name = "typ with application/", .header = "{\"alg\":\"ES256\",\"typ\":\"application/at+jwt\",\"kid\":\"%s\"}" },
	{ .name = "typ missing", .header = "{\"alg\":\"ES256\",\"kid\":\"%s\"}" },
	{ .name = "typ number", .header = "{\"alg\":\"ES256\",\"typ\":1,\"kid\":\"%s\"}" },
	/* key ID */
	{ .name = "kid longer", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%sx\"}" },
	{ .name = "kid prefix", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%.42s\"}" },
	{ .name = "kid empty", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"\"}" },
	{ .name = "kid missing", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\"}" },
	{ .name = "kid null", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":null}" },
	{ .name = "kid with NUL after it", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\\u0000x\"}" },
	/* header shape */
	{ .name = "crit", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\",\"crit\":[\"exp\"],\"exp\":1}" },
	{ .name = "header array", .header = "[\"ES256\",\"at+jwt\",\"%s\"]" },
	{ .name = "header string", .header = "\"%s\"" },
	{ .name = "header truncated JSON", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"" },
	{ .name = "header trailing data", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\"}{}" },
	{ .name = "header invalid UTF-8", .header = "{\"alg\":\"ES256\",\"typ\":\"at+jwt\",\"kid\":\"%s\",\"x\":\"\xff\"}" },
	{ .name = "header padded", .build = build_header_padded },
	/* payload shape */
	{ .name = "payload array", .payload = "[{\"sub\":\"user-1\"}]" },
	{ .name = "payload string", .payload = "\"user-1\"" },
	{ .name = "payload number", .payload = "42" },
	{ .name = "payload null", .payload = "null" },
	{ .name = "payload not JSON", .payload = "sub=user-1" },
	{ .name = "payload trailing data", .payload = "{\"sub\":\"user-1\"} {}" },
	{ .name = "payload duplicate key", .payload = "{\"sub\":\"user-1\",\"sub\":\"admin\"}" },
	{ .name = "payload NUL in string", .payload = "{\"sub\":\"admin\\u0000user-1\"}" },
	{ .name = "payload invalid UTF-8", .payload = "{\"sub\":\"\xc3\"}" },
	{ .name = "payload standard alphabet", .build = build_payload_std_alphabet },
	/* signature encoding and values */
	{ .name = "signature empty", .build = build_sig_empty },
	{ .name = "signature DER", .build = build_sig_der },
	{ .name = "signature high S", .build = build_sig_high_s },
	{ .name = "signature R = 0", .build = build_sig_r_zero },
	{ .name = "signature S = 0", .build = build_sig_s_zero },
	{ .name = "signature R = n", .build = build_sig_r_order },
	{ .name = "signature S = n", .build = build_sig_s_order },
	{ .name = "signature R = 2^256-1", .build = build_sig_r_ones },
	{ .name = "signature R and S swapped", .build = build_sig_swapped },
	{ .name = "signature 63 bytes", .build = build_sig_63_bytes },
	{ .name = "signature 65 bytes", .build = build_sig_65_bytes },
	{ .name = "signature padded", .build = build_sig_padded },
	{ .name = "signature standard alphabet", .build = build_sig_std_alphabet },
	{ .name = "signature non-zero trailing bits", .build = build_sig_trailing_bits },
	/* structure */
	{ .name = "two parts", .build = build_two_parts },
	{ .name = "four parts", .build = build_four_parts },
	{ .name = "trailing dot", .build = build_trailing_dot },
	{ .name = "empty header", .build = build_empty_header },
	{ .name = "empty payload", .build = build_empty_payload },
	{ .name = "empty token", .build = build_empty },
	{ .name = "two dots", .build = build_dots },
	{ .name = "three dots", .build = build_three_dots },
	{ .name = "garbage", .build = build_garbage },
	{ .name = "garbage parts", .build = build_garbage_parts },
	{ .name = "empty objects", .build = build_empty_objects },
	{ .name = "oversize, validly signed", .build = build_oversize },
	{ .name = "trailing newline", .build = build_trailing_newline },
	{ .name = "leading space", .build = build_leading_space },
	{ .name = "trailing NUL within len", .build = build_trailing_nul },
	{ .name = "NUL inside payload", .build = build_nul_in_payload },
	{ .name = "len one short", .build = build_short_len },
};
#define N_BAD_TOKENS (int)(sizeof bad_tokens / sizeof bad_tokens[0])

START_TEST(test_jwt_verify_rejects)
{
	const struct bad_token *bt = &bad_tokens[_i];
	size_t len = 0;
	char *tok;
	json_t *got;

	if (bt->build) {
		tok = bt->build(&len);
	} else {
		char *h = xasprintf(bt->header ? bt->header : HEADER_OK_FMT, jwt_key_kid(key));

		tok = sign_json(key_path, h, bt->payload ? bt->payload : PAYLOAD_OK, SIG_LOW_S);
		len = strlen(tok);
		free(h);
	}
	got = jwt_verify(key, tok, len);
	ck_assert_msg(got == NULL, "accepted \"%s\": %.*s", bt->name, (int)len, tok);
	free(tok);
}
END_TEST

START_TEST(test_jwt_verify_null)
{
	ck_assert_ptr_null(jwt_verify(key, NULL, 0));
	ck_assert_ptr_null(jwt_verify(key, NULL, 10));
	ck_assert_ptr_null(jwt_verify(NULL, "a.b.c", 5));
}
END_TEST

/* ---- sign and verify -------------------------------------------------- */

/* The table's forgeries differ from this only in what each gets wrong. */
START_TEST(test_jwt_control_helper_token)
{
	char *h = header_ok();

	for (int i = 0; i < 20; i++) {
		char *tok = sign_json(key_path, h, PAYLOAD_OK, SIG_LOW_S);
		json_t *got = jwt_verify(key, tok, strlen(tok));

		ck_assert_msg(got != NULL, "helper token refused: %s", tok);
		ck_assert_str_eq(json_string_value(json_object_get(got, "sub")), "user-1");
		json_decref(got);
		free(tok);
	}
	free(h);
}
END_TEST

START_TEST(test_jwt_round_trip)
{
	char *tok = jwt_sign(key, claims), *h, *p, *s, *hjson, *want;
	unsigned char *dec;
	size_t n = 0;
	json_t *got;

	ck_assert_ptr_nonnull(tok);
	for (const char *c = tok; *c; c++)
		ck_assert(is_b64url_char(*c) || *c == '.');
	split3(tok, &h, &p, &s);

	/* RFC 9068 §2.1 header, exactly */
	hjson = (char *)b64url_decode_any(h, strlen(h), &n);
	ck_assert_ptr_nonnull(hjson);
	want = header_ok();
	ck_assert_str_eq(hjson, want);
	dec = b64url_decode_any(s, strlen(s), &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, 64);

	got = jwt_verify(key, tok, strlen(tok));
	ck_assert_ptr_nonnull(got);
	ck_assert(json_equal(got, claims));
	ck_assert_int_eq(got->refcount, 1);
	json_decref(got);

	/* a second signature of the same claims differs (ECDSA is randomised)
	 * and verifies too */
	char *tok2 = jwt_sign(key, claims);
	ck_assert_str_ne(tok, tok2);
	got = jwt_verify(key, tok2, strlen(tok2));
	ck_assert_ptr_nonnull(got);
	json_decref(got);

	free(tok2);
	free(dec);
	free(want);
	free(hjson);
	free(h);
	free(p);
	free(s);
	free(tok);
}
END_TEST

/* jwt_verify reads token[0..len) only. */
START_TEST(test_jwt_verify_reads_only_len)
{
	char *tok = valid_token();
	size_t n = strlen(tok);
	char *buf = xmalloc(n + 8);
	json_t *got;

	memcpy(buf, tok, n);
	memcpy(buf + n, ".xx\n!!!!", 8);
	got = jwt_verify(key, buf, n);
	ck_assert_ptr_nonnull(got);
	json_decref(got);
	free(buf);
	free(tok);
}
END_TEST

/* S is always in the lower half of the order (jwt_verify requires it). */
START_TEST(test_jwt_sign_low_s)
{
	unsigned char half[32];
	BIGNUM *n = NULL, *h = BN_new();

	ck_assert_int_gt(BN_hex2bn(&n, P256_ORDER_HEX), 0);
	ck_assert_int_eq(BN_rshift1(h, n), 1);
	ck_assert_int_eq(BN_bn2binpad(h, half, 32), 32);
	for (int i = 0; i < 64; i++) {
		char *tok = valid_token();
		const char *sig = strrchr(tok, '.') + 1;
		size_t len = 0;
		unsigned char *raw = b64url_decode_any(sig, strlen(sig), &len);

		ck_assert_ptr_nonnull(raw);
		ck_assert_uint_eq(len, 64);
		ck_assert(memcmp(raw + 32, half, 32) <= 0);
		free(raw);
		free(tok);
	}
	BN_free(h);
	BN_free(n);
}
END_TEST

/* Checks a jwt_sign signature with OpenSSL directly, apart from jwt_verify. */
START_TEST(test_jwt_signature_checks_independently)
{
	char *tok = valid_token();
	const char *dot2 = strrchr(tok, '.');
	size_t raw_len = 0;
	unsigned char *raw = b64url_decode_any(dot2 + 1, strlen(dot2 + 1), &raw_len);
	unsigned char *der = NULL;
	ECDSA_SIG *sig = ECDSA_SIG_new();
	EVP_PKEY *pk = read_pem_key(key_path);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int der_len;

	ck_assert_uint_eq(raw_len, 64);
	ck_assert_int_eq(ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, NULL),
	                                BN_bin2bn(raw + 32, 32, NULL)), 1);
	der_len = i2d_ECDSA_SIG(sig, &der);
	ck_assert_int_gt(der_len, 0);
	ck_assert_int_eq(EVP_DigestVerifyInit_ex(md, NULL, "SHA256", NULL, NULL, pk, NULL), 1);
	ck_assert_int_eq(EVP_DigestVerify(md, der, (size_t)der_len, (unsigned char *)tok,
	                                  (size_t)(dot2 - tok)), 1);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pk);
	OPENSSL_free(der);
	ECDSA_SIG_free(sig);
	free(raw);
	free(tok);
}
END_TEST

/* Sets c.pad to k characters of pad (all 'a') and signs c. */
static char *sign_with_pad(json_t *c, const char *pad, size_t k)
{
	char *tok;

	json_object_set_new(c, "pad", json_stringn(pad, k));
	tok = jwt_sign(key, c);
	ck_assert_ptr_nonnull(tok);
	return tok;
}

static size_t signed_len_with_pad(json_t *c, const char *pad, size_t k)
{
	char *tok = sign_with_pad(c, pad, k);
	size_t n = strlen(tok);

	free(tok);
	return n;
}

/* The longest valid token is accepted; the next size up is refused. */
START_TEST(test_jwt_verify_length_limit)
{
	json_t *c = json_deep_copy(claims);
	char *pad = xmalloc(JWT_MAX_LEN + 1);
	char *tok;
	size_t k = 0;
	json_t *got;

	memset(pad, 'a', JWT_MAX_LEN);
	/* the largest pad whose token fits: steps of 64, then of 1 */
	while (signed_len_with_pad(c, pad, k + 64) <= JWT_MAX_LEN)
		k += 64;
	while (signed_len_with_pad(c, pad, k + 1) <= JWT_MAX_LEN)
		k++;

	tok = sign_with_pad(c, pad, k);
	ck_assert_uint_le(strlen(tok), JWT_MAX_LEN);
	ck_assert_uint_ge(strlen(tok), JWT_MAX_LEN - 2);
	got = jwt_verify(key, tok, strlen(tok));
	ck_assert_ptr_nonnull(got);
	ck_assert(json_equal(got, c));
	json_decref(got);
	free(tok);

	tok = sign_with_pad(c, pad, k + 1);
	ck_assert_uint_gt(strlen(tok), JWT_MAX_LEN);
	ck_assert_ptr_null(jwt_verify(key, tok, strlen(tok)));
	free(tok);

	free(pad);
	json_decref(c);
}
END_TEST

/* ---- the key file ---------------------------------------------------- */

START_TEST(test_key_file_created)
{
	struct stat st;
	char *dir = path_in_tmp("keys"), *pem;

	ck_assert_int_eq(stat(key_path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);

	/* PEM PKCS#8, one key */
	pem = read_file(key_path);
	ck_assert_msg(strncmp(pem, "-----BEGIN PRIVATE KEY-----\n", 28) == 0, "%s", pem);
	ck_assert_ptr_nonnull(strstr(pem, "-----END PRIVATE KEY-----\n"));
	ck_assert_ptr_null(strstr(pem + 1, "-----BEGIN"));
	free(pem);
	free(dir);
}
END_TEST

START_TEST(test_key_reload_same_kid)
{
	char errbuf[256] = "";
	char *before = read_file(key_path), *after, *tok;
	struct jwt_key *again = jwt_key_load_or_create(key_path, errbuf, sizeof errbuf);
	json_t *a, *b, *got;
	struct stat st;

	ck_assert_msg(again != NULL, "%s", errbuf);
	ck_assert_str_eq(jwt_key_kid(again), jwt_key_kid(key));
	a = jwt_key_jwks(key);
	b = jwt_key_jwks(again);
	ck_assert(json_equal(a, b));

	/* a token from one verifies with the other */
	tok = jwt_sign(key, claims);
	got = jwt_verify(again, tok, strlen(tok));
	ck_assert_ptr_nonnull(got);

	/* the file was read, not rewritten */
	after = read_file(key_path);
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(stat(key_path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);

	json_decref(got);
	free(tok);
	json_decref(a);
	json_decref(b);
	free(after);
	free(before);
	jwt_key_free(again);
}
END_TEST

/* Two keys created apart differ. */
/* A key file others can read is refused, and left as it is. */
START_TEST(test_key_readable_by_others_refused)
{
	char errbuf[256];
	struct jwt_key *again;

	ck_assert_int_eq(chmod(key_path, 0644), 0);
	again = jwt_key_load_or_create(key_path, errbuf, sizeof errbuf);
	ck_assert_ptr_null(again);
	ck_assert_ptr_nonnull(strstr(errbuf, "accessible to others"));
	ck_assert_int_eq(chmod(key_path, 0640), 0);
	ck_assert_ptr_null(jwt_key_load_or_create(key_path, errbuf, sizeof errbuf));
	ck_assert_int_eq(chmod(key_path, 0600), 0);
	again = jwt_key_load_or_create(key_path, errbuf, sizeof errbuf);
	ck_assert_ptr_nonnull(again);
	jwt_key_free(again);
}
END_TEST

START_TEST(test_key_new_keys_differ)
{
	struct jwt_key *k = other_key(NULL);

	ck_assert_str_ne(jwt_key_kid(k), jwt_key_kid(key));
	jwt_key_free(k);
	jwt_key_free(NULL);
}
END_TEST

/* The fixed key, in both PEM forms, gives the independently computed kid. */
START_TEST(test_key_fixed_vector)
{
	const char *pems[2] = { fixed_pkcs8_pem, fixed_sec1_pem };

	for (int i = 0; i < 2; i++) {
		char errbuf[256] = "";
		char *name = xasprintf("fixed%d.pem", i), *path = path_in_tmp(name), *after;
		struct jwt_key *k;
		json_t *jwks, *jwk, *got;
		char *tok;

		write_file(path, pems[i], strlen(pems[i]));
		k = jwt_key_load_or_create(path, errbuf, sizeof errbuf);
		ck_assert_msg(k != NULL, "%s", errbuf);
		ck_assert_str_eq(jwt_key_kid(k), FIXED_KID);
		jwks = jwt_key_jwks(k);
		jwk = json_array_get(json_object_get(jwks, "keys"), 0);
		ck_assert_str_eq(json_string_value(json_object_get(jwk, "x")), FIXED_X);
		ck_assert_str_eq(json_string_value(json_object_get(jwk, "y")), FIXED_Y);
		ck_assert_str_eq(json_string_value(json_object_get(jwk, "kid")), FIXED_KID);

		tok = jwt_sign(k, claims);
		got = jwt_verify(k, tok, strlen(tok));
		ck_assert_ptr_nonnull(got);

		after = read_file(path);
		ck_assert_str_eq(after, pems[i]);

		free(after);
		json_decref(got);
		free(tok);
		json_decref(jwks);
		jwt_key_free(k);
		free(path);
		free(name);
	}
}
END_TEST

/* A PEM private key of another kind, written to path. */
static void write_other_kind(const char *path, const char *kind)
{
	EVP_PKEY *pk;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	if (strcmp(kind, "P-384") == 0)
		pk = EVP_EC_gen("P-384");
	else
		pk = EVP_PKEY_Q_keygen(NULL, NULL, kind);
	ck_assert_ptr_nonnull(pk);
	ck_assert_int_eq(PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	EVP_PKEY_free(pk);
}

static void write_encrypted_p256(const char *path)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(pk);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(PEM_write_PKCS8PrivateKey(f, pk, EVP_aes_128_cbc(), "secret", 6,
	                                           NULL, NULL), 1);
	fclose(f);
	EVP_PKEY_free(pk);
}

/* Files that are there but unusable: loading fails with a reason, and the
 * file is left as it was (never replaced by a new key). */
enum bad_file_kind { BF_EMPTY, BF_GARBAGE, BF_TRUNCATED, BF_P384, BF_ED25519, BF_ENCRYPTED };
static const char *const bad_file_names[] = {
	[BF_EMPTY] = "empty", [BF_GARBAGE] = "garbage", [BF_TRUNCATED] = "truncated PEM",
	[BF_P384] = "P-384 key", [BF_ED25519] = "Ed25519 key", [BF_ENCRYPTED] = "encrypted key",
};

START_TEST(test_key_bad_file)
{
	char errbuf[256] = "";
	char *path = path_in_tmp("bad.pem"), *before, *after;
	struct jwt_key *k;

	switch ((enum bad_file_kind)_i) {
	case BF_EMPTY:
		write_file(path, "", 0);
		break;
	case BF_GARBAGE:
		write_file(path, "not a key\n", 10);
		break;
	case BF_TRUNCATED:
		write_file(path, fixed_pkcs8_pem, strlen(fixed_pkcs8_pem) / 2);
		break;
	case BF_P384:
		write_other_kind(path, "P-384");
		break;
	case BF_ED25519:
		write_other_kind(path, "ED25519");
		break;
	case BF_ENCRYPTED:
		write_encrypted_p256(path);
		break;
	}
	/* private, so that the refusal is for the content, not the mode */
	ck_assert_int_eq(chmod(path, 0600), 0);
	before = read_file(path);
	k = jwt_key_load_or_create(path, errbuf, sizeof errbuf);
	ck_assert_msg(k == NULL, "accepted %s", bad_file_names[_i]);
	ck_assert_msg(strstr(errbuf, path) != NULL, "%s: errbuf \"%s\"", bad_file_names[_i], errbuf);
	after = read_file(path);
	ck_assert_str_eq(before, after);

	/* no errbuf is fine too */
	ck_assert_ptr_null(jwt_key_load_or_create(path, NULL, 0));

	free(after);
	free(before);
	free(path);
}
END_TEST

START_TEST(test_key_bad_path)
{
	char errbuf[256];
	char *deep = path_in_tmp("a/b/jwt.pem");
	char *dir = path_in_tmp("keys");
	char *file_as_dir = xasprintf("%s/sub.pem", key_path);
	char *fifo = path_in_tmp("fifo.pem");

	errbuf[0] = '\0';
	ck_assert_ptr_null(jwt_key_load_or_create(deep, errbuf, sizeof errbuf));
	ck_assert_msg(errbuf[0] != '\0', "no reason given");

	errbuf[0] = '\0';
	ck_assert_ptr_null(jwt_key_load_or_create(dir, errbuf, sizeof errbuf));
	ck_assert_msg(errbuf[0] != '\0', "no reason given");

	errbuf[0] = '\0';
	ck_assert_ptr_null(jwt_key_load_or_create(file_as_dir, errbuf, sizeof errbuf));
	ck_assert_msg(errbuf[0] != '\0', "no reason given");

	errbuf[0] = '\0';
	ck_assert_ptr_null(jwt_key_load_or_create("", errbuf, sizeof errbuf));
	ck_assert_msg(errbuf[0] != '\0', "no reason given");

	/* refused at once, not waited on for a writer */
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	errbuf[0] = '\0';
	ck_assert_ptr_null(jwt_key_load_or_create(fifo, errbuf, sizeof errbuf));
	ck_assert_msg(strstr(errbuf, "regular file") != NULL, "errbuf \"%s\"", errbuf);

	free(fifo);
	free(file_as_dir);
	free(dir);
	free(deep);
}
END_TEST

/* ---- JWKS -------------------------------------------------------------- */

START_TEST(test_jwks_fields)
{
	json_t *jwks = jwt_key_jwks(key), *keys, *jwk;
	const char *members[] = { "x", "y" };
	unsigned char md[32];
	char *thumb_input, *kid;

	ck_assert_ptr_nonnull(jwks);
	ck_assert_int_eq(json_object_size(jwks), 1);
	keys = json_object_get(jwks, "keys");
	ck_assert(json_is_array(keys));
	ck_assert_int_eq(json_array_size(keys), 1);
	jwk = json_array_get(keys, 0);
	ck_assert(json_is_object(jwk));
	ck_assert_int_eq(json_object_size(jwk), 7);
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "kty")), "EC");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "crv")), "P-256");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "use")), "sig");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "alg")), "ES256");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "kid")), jwt_key_kid(key));
	ck_assert_ptr_null(json_object_get(jwk, "d"));
	for (int i = 0; i < 2; i++) {
		const char *v = json_string_value(json_object_get(jwk, members[i]));
		size_t n = 0;
		unsigned char *raw;

		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(strlen(v), 43);
		raw = b64url_decode_any(v, strlen(v), &n);
		ck_assert_ptr_nonnull(raw);
		ck_assert_uint_eq(n, 32);
		free(raw);
	}

	/* RFC 7638 §3.2, computed here with EVP directly */
	thumb_input = xasprintf("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\",\"y\":\"%s\"}",
	                        json_string_value(json_object_get(jwk, "x")),
	                        json_string_value(json_object_get(jwk, "y")));
	ck_assert_int_eq(EVP_Digest(thumb_input, strlen(thumb_input), md, NULL, EVP_sha256(),
	                            NULL), 1);
	kid = b64url_encode(md, sizeof md);
	ck_assert_str_eq(jwt_key_kid(key), kid);
	ck_assert_uint_eq(strlen(kid), 43);

	free(kid);
	free(thumb_input);
	json_decref(jwks);
}
END_TEST

static Suite *jwt_suite(void)
{
	Suite *s = suite_create("jwt");
	TCase *tc_key = tcase_create("key");
	TCase *tc_sign = tcase_create("sign");
	TCase *tc_reject = tcase_create("reject");

	tcase_add_unchecked_fixture(tc_key, root_setup, root_teardown);
	tcase_add_checked_fixture(tc_key, setup, teardown);
	tcase_add_test(tc_key, test_key_file_created);
	tcase_add_test(tc_key, test_key_reload_same_kid);
	tcase_add_test(tc_key, test_key_readable_by_others_refused);
	tcase_add_test(tc_key, test_key_new_keys_differ);
	tcase_add_test(tc_key, test_key_fixed_vector);
	tcase_add_loop_test(tc_key, test_key_bad_file, 0,
	                    (int)(sizeof bad_file_names / sizeof bad_file_names[0]));
	tcase_add_test(tc_key, test_key_bad_path);
	tcase_add_test(tc_key, test_jwks_fields);
	tcase_set_timeout(tc_key, 30);
	suite_add_tcase(s, tc_key);

	tcase_add_unchecked_fixture(tc_sign, root_setup, root_teardown);
	tcase_add_checked_fixture(tc_sign, setup, teardown);
	tcase_add_test(tc_sign, test_jwt_control_helper_token);
	tcase_add_test(tc_sign, test_jwt_round_trip);
	tcase_add_test(tc_sign, test_jwt_verify_reads_only_len);
	tcase_add_test(tc_sign, test_jwt_sign_low_s);
	tcase_add_test(tc_sign, test_jwt_signature_checks_independently);
	tcase_add_test(tc_sign, test_jwt_verify_length_limit);
	tcase_set_timeout(tc_sign, 120);
	suite_add_tcase(s, tc_sign);

	tcase_add_unchecked_fixture(tc_reject, root_setup, root_teardown);
	tcase_add_checked_fixture(tc_reject, setup, teardown);
	tcase_add_loop_test(tc_reject, test_jwt_verify_rejects, 0, N_BAD_TOKENS);
	tcase_add_test(tc_reject, test_jwt_verify_null);
	suite_add_tcase(s, tc_reject);
	return s;
}

int main(void)
{
	return check_run(srunner_create(jwt_suite()));
}
