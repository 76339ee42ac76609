/*
 * Unit tests for validate.c: UTF-8, character counts, codes, emails, URLs,
 * booleans and integers. Tables of cases, one loop test per table; nothing
 * here allocates, so a failing assertion leaks nothing.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "validate.h"

#define LEN_STRLEN ((size_t)-1)

/* Writes n copies of unit into buf (which must hold them and a NUL). */
static char *repeat(char *buf, size_t size, const char *unit, size_t n)
{
	size_t ulen = strlen(unit), i;

	ck_assert_uint_lt(n * ulen, size);
	for (i = 0; i < n; i++)
		memcpy(buf + i * ulen, unit, ulen);
	buf[n * ulen] = '\0';
	return buf;
}

/* --- UTF-8 --------------------------------------------------------------- */

static const struct {
	const char *desc;
	const char *s;
	size_t len;   /* LEN_STRLEN: strlen(s) */
	bool valid;
} utf8_cases[] = {
	{ "empty", "", LEN_STRLEN, true },
	{ "ascii", "hello", LEN_STRLEN, true },
	{ "2-byte e-acute", "\xc3\xa9", LEN_STRLEN, true },
	{ "3-byte euro", "\xe2\x82\xac", LEN_STRLEN, true },
	{ "4-byte emoji", "\xf0\x9f\x98\x80", LEN_STRLEN, true },
	{ "U+0080 lowest 2-byte", "\xc2\x80", LEN_STRLEN, true },
	{ "U+0800 lowest 3-byte", "\xe0\xa0\x80", LEN_STRLEN, true },
	{ "U+10000 lowest 4-byte", "\xf0\x90\x80\x80", LEN_STRLEN, true },
	{ "U+D7FF before surrogates", "\xed\x9f\xbf", LEN_STRLEN, true },
	{ "U+E000 after surrogates", "\xee\x80\x80", LEN_STRLEN, true },
	{ "U+FFFF", "\xef\xbf\xbf", LEN_STRLEN, true },
	{ "U+10FFFF highest", "\xf4\x8f\xbf\xbf", LEN_STRLEN, true },
	{ "mixed", "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z", LEN_STRLEN, true },
	{ "embedded U+0000 is UTF-8", "a\0b", 3, true },
	{ "overlong '/' C0 AF", "\xc0\xaf", LEN_STRLEN, false },
	{ "overlong C1 BF", "\xc1\xbf", LEN_STRLEN, false },
	{ "overlong NUL C0 80", "\xc0\x80", LEN_STRLEN, false },
	{ "overlong 3-byte E0 80 AF", "\xe0\x80\xaf", LEN_STRLEN, false },
	{ "overlong U+07FF E0 9F BF", "\xe0\x9f\xbf", LEN_STRLEN, false },
	{ "overlong U+FFFF F0 8F BF BF", "\xf0\x8f\xbf\xbf", LEN_STRLEN, false },
	{ "surrogate U+D800", "\xed\xa0\x80", LEN_STRLEN, false },
	{ "surrogate U+DFFF", "\xed\xbf\xbf", LEN_STRLEN, false },
	{ "surrogate pair as CESU-8", "\xed\xa0\xbd\xed\xb8\x80", LEN_STRLEN, false },
	{ "U+110000", "\xf4\x90\x80\x80", LEN_STRLEN, false },
	{ "F5 lead", "\xf5\x80\x80\x80", LEN_STRLEN, false },
	{ "F8 5-byte lead", "\xf8\x88\x80\x80\x80", LEN_STRLEN, false },
	{ "FE", "\xfe", LEN_STRLEN, false },
	{ "FF", "\xff", LEN_STRLEN, false },
	{ "lone continuation", "\x80", LEN_STRLEN, false },
	{ "continuation after ascii", "a\xbf", LEN_STRLEN, false },
	{ "truncated 2-byte at end", "a\xc3", LEN_STRLEN, false },
	{ "truncated 3-byte at end", "\xe2\x82", LEN_STRLEN, false },
	{ "truncated 4-byte at end", "\xf0\x9f\x98", LEN_STRLEN, false },
	{ "truncated 2-byte before ascii", "\xc3" "A", LEN_STRLEN, false },
	{ "bad middle byte", "\xe2" "A" "\xac", LEN_STRLEN, false },
	{ "len cuts a sequence", "\xc3\xa9", 1, false },
	{ "len stops before bad byte", "ab\xff", 2, true },
};

START_TEST(test_utf8_valid)
{
	size_t len = utf8_cases[_i].len == LEN_STRLEN ? strlen(utf8_cases[_i].s)
	                                               : utf8_cases[_i].len;

	ck_assert_msg(utf8_valid(utf8_cases[_i].s, len) == utf8_cases[_i].valid,
	              "utf8_valid: %s: expected %s", utf8_cases[_i].desc,
	              utf8_cases[_i].valid ? "valid" : "invalid");
}
END_TEST

static const struct {
	const char *s;
	size_t chars;
} chars_cases[] = {
	{ "", 0 },
	{ "abc", 3 },
	{ "\xc3\xa9", 1 },
	{ "h\xc3\xa9llo", 5 },
	{ "\xf0\x9f\x98\x80", 1 },
	{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3 },
	{ "a\xf0\x9f\x98\x80" "b", 3 },
};

START_TEST(test_utf8_chars)
{
	ck_assert_uint_eq(utf8_chars(chars_cases[_i].s), chars_cases[_i].chars);
}
END_TEST

START_TEST(test_utf8_chars_long)
{
	char buf[1024];

	ck_assert_uint_eq(utf8_chars(repeat(buf, sizeof buf, "\xf0\x9f\x98\x80", 50)), 50);
	ck_assert_uint_eq(utf8_chars(repeat(buf, sizeof buf, "\xc3\xa9", 200)), 200);
}
END_TEST

/* --- codes --------------------------------------------------------------- */

static const struct {
	const char *s;
	bool valid;
} code_cases[] = {
	{ "abc", true },
	{ "A-b_9", true },
	{ "-", true },
	{ "_", true },
	{ "0", true },
	{ "", false },
	{ "a b", false },
	{ " abc", false },
	{ "abc ", false },
	{ "a.b", false },
	{ "a/b", false },
	{ "a:b", false },
	{ "a\tb", false },
	{ "a\nb", false },
	{ "caf\xc3\xa9", false },
	{ "a%20", false },
};

START_TEST(test_code)
{
	ck_assert_msg(validate_code(code_cases[_i].s) == code_cases[_i].valid,
	              "validate_code case %d: expected %s", _i,
	              code_cases[_i].valid ? "valid" : "invalid");
}
END_TEST

START_TEST(test_code_length)
{
	char buf[128];

	ck_assert(validate_code(repeat(buf, sizeof buf, "a", CODE_MAX_CHARS)));
	ck_assert(!validate_code(repeat(buf, sizeof buf, "a", CODE_MAX_CHARS + 1)));
}
END_TEST

/* --- emails -------------------------------------------------------------- */

static const struct {
	const char *desc;
	const char *s;
	bool valid;
} email_cases[] = {
	{ "minimal", "a@b", true },
	{ "usual", "user@example.com", true },
	{ "dots and plus", "first.last+tag@sub.example.co", true },
	{ "non-ASCII", "j\xc3\xb6s\xc3\xa9@ex\xc3\xa4mple.com", true },
	{ "empty", "", false },
	{ "only @", "@", false },
	{ "no @", "ab", false },
	{ "no domain", "a@", false },
	{ "no local", "@b", false },
	{ "two @ together", "a@@b", false },
	{ "two @", "a@b@c", false },
	{ "space in local", "a b@c", false },
	{ "space in domain", "a@b c", false },
	{ "leading space", " a@b", false },
	{ "trailing space", "a@b ", false },
	{ "tab", "a\t@b", false },
	{ "newline", "a@b\n", false },
	{ "CR LF injection", "a@b\r\nBcc: x@y", false },
	{ "DEL", "a\x7f@b", false },
	{ "C1 control U+0085", "a\xc2\x85@b", false },
	{ "no-break space U+00A0", "a\xc2\xa0@b", false },
	{ "ideographic space U+3000", "a\xe3\x80\x80@b", false },
	{ "zero width space U+200B", "a\xe2\x80\x8b@b", false },
	{ "invalid UTF-8", "\xff@b", false },
	{ "overlong '@'", "a\xc1\x80" "b", false },
};

START_TEST(test_email)
{
	ck_assert_msg(validate_email(email_cases[_i].s) == email_cases[_i].valid,
	              "validate_email: %s: expected %s", email_cases[_i].desc,
	              email_cases[_i].valid ? "valid" : "invalid");
}
END_TEST

/* The limit counts code points: 100 is fine in any script, 101 is not. */
START_TEST(test_email_length)
{
	char buf[512];

	repeat(buf, sizeof buf, "a", EMAIL_MAX_CHARS - 2);
	strcat(buf, "@b");
	ck_assert(validate_email(buf));
	repeat(buf, sizeof buf, "a", EMAIL_MAX_CHARS - 1);
	strcat(buf, "@b");
	ck_assert(!validate_email(buf));
	repeat(buf, sizeof buf, "\xc3\xa9", EMAIL_MAX_CHARS - 2);
	strcat(buf, "@b");
	ck_assert(validate_email(buf));
	repeat(buf, sizeof buf, "\xc3\xa9", EMAIL_MAX_CHARS - 1);
	strcat(buf, "@b");
	ck_assert(!validate_email(buf));
}
END_TEST

/* --- URLs ---------------------------------------------------------------- */

static const struct {
	const char *desc;
	const char *s;
	bool valid;
} url_cases[] = {
	{ "minimal http", "http://a", true },
	{ "https", "https://example.com", true },
	{ "root path", "https://example.com/", true },
	{ "port, path, query, fragment", "http://example.com:8080/p/a.png?q=1&r=%20#frag", true },
	{ "upper-case scheme", "HTTPS://EXAMPLE.COM/x", true },
	{ "IPv4", "http://127.0.0.1/cb", true },
	{ "IPv6 with port", "http://[::1]:8080/cb", true },
	{ "userinfo", "https://user:pw@host/", true },
	{ "query without path", "https://h?x=1", true },
	{ "fragment without path", "https://h#top", true },
	{ "empty query", "https://h/?", true },
	{ "port 65535", "http://h:65535/", true },
	{ "empty", "", false },
	{ "no scheme", "example.com", false },
	{ "scheme-relative", "//example.com/", false },
	{ "ftp", "ftp://example.com/", false },
	{ "javascript", "javascript:alert(1)", false },
	{ "data", "data:text/html,hi", false },
	{ "mailto", "mailto:a@b", false },
	{ "one slash", "http:/example.com", false },
	{ "backslashes", "http:\\\\example.com", false },
	{ "scheme only", "http://", false },
	{ "empty host, path", "http:///path", false },
	{ "empty host, port", "http://:80/", false },
	{ "empty host, userinfo", "http://u@/", false },
	{ "empty port", "http://h:/", false },
	{ "port not digits", "http://host:port/", false },
	{ "port too big", "http://h:65536/", false },
	{ "port huge", "http://h:99999999999999999999/", false },
	{ "two @", "http://a@b@c/", false },
	{ "space in host", "http://a b/", false },
	{ "space in path", "http://a/ b", false },
	{ "tab", "http://a/\tb", false },
	{ "newline", "http://a/\nb", false },
	{ "control char", "http://a/\x01", false },
	{ "DEL", "http://a/\x7f", false },
	{ "non-ASCII path", "http://a/\xc3\xa9", false },
	{ "non-ASCII host", "http://\xc3\xa9.com/", false },
	{ "bad percent", "http://a/%zz", false },
	{ "short percent", "http://a/%4", false },
	{ "percent in host", "http://a%41/", false },
	{ "second #", "http://a/b#c#d", false },
	{ "bracket in path", "http://a/[x]", false },
	{ "quote", "http://a/\"x", false },
	{ "angle bracket", "http://a/<x>", false },
	{ "unclosed IPv6", "http://[::1/", false },
	{ "bad IPv6", "http://[zz]/", false },
	{ "junk after IPv6", "http://[::1]x/", false },
	{ "leading space", " http://a/", false },
};

START_TEST(test_url)
{
	ck_assert_msg(validate_http_url(url_cases[_i].s) == url_cases[_i].valid,
	              "validate_http_url: %s: expected %s", url_cases[_i].desc,
	              url_cases[_i].valid ? "valid" : "invalid");
}
END_TEST

START_TEST(test_url_length)
{
	static char buf[URL_MAX_CHARS + 16];
	size_t prefix = strlen("https://h/");

	memcpy(buf, "https://h/", prefix);
	repeat(buf + prefix, sizeof buf - prefix, "a", URL_MAX_CHARS - prefix);
	ck_assert_uint_eq(strlen(buf), URL_MAX_CHARS);
	ck_assert(validate_http_url(buf));
	strcat(buf, "a");
	ck_assert(!validate_http_url(buf));
}
END_TEST

/* --- booleans and integers ---------------------------------------------- */

static const struct {
	const char *s;
	int expect;   /* -1 fails, else the value */
} bool_cases[] = {
	{ "true", 1 },
	{ "false", 0 },
	{ "", -1 },
	{ "TRUE", -1 },
	{ "True", -1 },
	{ "False", -1 },
	{ "1", -1 },
	{ "0", -1 },
	{ "yes", -1 },
	{ "t", -1 },
	{ " true", -1 },
	{ "true ", -1 },
	{ "truex", -1 },
	{ "null", -1 },
};

START_TEST(test_bool)
{
	bool b = false;
	int rc = parse_bool(bool_cases[_i].s, &b);

	if (bool_cases[_i].expect < 0) {
		ck_assert_msg(rc == -1, "parse_bool(\"%s\") should fail", bool_cases[_i].s);
	} else {
		ck_assert_msg(rc == 0, "parse_bool(\"%s\") should succeed", bool_cases[_i].s);
		ck_assert_int_eq(b, bool_cases[_i].expect);
	}
}
END_TEST

static const struct {
	const char *s;
	long min, max;
	int rc;
	long value;
} long_cases[] = {
	{ "0", 0, 10, 0, 0 },
	{ "1", 1, 10, 0, 1 },
	{ "10", 1, 10, 0, 10 },
	{ "007", 0, 10, 0, 7 },
	{ "100", 1, 100, 0, 100 },
	{ "11", 1, 10, -1, 0 },
	{ "0", 1, 10, -1, 0 },
	{ "101", 1, 100, -1, 0 },
	{ "", 0, 10, -1, 0 },
	{ "-1", -10, 10, -1, 0 },
	{ "-0", 0, 10, -1, 0 },
	{ "+1", 0, 10, -1, 0 },
	{ " 1", 0, 10, -1, 0 },
	{ "1 ", 0, 10, -1, 0 },
	{ "1a", 0, 10, -1, 0 },
	{ "abc", 0, 10, -1, 0 },
	{ "1e3", 0, 10000, -1, 0 },
	{ "1.0", 0, 10, -1, 0 },
	{ "0x10", 0, 100, -1, 0 },
	{ "\xd9\xa1", 0, 10, -1, 0 },   /* ARABIC-INDIC DIGIT ONE */
	{ "99999999999999999999999", 0, LONG_MAX, -1, 0 },
	{ "18446744073709551616", 0, LONG_MAX, -1, 0 },   /* 2^64: wraps to 0 */
	{ "18446744073709551617", 0, LONG_MAX, -1, 0 },   /* 2^64 + 1: wraps to 1 */
};

START_TEST(test_long_range)
{
	long v = -42;
	int rc = parse_long_range(long_cases[_i].s, long_cases[_i].min,
	                          long_cases[_i].max, &v);

	ck_assert_msg(rc == long_cases[_i].rc, "parse_long_range(\"%s\", %ld, %ld): rc %d",
	              long_cases[_i].s, long_cases[_i].min, long_cases[_i].max, rc);
	if (rc == 0)
		ck_assert_int_eq(v, long_cases[_i].value);
	else
		ck_assert_int_eq(v, -42);   /* untouched on failure */
}
END_TEST

/* LONG_MAX itself is fine, one more is an overflow, whatever a long's width. */
START_TEST(test_long_range_limits)
{
	char buf[64];
	long v = 0;

	snprintf(buf, sizeof buf, "%ld", LONG_MAX);
	ck_assert_int_eq(parse_long_range(buf, 0, LONG_MAX, &v), 0);
	ck_assert_int_eq(v, LONG_MAX);
	snprintf(buf, sizeof buf, "%lu", (unsigned long)LONG_MAX + 1);
	ck_assert_int_eq(parse_long_range(buf, 0, LONG_MAX, &v), -1);
	snprintf(buf, sizeof buf, "%lu0", (unsigned long)LONG_MAX);
	ck_assert_int_eq(parse_long_range(buf, 0, LONG_MAX, &v), -1);
}
END_TEST

/* RFC 7636 §4.2: 43..128 characters of the unreserved set. */
static const struct {
	const char *c;
	bool ok;
} challenge_cases[] = {
	{ "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", true },
	{ "abcdefghijklmnopqrstuvwxyz0123456789-._~ABCD", true },
	{ "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c", false },   /* 42 */
	{ "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c+", false },  /* not unreserved */
	{ "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c=", false },
	{ "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c ", false },
	{ "", false },
};

START_TEST(test_code_challenge)
{
	char long_ok[129], too_long[130];

	ck_assert_msg(validate_code_challenge(challenge_cases[_i].c) == challenge_cases[_i].ok,
	              "\"%s\"", challenge_cases[_i].c);
	memset(long_ok, 'a', 128);
	long_ok[128] = '\0';
	memset(too_long, 'a', 129);
	too_long[129] = '\0';
	ck_assert(validate_code_challenge(long_ok));
	ck_assert(!validate_code_challenge(too_long));
}
END_TEST

static Suite *validate_suite(void)
{
	Suite *s = suite_create("validate");
	TCase *tc;

	tc = tcase_create("utf8");
	tcase_add_loop_test(tc, test_utf8_valid, 0, N_ELEMS(utf8_cases));
	tcase_add_loop_test(tc, test_utf8_chars, 0, N_ELEMS(chars_cases));
	tcase_add_test(tc, test_utf8_chars_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("code");
	tcase_add_loop_test(tc, test_code, 0, N_ELEMS(code_cases));
	tcase_add_test(tc, test_code_length);
	suite_add_tcase(s, tc);

	tc = tcase_create("email");
	tcase_add_loop_test(tc, test_email, 0, N_ELEMS(email_cases));
	tcase_add_test(tc, test_email_length);
	suite_add_tcase(s, tc);

	tc = tcase_create("url");
	tcase_add_loop_test(tc, test_url, 0, N_ELEMS(url_cases));
	tcase_add_test(tc, test_url_length);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_bool, 0, N_ELEMS(bool_cases));
	tcase_add_loop_test(tc, test_long_range, 0, N_ELEMS(long_cases));
	tcase_add_test(tc, test_long_range_limits);
	tcase_add_loop_test(tc, test_code_challenge, 0, N_ELEMS(challenge_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(validate_suite()));
}
