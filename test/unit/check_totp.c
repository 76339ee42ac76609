/* issue30.1: TOTP (RFC 6238) and HOTP (RFC 4226) against the RFCs' test
 * vectors, the window and replay refusal on a test clock, and base32
 * (RFC 4648 §10's vectors). */
#include <check.h>
#include <string.h>

#include "check_suite.h"
#include "totp.h"

/* RFC 6238 Appendix B's SHA-1 seed */
static const unsigned char seed[] = "12345678901234567890";
#define SEED_LEN 20

/* RFC 6238 Appendix B, the SHA-1 rows: 8 digits */
static const struct {
	int64_t time;
	uint32_t code;
} rfc6238[] = {
	{ 59, 94287082 }, { 1111111109, 7081804 }, { 1111111111, 14050471 },
	{ 1234567890, 89005924 }, { 2000000000, 69279037 }, { 20000000000LL, 65353130 },
};

START_TEST(test_rfc6238_vectors)
{
	ck_assert_uint_eq(totp_hotp(seed, SEED_LEN, (uint64_t)totp_step(rfc6238[_i].time), 8),
	                  rfc6238[_i].code);
}
END_TEST

/* RFC 4226 Appendix D: the HOTP values of counters 0..9, 6 digits */
static const uint32_t rfc4226[] = { 755224, 287082, 359152, 969429, 338314,
                                    254676, 287922, 162583, 399871, 520489 };

START_TEST(test_rfc4226_truncation)
{
	ck_assert_uint_eq(totp_hotp(seed, SEED_LEN, (uint64_t)_i, 6), rfc4226[_i]);
}
END_TEST

START_TEST(test_code_zero_padded)
{
	char code[TOTP_DIGITS + 1];

	/* 1111111109 is step 37037036, whose 8 digits start with a 0 */
	totp_code(seed, SEED_LEN, totp_step(1111111109), code);
	ck_assert_str_eq(code, "081804");
	ck_assert_int_eq(totp_step(-5), 0);
	ck_assert_int_eq(totp_step(59), 1);
}
END_TEST

/* issue30.1: one step of skew either way, no more */
START_TEST(test_window)
{
	int64_t now = 1234567890, step = totp_step(now);
	char code[TOTP_DIGITS + 1];

	totp_code(seed, SEED_LEN, step, code);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now, 0), step);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now + TOTP_STEP_S, 0), step);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now - TOTP_STEP_S, 0), step);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now + 2 * TOTP_STEP_S, 0), -1);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now - 2 * TOTP_STEP_S, 0), -1);
}
END_TEST

/* issue30.1: a code is accepted once: its step, or an earlier one, used */
START_TEST(test_replay)
{
	int64_t now = 1234567890, step = totp_step(now);
	char code[TOTP_DIGITS + 1], earlier[TOTP_DIGITS + 1];

	totp_code(seed, SEED_LEN, step, code);
	totp_code(seed, SEED_LEN, step - 1, earlier);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now, step), -1);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, code, now, step - 1), step);
	/* once the current step was used, the previous step's code is dead too */
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, earlier, now, step), -1);
}
END_TEST

static const char *const malformed[] = {
	"", "12345", "1234567", "12345a", " 12345", "123 45", "-12345", "+12345", "１２３４５６",
};

START_TEST(test_malformed)
{
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, malformed[_i], 1234567890, 0), -1);
	ck_assert_int_eq(totp_verify(seed, SEED_LEN, NULL, 1234567890, 0), -1);
}
END_TEST

/* RFC 4648 §10, without the padding */
static const char *const b32[][2] = {
	{ "", "" }, { "f", "MY" }, { "fo", "MZXQ" }, { "foo", "MZXW6" }, { "foob", "MZXW6YQ" },
	{ "fooba", "MZXW6YTB" }, { "foobar", "MZXW6YTBOI" },
};

START_TEST(test_base32)
{
	char out[16];

	ck_assert_uint_eq(totp_base32_encode(out, (const unsigned char *)b32[_i][0],
	                                     strlen(b32[_i][0])), strlen(b32[_i][1]));
	ck_assert_str_eq(out, b32[_i][1]);
}
END_TEST

START_TEST(test_base32_secret)
{
	unsigned char key[TOTP_SECRET_BYTES];
	char out[TOTP_BASE32_MAX];

	memset(key, 0xff, sizeof key);
	ck_assert_uint_eq(totp_base32_encode(out, key, sizeof key), TOTP_BASE32_MAX - 1);
	ck_assert_str_eq(out, "77777777777777777777777777777777");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("totp");
	TCase *tc = tcase_create("totp");

	tcase_add_loop_test(tc, test_rfc6238_vectors, 0, N_ELEMS(rfc6238));
	tcase_add_loop_test(tc, test_rfc4226_truncation, 0, N_ELEMS(rfc4226));
	tcase_add_test(tc, test_code_zero_padded);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_replay);
	tcase_add_loop_test(tc, test_malformed, 0, N_ELEMS(malformed));
	tcase_add_loop_test(tc, test_base32, 0, N_ELEMS(b32));
	tcase_add_test(tc, test_base32_secret);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
