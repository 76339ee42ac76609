/* The header-section watcher: folds found in any header line, however the
 * bytes arrive (one call, or split at every byte), never before the request
 * line ends and never past the blank line (a body is not headers). */
#include <check.h>
#include <string.h>

#include "check_suite.h"
#include "header_scan.h"

static const struct {
	const char *bytes;
	bool folded;
	bool done;
} cases[] = {
	{ "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false, true },
	{ "GET / HTTP/1.1\r\nX-A: one\r\n two\r\n\r\n", true, true },
	{ "GET / HTTP/1.1\r\nX-A: one\r\n\ttwo\r\n\r\n", true, true },
	{ "GET / HTTP/1.1\r\nX-A:\r\n folded\r\n\r\n", true, true },
	{ "GET / HTTP/1.1\nX-A: one\n two\n\n", true, true },             /* bare LF lines */
	{ "GET / HTTP/1.1\r\nHost: x\r\n\r\n two\r\n", false, true },      /* past the headers */
	{ "POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n{\r\n \"a\":1}", false, true },
	{ "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", false, true },       /* empty lines first */
	{ "GET / HTTP/1.1\r\nHost: x\r\n", false, false },               /* not ended yet */
	{ "GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", false, true },           /* a lone CR in a value */
	{ "GET / HTTP/1.1\r\n\rX: y\r\n\r\n", false, true },              /* CR then not LF */
	{ "", false, false },
};

START_TEST(test_whole)
{
	struct header_scan s;

	header_scan_reset(&s);
	header_scan_feed(&s, cases[_i].bytes, strlen(cases[_i].bytes));
	ck_assert_msg(s.folded == cases[_i].folded, "case %d folded", _i);
	ck_assert_msg(header_scan_done(&s) == cases[_i].done, "case %d done", _i);
}
END_TEST

START_TEST(test_byte_by_byte)
{
	struct header_scan s;
	const char *b = cases[_i].bytes;

	header_scan_reset(&s);
	for (size_t k = 0; b[k]; k++)
		header_scan_feed(&s, b + k, 1);
	ck_assert_msg(s.folded == cases[_i].folded, "case %d folded", _i);
	ck_assert_msg(header_scan_done(&s) == cases[_i].done, "case %d done", _i);
}
END_TEST

START_TEST(test_reset)
{
	struct header_scan s;

	header_scan_reset(&s);
	header_scan_feed(&s, cases[1].bytes, strlen(cases[1].bytes));
	ck_assert(s.folded);
	header_scan_reset(&s);
	ck_assert(!s.folded && !header_scan_done(&s));
	header_scan_feed(&s, cases[0].bytes, strlen(cases[0].bytes));
	ck_assert(!s.folded && header_scan_done(&s));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("header_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_loop_test(tc, test_whole, 0, N_ELEMS(cases));
	tcase_add_loop_test(tc, test_byte_by_byte, 0, N_ELEMS(cases));
	tcase_add_test(tc, test_reset);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
