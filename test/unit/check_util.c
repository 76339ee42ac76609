/*
 * Unit tests for util.c's format_timestamp: the calendar arithmetic against
 * the C library's, times before 1970 (floor division: -1 ms is the last
 * millisecond of 1969), and times RFC 3339 cannot write, which are clamped.
 * The times come from the store, so every int64_t must give 24 characters.
 * And parse_timestamp, the CLI's reading of RFC 3339 (edgeauth events --since),
 * and xasprintf (measured, then written once).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_suite.h"
#include "util.h"

#define DAY_MS 86400000LL
#define FIRST_MS (-62167219200000LL)   /* 0000-01-01T00:00:00.000Z */
#define LAST_MS 253402300799999LL      /* 9999-12-31T23:59:59.999Z */

static const struct {
	int64_t ms;
	const char *text;
} cases[] = {
	{ 0, "1970-01-01T00:00:00.000Z" },
	{ 999, "1970-01-01T00:00:00.999Z" },
	{ 1795348800123LL, "2026-11-22T12:00:00.123Z" },
	{ 951782400000LL, "2000-02-29T00:00:00.000Z" },
	/* before 1970: the second and the millisecond count back from it */
	{ -1, "1969-12-31T23:59:59.999Z" },
	{ -999, "1969-12-31T23:59:59.001Z" },
	{ -1000, "1969-12-31T23:59:59.000Z" },
	{ -1001, "1969-12-31T23:59:58.999Z" },
	{ -DAY_MS, "1969-12-31T00:00:00.000Z" },
	{ -DAY_MS - 1, "1969-12-30T23:59:59.999Z" },
	{ -2208988800000LL, "1900-01-01T00:00:00.000Z" },
	{ -62135596800000LL, "0001-01-01T00:00:00.000Z" },
	{ -62162035200000LL, "0000-03-01T00:00:00.000Z" },
	{ -62162035200001LL, "0000-02-29T23:59:59.999Z" },   /* year 0 is a leap year */
	/* the ends of what RFC 3339 can write, and past them */
	{ FIRST_MS, "0000-01-01T00:00:00.000Z" },
	{ FIRST_MS - 1, "0000-01-01T00:00:00.000Z" },
	{ INT64_MIN, "0000-01-01T00:00:00.000Z" },
	{ LAST_MS, "9999-12-31T23:59:59.999Z" },
	{ LAST_MS + 1, "9999-12-31T23:59:59.999Z" },
	{ INT64_MAX, "9999-12-31T23:59:59.999Z" },
};

/* xasprintf measures, then writes once: short and long results whole. */
START_TEST(test_xasprintf)
{
	char big[5001], *p;

	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	p = xasprintf("%s-%d", "x", 42);
	ck_assert_str_eq(p, "x-42");
	free(p);
	p = xasprintf("[%s]%s", big, "end");
	ck_assert_uint_eq(strlen(p), 5000 + 5);
	ck_assert_int_eq(p[0], '[');
	ck_assert_str_eq(p + 5001, "]end");
	free(p);
	p = xasprintf("%s", "");
	ck_assert_str_eq(p, "");
	free(p);
}
END_TEST

START_TEST(test_format_timestamp)
{
	char got[TIMESTAMP_LEN + 8];

	memset(got, 'x', sizeof got);
	format_timestamp(cases[_i].ms, got);
	ck_assert_msg(strcmp(got, cases[_i].text) == 0, "%lld: got %s, want %s",
	              (long long)cases[_i].ms, got, cases[_i].text);
	ck_assert_uint_eq(strlen(got), TIMESTAMP_LEN - 1);
}
END_TEST

/* What gmtime_r makes of ms, with the millisecond counted as format_timestamp
 * must: both floored, so -1 ms is 23:59:59.999 of the day before. */
static void expect_as_libc(long long ms)
{
	char got[TIMESTAMP_LEN], want[64];
	long long sec = ms / 1000 - (ms % 1000 < 0);
	time_t t = (time_t)sec;
	struct tm tm;

	format_timestamp(ms, got);
	if (!gmtime_r(&t, &tm))
		ck_abort_msg("gmtime_r(%lld) failed", sec);
	snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms - sec * 1000);
	/* not ck_assert: Check reports every passed assertion to its parent,
	 * which over two million calls costs seconds */
	if (strcmp(got, want) != 0)
		ck_abort_msg("%lld: got %s want %s", ms, got, want);
}

/* Every day's midnight and last millisecond from the year 0 to 2400 (leap
 * days, century years, the era boundaries on both sides of 1970), and
 * pseudo-random instants over the whole range. */
START_TEST(test_format_timestamp_as_libc)
{
	unsigned long long x = 88172645463325252ULL;

	for (long long day = FIRST_MS / DAY_MS; day < 157000; day++) {   /* to the year 2399 */
		expect_as_libc(day * DAY_MS);
		expect_as_libc(day * DAY_MS + DAY_MS - 1);
	}
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		expect_as_libc(FIRST_MS + (long long)(x % (unsigned long long)(LAST_MS - FIRST_MS + 1)));
	}
}
END_TEST

/* parse_timestamp reads back what format_timestamp writes (years 1..9999). */
START_TEST(test_parse_timestamp_round_trip)
{
	int64_t ms = -1;

	if (cases[_i].ms < -62135596800000LL || cases[_i].ms > LAST_MS)
		return;   /* year 0, or clamped: not a time that text names */
	ck_assert_int_eq(parse_timestamp(cases[_i].text, &ms), 0);
	ck_assert_int_eq(ms, cases[_i].ms);
}
END_TEST

static const struct {
	const char *text;
	int64_t ms;   /* -1: refused */
} parse_cases[] = {
	{ "2026-11-22T12:00:00Z", 1795348800000LL },
	{ "2026-11-22t12:00:00z", 1795348800000LL },
	{ "2026-11-22T12:00:00.5Z", 1795348800500LL },
	{ "2026-11-22T12:00:00.123456Z", 1795348800123LL },
	{ "2026-11-22T13:30:00+01:30", 1795348800000LL },
	{ "2026-11-22T10:00:00-02:00", 1795348800000LL },
	{ "", -1 },
	{ "2026-11-22", -1 },
	{ "2026-11-22T12:00:00", -1 },
	{ "2026-11-22 12:00:00Z", -1 },
	{ "2026-11-22T12:00:00.Z", -1 },
	{ "2026-11-22T12:00:00Zx", -1 },
	{ "2026-13-01T00:00:00Z", -1 },
	{ "2026-02-29T00:00:00Z", -1 },
	{ "2100-02-29T00:00:00Z", -1 },
	{ "2026-04-31T00:00:00Z", -1 },
	{ "2026-11-22T24:00:00Z", -1 },
	{ "2026-11-22T12:00:00+24:00", -1 },
	{ "0000-01-01T00:00:00Z", -1 },
	{ "+026-11-22T12:00:00Z", -1 },
	{ "yesterday", -1 },
};

START_TEST(test_parse_timestamp)
{
	int64_t ms = -1;
	int rc = parse_timestamp(parse_cases[_i].text, &ms);

	if (parse_cases[_i].ms == -1) {
		ck_assert_msg(rc == -1, "%s: accepted", parse_cases[_i].text);
	} else {
		ck_assert_msg(rc == 0, "%s: refused", parse_cases[_i].text);
		ck_assert_int_eq(ms, parse_cases[_i].ms);
	}
}
END_TEST

/* issue27.dirs: every missing directory of a path's parent is made, 0700;
 * one that cannot be is named, with errno. */
START_TEST(test_make_parent_dirs)
{
	char dir[] = "/tmp/check_util.XXXXXX", *path, *failed = NULL, *p;
	struct stat sb;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/a/b/c/store.db", dir);
	ck_assert_int_eq(make_parent_dirs(path, &failed), 0);
	ck_assert_ptr_null(failed);
	p = xasprintf("%s/a/b/c", dir);
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0700);
	ck_assert_int_eq(make_parent_dirs(path, &failed), 0);   /* all there: nothing to do */
	free(path);
	/* a file where a directory must go */
	path = xasprintf("%s/a/file", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	free(path);
	path = xasprintf("%s/a/file/x/store.db", dir);
	ck_assert_int_eq(make_parent_dirs(path, &failed), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	free(path);
	path = xasprintf("%s/a/file/x", dir);
	ck_assert_str_eq(failed, path);
	free(failed);
	free(path);
	path = xasprintf("rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
	free(path);
	free(p);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("format_timestamp");
	TCase *parse = tcase_create("parse_timestamp");
	TCase *fmt = tcase_create("xasprintf");

	tcase_add_loop_test(tc, test_format_timestamp, 0, N_ELEMS(cases));
	tcase_add_test(tc, test_format_timestamp_as_libc);
	tcase_add_loop_test(parse, test_parse_timestamp_round_trip, 0, N_ELEMS(cases));
	tcase_add_loop_test(parse, test_parse_timestamp, 0, N_ELEMS(parse_cases));
	suite_add_tcase(s, tc);
	suite_add_tcase(s, parse);
	tcase_add_test(fmt, test_xasprintf);
	tcase_add_test(fmt, test_make_parent_dirs);
	suite_add_tcase(s, fmt);
	return s;
}

int main(void)
{
	return check_run(srunner_create(util_suite()));
}
