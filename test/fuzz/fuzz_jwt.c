/*
 * libFuzzer harness: jwt_verify and b64url_decode_any (jwt.c, b64url.c), with
 * one P-256 key created in a temporary directory at start. Each input is
 * used five ways:
 *   1. as a token: jwt_verify must refuse it (it cannot carry a valid
 *      signature of a key made after it was written);
 *   2. as claims, when it is a JSON object: jwt_sign then jwt_verify gives
 *      the same claims back, and any one-character change is refused;
 *   3. as the payload of a token signed here with the same key: jwt_verify
 *      accepts it exactly when it is a JSON object without duplicate keys,
 *      and never with the high-S twin of the signature;
 *   3b. as the protected header of such a token ("@kid@" in it standing for
 *      the key's kid): accepted exactly when it names ES256, at+jwt and this
 *      key, and has no crit;
 *   4. as base64: b64url_decode_any accepts one encoding per byte string and
 *      agrees with b64url_encode.
 */
#include <stdbool.h>
#include <unistd.h>
#include <jansson.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "b64url.h"
#include "fuzz.h"
#include "jwt.h"

static struct jwt_key *key;
static EVP_PKEY *pkey;         /* the same key, to sign arbitrary payloads */
static char *header_b64;       /* the protected header jwt_sign writes */
static json_t *fixed_claims;   /* for the tokens with a fuzzed header */
static char *fixed_claims_b64;
static BIGNUM *order, *half_order;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/edgeauth-fuzz-jwt.XXXXXX", path[64], errbuf[256];
	char *token, *dot1, *dot2;
	FILE *f;

	(void)argc;
	(void)argv;
	json_object_seed(1);
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof path, "%s/signing-key.pem", dir);
	key = jwt_key_load_or_create(path, errbuf, sizeof errbuf);
	if (!key) {
		fprintf(stderr, "fuzz_jwt: %s\n", errbuf);
		abort();
	}
	f = fopen(path, "r");
	pkey = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
	if (!pkey)
		abort();
	fclose(f);
	/* Both copies live in memory from here on. */
	unlink(path);
	rmdir(dir);

	fixed_claims = json_pack("{s:s, s:s, s:I}", "sub", "us_x", "scope", "orders:read", "exp",
	                         (json_int_t)1700000900);
	token = fixed_claims ? jwt_sign(key, fixed_claims) : NULL;
	dot1 = token ? strchr(token, '.') : NULL;
	dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (!dot2)
		abort();
	header_b64 = strndup(token, (size_t)(dot1 - token));
	fixed_claims_b64 = strndup(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	if (!header_b64 || !fixed_claims_b64)
		abort();
	free(token);

	/* The order n of P-256 (SEC 2 §2.4.2), to keep S in the lower half. */
	if (!BN_hex2bn(&order, "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"))
		abort();
	half_order = BN_dup(order);
	if (!half_order || !BN_rshift1(half_order, half_order))
		abort();
	return 0;
}

/*
 * header_b64 "." payload_b64 "." ES256 signature of the two, as R || S in
 * base64url. With high_s the signature carries n - S instead of the lower
 * S that jwt_sign writes: the same signature to OpenSSL, which jwt_verify
 * must refuse all the same. Caller frees.
 */
static char *sign_token(const char *header, const char *payload, bool high_s)
{
	unsigned char der[128], raw[64];
	const unsigned char *p = der;
	size_t der_len = sizeof der, n = strlen(header) + 1 + strlen(payload);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	ECDSA_SIG *sig;
	const BIGNUM *r, *s;
	BIGNUM *other_s = BN_new();
	char *input = malloc(n + 1), *sig_b64, *token;

	if (!md || !other_s || !input)
		abort();
	snprintf(input, n + 1, "%s.%s", header, payload);
	if (EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, pkey, NULL) != 1 ||
	    EVP_DigestSign(md, der, &der_len, (const unsigned char *)input, n) != 1)
		abort();
	sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (!sig)
		abort();
	ECDSA_SIG_get0(sig, &r, &s);
	if ((BN_cmp(s, half_order) > 0) != high_s) {
		if (!BN_sub(other_s, order, s))
			abort();
		s = other_s;
	}
	if (BN_bn2binpad(r, raw, 32) != 32 || BN_bn2binpad(s, raw + 32, 32) != 32)
		abort();
	sig_b64 = b64url_encode(raw, sizeof raw);
	token = malloc(n + 1 + strlen(sig_b64) + 1);
	if (!token)
		abort();
	sprintf(token, "%s.%s", input, sig_b64);
	free(sig_b64);
	free(input);
	ECDSA_SIG_free(sig);
	BN_free(other_s);
	EVP_MD_CTX_free(md);
	return token;
}

/* 1. Whatever the input, it is not a token of this key. */
static void check_forged(const uint8_t *data, size_t size)
{
	json_t *claims = jwt_verify(key, (const char *)data, size);

	FUZZ_CHECK(claims == NULL);
}

/* 2. jwt_sign / jwt_verify round trip, and one changed character. */
static void check_round_trip(const uint8_t *data, size_t size)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
	json_t *claims = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	json_t *back;
	char *token;
	size_t len, at;
	char was;

	if (!json_is_object(claims)) {
		json_decref(claims);
		return;
	}
	token = jwt_sign(key, claims);
	FUZZ_CHECK(token != NULL);
	len = strlen(token);
	back = jwt_verify(key, token, len);
	if (len > JWT_MAX_LEN) {
		FUZZ_CHECK(back == NULL);
	} else {
		FUZZ_CHECK(back != NULL && json_equal(back, claims));
		json_decref(back);

		at = (size * 31 + (size ? data[0] : 0)) % len;
		was = token[at];
		/* another character of the alphabet: the step is 1..63 of 65 */
		token[at] = alphabet[(strchr(alphabet, was) - alphabet + 1 + size % 63) %
		                     (sizeof alphabet - 1)];
		FUZZ_CHECK(token[at] != was);
		FUZZ_CHECK(jwt_verify(key, token, len) == NULL);
	}
	free(token);
	json_decref(claims);
}

/* 3. The input as the payload of a correctly signed token; the same token
 * with the high-S twin of its signature is refused. */
static void check_payload(const uint8_t *data, size_t size)
{
	char *payload = b64url_encode(data, size), *token, *twin;
	json_t *want = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL), *got;

	token = sign_token(header_b64, payload, false);
	got = jwt_verify(key, token, strlen(token));
	if (size > 0 && strlen(token) <= JWT_MAX_LEN && json_is_object(want))
		FUZZ_CHECK(got != NULL && json_equal(got, want));
	else
		FUZZ_CHECK(got == NULL);
	json_decref(got);

	twin = sign_token(header_b64, payload, true);
	FUZZ_CHECK(jwt_verify(key, twin, strlen(twin)) == NULL);
	free(twin);
	json_decref(want);
	free(token);
	free(payload);
}

/* The header RFC 9068 and jwt.h ask for, read here: a JSON object without
 * duplicate keys, alg ES256, typ at+jwt, this key's kid, and no crit. */
static bool header_acceptable(const uint8_t *data, size_t size)
{
	json_t *h = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	const char *alg = json_string_value(json_object_get(h, "alg"));
	const char *typ = json_string_value(json_object_get(h, "typ"));
	const char *kid = json_string_value(json_object_get(h, "kid"));
	bool ok = json_is_object(h) && alg && !strcmp(alg, "ES256") && typ &&
	          !strcmp(typ, "at+jwt") && kid && !strcmp(kid, jwt_key_kid(key)) &&
	          !json_object_get(h, "crit");

	json_decref(h);
	return ok;
}

/* data with each "@kid@" replaced by this run's kid, so that seeds can name
 * the key made at start. Caller frees; *out_len is the new length. */
static char *with_kid(const uint8_t *data, size_t size, size_t *out_len)
{
	static const char mark[] = "@kid@";
	const char *kid = jwt_key_kid(key);
	size_t m = sizeof mark - 1, k = strlen(kid), n = 0;
	char *out = malloc(size / m * k + size + 1);

	if (!out)
		abort();
	for (size_t i = 0; i < size;) {
		if (size - i >= m && memcmp(data + i, mark, m) == 0) {
			memcpy(out + n, kid, k);
			n += k;
			i += m;
		} else {
			out[n++] = (char)data[i++];
		}
	}
	out[n] = '\0';
	*out_len = n;
	return out;
}

/* 3b. The input as the protected header of a correctly signed token (with
 * "@kid@" standing for the key's kid): the signature is good, so only the
 * header decides. */
static void check_header(const uint8_t *data, size_t size)
{
	size_t len;
	char *json = with_kid(data, size, &len);
	char *header = b64url_encode((const unsigned char *)json, len), *token;
	json_t *got;

	token = sign_token(header, fixed_claims_b64, false);
	got = jwt_verify(key, token, strlen(token));
	if (len > 0 && strlen(token) <= JWT_MAX_LEN &&
	    header_acceptable((const uint8_t *)json, len))
		FUZZ_CHECK(got != NULL && json_equal(got, fixed_claims));
	else
		FUZZ_CHECK(got == NULL);
	json_decref(got);
	free(token);
	free(header);
	free(json);
}

/* 4. b64url_decode_any: what it accepts re-encodes to the same text (in the
 * URL-safe alphabet, without padding); b64url_encode's output decodes back. */
static void check_b64(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t out_len = 0, n = size;
	unsigned char *out = b64url_decode_any(s, size, &out_len);
	char *enc;

	if (out) {
		char *again = b64url_encode(out, out_len);

		while (n > 0 && s[n - 1] == '=')
			n--;
		FUZZ_CHECK(strlen(again) == n);
		for (size_t i = 0; i < n; i++) {
			char c = s[i] == '+' ? '-' : s[i] == '/' ? '_' : s[i];

			FUZZ_CHECK(again[i] == c);
		}
		FUZZ_CHECK(out[out_len] == '\0');
		free(again);
		free(out);
	}

	enc = b64url_encode(data, size);
	out = b64url_decode_any(enc, strlen(enc), &out_len);
	FUZZ_CHECK(out && out_len == size && memcmp(out, data, size) == 0);
	free(out);
	free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_forged(data, size);
	check_b64(data, size);
	check_round_trip(data, size);
	check_payload(data, size);
	check_header(data, size);
	ERR_clear_error();
	return 0;
}
