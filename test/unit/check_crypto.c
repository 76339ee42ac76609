/*
 * Unit tests for b64url.c and crypto.c: RFC 4648 and RFC 7636 vectors, strict
 * decoding of hostile input, and the properties of IDs and secrets.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <openssl/evp.h>

#include "b64url.h"
#include "check_suite.h"
#include "crypto.h"
#include "util.h"

/* ---- b64url ---------------------------------------------------------- */

/* RFC 4648 §10, in base64url without padding and in standard with padding. */
static const struct {
	const char *plain;
	const char *url;
	const char *std;
} rfc4648_vectors[] = {
	{ "", "", "" },
	{ "f", "Zg", "Zg==" },
	{ "fo", "Zm8", "Zm8=" },
	{ "foo", "Zm9v", "Zm9v" },
	{ "foob", "Zm9vYg", "Zm9vYg==" },
	{ "fooba", "Zm9vYmE", "Zm9vYmE=" },
	{ "foobar", "Zm9vYmFy", "Zm9vYmFy" },
};
#define N_RFC4648 (int)(sizeof rfc4648_vectors / sizeof rfc4648_vectors[0])

START_TEST(test_b64url_encode_rfc4648)
{
	const char *plain = rfc4648_vectors[_i].plain;
	char *enc = b64url_encode((const unsigned char *)plain, strlen(plain));

	ck_assert_str_eq(enc, rfc4648_vectors[_i].url);
	free(enc);
}
END_TEST

START_TEST(test_b64url_decode_rfc4648)
{
	const char *inputs[2] = { rfc4648_vectors[_i].url, rfc4648_vectors[_i].std };

	for (int k = 0; k < 2; k++) {
		size_t n = 99;
		unsigned char *dec = b64url_decode_any(inputs[k], strlen(inputs[k]), &n);

		ck_assert_msg(dec != NULL, "decoding \"%s\" failed", inputs[k]);
		ck_assert_uint_eq(n, strlen(rfc4648_vectors[_i].plain));
		ck_assert_mem_eq(dec, rfc4648_vectors[_i].plain, n);
		ck_assert_int_eq(dec[n], '\0');
		free(dec);
	}
}
END_TEST

/* 0xfb 0xff uses both alphabet-specific characters: "+/8=" or "-_8". */
START_TEST(test_b64url_decode_both_alphabets)
{
	static const unsigned char want[] = { 0xfb, 0xff };
	static const char *inputs[] = { "+/8=", "+/8", "-_8=", "-_8", "-/8", "+_8=" };

	for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
		size_t n = 0;
		unsigned char *dec = b64url_decode_any(inputs[k], strlen(inputs[k]), &n);

		ck_assert_msg(dec != NULL, "decoding \"%s\" failed", inputs[k]);
		ck_assert_uint_eq(n, sizeof want);
		ck_assert_mem_eq(dec, want, n);
		free(dec);
	}

	char *enc = b64url_encode(want, sizeof want);
	ck_assert_str_eq(enc, "-_8");
	free(enc);
}
END_TEST

/* Inputs that must fail; len is given so that a NUL can be inside. */
static const struct {
	const char *s;
	size_t len;
	const char *why;
} b64_bad[] = {
	{ "Zm9v!", 5, "character outside both alphabets" },
	{ "Zm 9v", 5, "space" },
	{ "Zm9v\n", 5, "trailing newline" },
	{ " Zm9v", 5, "leading space" },
	{ "Zm9\tv", 5, "tab" },
	{ "Zm\0v", 4, "NUL inside" },
	{ "Zm9v.", 5, "dot" },
	{ "Zm9v\xc3\xa9", 6, "non-ASCII" },
	{ "Z", 1, "one character" },
	{ "Zm9vY", 5, "4k+1 characters" },
	{ "Zg=", 3, "partial padding" },
	{ "Zm9vYg=", 7, "partial padding" },
	{ "Zg===", 5, "extra padding" },
	{ "Zm9v=", 5, "padding after a full group" },
	{ "Zm9v====", 8, "a group of padding" },
	{ "=", 1, "padding only" },
	{ "==", 2, "padding only" },
	{ "====", 4, "padding only" },
	{ "=Zg=", 4, "padding first" },
	{ "Zm=v", 4, "padding inside" },
	{ "Zg==Zg==", 8, "padding between groups" },
	{ "Zh", 2, "non-zero trailing bits (RFC 4648 §3.5)" },
	{ "Zh==", 4, "non-zero trailing bits, padded" },
	{ "Zm9", 3, "non-zero trailing bits in a 3-char tail" },
	{ "Zm_", 3, "non-zero trailing bits, URL alphabet" },
};
#define N_B64_BAD (int)(sizeof b64_bad / sizeof b64_bad[0])

START_TEST(test_b64url_decode_rejects)
{
	size_t n = 12345;
	unsigned char *dec = b64url_decode_any(b64_bad[_i].s, b64_bad[_i].len, &n);

	ck_assert_msg(dec == NULL, "accepted: %s", b64_bad[_i].why);
	ck_assert_uint_eq(n, 12345);
}
END_TEST

START_TEST(test_b64url_decode_null)
{
	size_t n;

	ck_assert_ptr_null(b64url_decode_any(NULL, 0, &n));
}
END_TEST

/* Only s[0..len) is read: what follows does not matter. */
START_TEST(test_b64url_decode_reads_only_len)
{
	static const char buf[] = "Zm9vYmFy!!junk";
	size_t n = 0;
	unsigned char *dec = b64url_decode_any(buf, 8, &n);

	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, 6);
	ck_assert_str_eq((char *)dec, "foobar");
	free(dec);
}
END_TEST

static int is_b64url_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

START_TEST(test_b64url_round_trip)
{
	unsigned char data[300];

	for (size_t len = 0; len <= sizeof data; len++) {
		size_t n = 0;
		char *enc;
		unsigned char *dec;

		crypto_random(data, len);
		enc = b64url_encode(data, len);
		ck_assert_uint_eq(strlen(enc), len / 3 * 4 + (len % 3 ? len % 3 + 1 : 0));
		for (const char *p = enc; *p; p++)
			ck_assert_msg(is_b64url_char(*p), "bad output char '%c'", *p);
		dec = b64url_decode_any(enc, strlen(enc), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, len);
		ck_assert_mem_eq(dec, data, len);
		free(dec);
		free(enc);
	}
}
END_TEST

/* Larger than the chunk OpenSSL is called with, so the chunk loop runs. */
START_TEST(test_b64url_round_trip_large)
{
	size_t len = (3u << 21) + 5, n = 0;
	unsigned char *data = xmalloc(len), *dec;
	char *enc;

	crypto_random(data, len);
	enc = b64url_encode(data, len);
	ck_assert_uint_eq(strlen(enc), (len * 4 + 2) / 3);
	dec = b64url_decode_any(enc, strlen(enc), &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, len);
	ck_assert(memcmp(dec, data, len) == 0);
	free(dec);
	free(enc);
	free(data);
}
END_TEST

/* Every 2- and 3-character tail: accepted exactly when its unused bits are
 * zero (RFC 4648 §3.5), and then it is the encoding of what it decodes to. */
START_TEST(test_b64url_decode_tails)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

	for (int a = 0; a < 64; a++)
		for (int b = 0; b < 64; b++)
			for (int c = -1; c < 64; c++) {
				char in[4] = { alphabet[a], alphabet[b], c < 0 ? '\0' : alphabet[c], '\0' };
				bool canonical = c < 0 ? (b & 0x0f) == 0 : (c & 0x03) == 0;
				size_t n = 0;
				unsigned char *dec = b64url_decode_any(in, strlen(in), &n);

				ck_assert_msg((dec != NULL) == canonical, "\"%s\"", in);
				if (dec) {
					char enc[8];

					ck_assert_uint_eq(n, strlen(in) - 1);
					b64url_encode_into(enc, dec, n);
					ck_assert_str_eq(enc, in);
				}
				free(dec);
			}
}
END_TEST

/* The table encoder writes what OpenSSL's encoder does, in the URL-safe
 * alphabet and without padding, at every tail length and for every byte. */
START_TEST(test_b64url_encode_matches_openssl)
{
	unsigned char data[256], std[B64URL_ENCODED_MAX(sizeof data)];
	char out[B64URL_ENCODED_MAX(sizeof data)];

	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (unsigned char)(i * 167 + 13);
	for (size_t len = 0; len <= sizeof data; len++) {
		int w = EVP_EncodeBlock(std, data, (int)len);
		size_t n = b64url_encode_into(out, data, len);

		while (w > 0 && std[w - 1] == '=')
			w--;
		for (int i = 0; i < w; i++)
			std[i] = std[i] == '+' ? '-' : std[i] == '/' ? '_' : std[i];
		ck_assert_uint_eq(n, (size_t)w);
		ck_assert_mem_eq(out, std, n);
		ck_assert_int_eq(out[n], '\0');
	}
}
END_TEST

/* ---- crypto ---------------------------------------------------------- */

START_TEST(test_crypto_hash_secret_vectors)
{
	char out[SECRET_HASH_LEN + 1];

	/* SHA-256("abc") = ba7816bf...f20015ad (FIPS 180-2 B.1) */
	crypto_hash_secret("abc", 3, out);
	ck_assert_str_eq(out, "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
	/* SHA-256("") = e3b0c442...7852b855 */
	crypto_hash_secret("", 0, out);
	ck_assert_str_eq(out, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
	/* len, not NUL, ends the input */
	crypto_hash_secret("abcdef", 3, out);
	ck_assert_str_eq(out, "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
}
END_TEST

#define RFC7636_VERIFIER "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
#define RFC7636_CHALLENGE "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

/* RFC 7636 Appendix B */
START_TEST(test_crypto_pkce_rfc7636)
{
	char out[SECRET_HASH_LEN + 1];

	crypto_hash_secret(RFC7636_VERIFIER, strlen(RFC7636_VERIFIER), out);
	ck_assert_str_eq(out, RFC7636_CHALLENGE);
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER, RFC7636_CHALLENGE), 1);
}
END_TEST

START_TEST(test_crypto_pkce_mismatch)
{
	/* one character changed in each */
	ck_assert_int_eq(crypto_pkce_s256_verify("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl",
	                                         RFC7636_CHALLENGE), 0);
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER,
	                                         "F9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), 0);
	/* a well-formed challenge of another verifier */
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER,
	                                         "E9cx7ZpIu5RI8wWUOvAGC6LqUCTKJQjvXUSYDdpaWiq"), 0);
	/* the plain method's "challenge" (= the verifier) is not S256 */
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER, RFC7636_VERIFIER), 0);
	/* padded or truncated challenge */
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER, RFC7636_CHALLENGE "="), 0);
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER,
	                                         "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c"), 0);
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER, ""), 0);
	ck_assert_int_eq(crypto_pkce_s256_verify(NULL, RFC7636_CHALLENGE), 0);
	ck_assert_int_eq(crypto_pkce_s256_verify(RFC7636_VERIFIER, NULL), 0);
}
END_TEST

/* RFC 7636 §4.1: 43..128 characters of ALPHA / DIGIT / "-" / "." / "_" / "~" */
START_TEST(test_crypto_pkce_verifier_rules)
{
	char v[200], challenge[SECRET_HASH_LEN + 1];
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
	static const size_t lengths[] = { 42, 43, 128, 129 };

	for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
		size_t len = lengths[k];

		for (size_t i = 0; i < len; i++)
			v[i] = alphabet[i % (sizeof alphabet - 1)];
		v[len] = '\0';
		crypto_hash_secret(v, len, challenge);
		ck_assert_int_eq(crypto_pkce_s256_verify(v, challenge), len >= 43 && len <= 128);
	}

	/* a character outside the set fails even with the right hash */
	static const char bad_chars[] = { ' ', '+', '/', '=', '%', '\n', (char)0xc3 };
	for (size_t k = 0; k < sizeof bad_chars; k++) {
		memset(v, 'a', 50);
		v[50] = '\0';
		v[20] = bad_chars[k];
		crypto_hash_secret(v, 50, challenge);
		ck_assert_int_eq(crypto_pkce_s256_verify(v, challenge), 0);
	}
}
END_TEST

START_TEST(test_crypto_equal)
{
	ck_assert_int_eq(crypto_equal("secret", "secret"), 1);
	ck_assert_int_eq(crypto_equal("", ""), 1);
	ck_assert_int_eq(crypto_equal("secret", "secreT"), 0);
	ck_assert_int_eq(crypto_equal("secret", "Secret"), 0);
	ck_assert_int_eq(crypto_equal("secret", "secret2"), 0);
	ck_assert_int_eq(crypto_equal("secret2", "secret"), 0);
	ck_assert_int_eq(crypto_equal("secret", ""), 0);
	ck_assert_int_eq(crypto_equal("", "secret"), 0);
	ck_assert_int_eq(crypto_equal(NULL, "secret"), 0);
	ck_assert_int_eq(crypto_equal("secret", NULL), 0);
	ck_assert_int_eq(crypto_equal(NULL, NULL), 0);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define N_IDS 2000

START_TEST(test_crypto_new_id)
{
	char **ids = xcalloc(N_IDS, sizeof *ids);

	for (int i = 0; i < N_IDS; i++) {
		ids[i] = crypto_new_id();
		ck_assert_uint_eq(strlen(ids[i]), 22);
		for (const char *p = ids[i]; *p; p++)
			ck_assert_msg(is_b64url_char(*p), "bad id char '%c'", *p);
	}
	qsort(ids, N_IDS, sizeof *ids, cmp_str);
	for (int i = 1; i < N_IDS; i++)
		ck_assert_str_ne(ids[i - 1], ids[i]);
	for (int i = 0; i < N_IDS; i++)
		free(ids[i]);
	free(ids);
}
END_TEST

START_TEST(test_crypto_new_secret)
{
	char *a = crypto_new_secret(), *b = crypto_new_secret();
	unsigned char *raw;
	size_t n = 0;

	ck_assert_uint_eq(strlen(a), 43);
	for (const char *p = a; *p; p++)
		ck_assert(is_b64url_char(*p));
	ck_assert_str_ne(a, b);
	raw = b64url_decode_any(a, strlen(a), &n);
	ck_assert_ptr_nonnull(raw);
	ck_assert_uint_eq(n, SECRET_RANDOM_BYTES);
	free(raw);
	crypto_free_wiped(a);
	crypto_free_wiped(b);
	crypto_free_wiped(NULL);
}
END_TEST

/* The wiping realloc keeps what the block held, however it grows, and
 * shrinking keeps the block; free and realloc take NULL. */
START_TEST(test_crypto_realloc_wiped)
{
	char *p = crypto_realloc_wiped(NULL, 16);

	memcpy(p, "0123456789abcde", 16);
	p = crypto_realloc_wiped(p, 8);
	ck_assert_str_eq(p, "0123456789abcde");
	for (size_t n = 32; n <= 1 << 20; n *= 4) {
		p = crypto_realloc_wiped(p, n);
		ck_assert_str_eq(p, "0123456789abcde");
		p[n - 1] = 'x';
	}
	crypto_free_wiped(p);
	crypto_free_wiped(NULL);
}
END_TEST

START_TEST(test_crypto_random)
{
	unsigned char a[32] = { 0 }, b[32] = { 0 }, zero[32] = { 0 };

	crypto_random(a, 0);
	ck_assert_mem_eq(a, zero, sizeof a);
	crypto_random(a, sizeof a);
	crypto_random(b, sizeof b);
	ck_assert(memcmp(a, b, sizeof a) != 0);
	ck_assert(memcmp(a, zero, sizeof a) != 0);
}
END_TEST

static Suite *b64url_suite(void)
{
	Suite *s = suite_create("b64url");
	TCase *tc = tcase_create("b64url");

	tcase_add_loop_test(tc, test_b64url_encode_rfc4648, 0, N_RFC4648);
	tcase_add_loop_test(tc, test_b64url_decode_rfc4648, 0, N_RFC4648);
	tcase_add_test(tc, test_b64url_decode_both_alphabets);
	tcase_add_loop_test(tc, test_b64url_decode_rejects, 0, N_B64_BAD);
	tcase_add_test(tc, test_b64url_decode_null);
	tcase_add_test(tc, test_b64url_decode_reads_only_len);
	tcase_add_test(tc, test_b64url_round_trip);
	tcase_add_test(tc, test_b64url_round_trip_large);
	tcase_add_test(tc, test_b64url_encode_matches_openssl);
	tcase_add_test(tc, test_b64url_decode_tails);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *crypto_suite(void)
{
	Suite *s = suite_create("crypto");
	TCase *tc = tcase_create("crypto");

	tcase_add_test(tc, test_crypto_hash_secret_vectors);
	tcase_add_test(tc, test_crypto_pkce_rfc7636);
	tcase_add_test(tc, test_crypto_pkce_mismatch);
	tcase_add_test(tc, test_crypto_pkce_verifier_rules);
	tcase_add_test(tc, test_crypto_equal);
	tcase_add_test(tc, test_crypto_new_id);
	tcase_add_test(tc, test_crypto_new_secret);
	tcase_add_test(tc, test_crypto_random);
	tcase_add_test(tc, test_crypto_realloc_wiped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(b64url_suite());

	srunner_add_suite(sr, crypto_suite());
	return check_run(sr);
}
