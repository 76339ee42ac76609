/* Sign-in failure counters: the limit, the window, reset, and a table that
 * stays within its slots whatever the number of keys. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_suite.h"
#include "throttle.h"

START_TEST(test_limit_and_window)
{
	struct throttle *t = throttle_new(64, 3, 10);
	int64_t now = 1000000;

	ck_assert_int_eq(throttle_wait_s(t, "a", now), 0);
	ck_assert(!throttle_fail(t, "a", now));
	ck_assert(!throttle_fail(t, "a", now + 1000));
	ck_assert_int_eq(throttle_wait_s(t, "a", now + 1000), 0);
	ck_assert(throttle_fail(t, "a", now + 2000));               /* the refusal starts */
	ck_assert_int_eq(throttle_wait_s(t, "a", now + 2000), 8);   /* window from the first */
	ck_assert(!throttle_fail(t, "a", now + 3000));              /* once per window */
	ck_assert_int_eq(throttle_wait_s(t, "b", now + 2000), 0);   /* other keys unaffected */
	ck_assert_int_eq(throttle_wait_s(t, "a", now + 10000), 0);  /* the window ended */
	ck_assert(!throttle_fail(t, "a", now + 10000));             /* a new window */
	ck_assert_int_eq(throttle_wait_s(t, "a", now + 10000), 0);
	ck_assert(!throttle_fail(t, "a", now + 11000));
	ck_assert(throttle_fail(t, "a", now + 12000));              /* and its own start */
	throttle_free(t);
}
END_TEST

/* issue24.3: a bound on uses (docs/tokens.md "Limits"): max uses a window, the
 * refused ones not counted, NULL bounding nothing. */
START_TEST(test_take)
{
	struct throttle *t = throttle_new(64, 3, 60);
	int64_t now = 1000000;

	ck_assert_int_eq(throttle_take(t, "s", now), 0);
	ck_assert_int_eq(throttle_take(t, "s", now + 1000), 0);
	ck_assert_int_eq(throttle_take(t, "s", now + 2000), 0);
	ck_assert_int_eq(throttle_take(t, "s", now + 3000), 57);    /* the fourth: refused */
	ck_assert_int_eq(throttle_take(t, "s", now + 59000), 1);
	ck_assert_int_eq(throttle_take(t, "other", now + 3000), 0);
	ck_assert_int_eq(throttle_take(t, "s", now + 60000), 0);    /* a new window */
	ck_assert_int_eq(throttle_take(NULL, "s", now), 0);
	throttle_free(t);
}
END_TEST

START_TEST(test_reset)
{
	struct throttle *t = throttle_new(64, 2, 10);

	throttle_fail(t, "a", 5000);
	throttle_fail(t, "a", 5000);
	ck_assert_int_gt(throttle_wait_s(t, "a", 5000), 0);
	throttle_reset(t, "a");
	ck_assert_int_eq(throttle_wait_s(t, "a", 5000), 0);
	throttle_reset(t, "never seen");
	throttle_free(t);
}
END_TEST

/* An attempt taken back (it never ran) no longer counts; nothing goes below
 * zero, and an unknown key is no error. */
START_TEST(test_undo)
{
	struct throttle *t = throttle_new(64, 2, 10);

	throttle_fail(t, "a", 5000);
	throttle_fail(t, "a", 5000);
	ck_assert_int_gt(throttle_wait_s(t, "a", 5000), 0);
	throttle_undo(t, "a");
	ck_assert_int_eq(throttle_wait_s(t, "a", 5000), 0);
	throttle_undo(t, "a");
	throttle_undo(t, "a");
	throttle_fail(t, "a", 5000);
	ck_assert_int_eq(throttle_wait_s(t, "a", 5000), 0);
	throttle_fail(t, "a", 5000);
	ck_assert_int_gt(throttle_wait_s(t, "a", 5000), 0);
	throttle_undo(t, "never seen");
	throttle_free(t);
}
END_TEST

START_TEST(test_bounded_table)
{
	/* 100,000 keys through 32 slots: no crash, and a hot key that keeps
	 * failing stays tracked. */
	struct throttle *t = throttle_new(32, 5, 60);
	char key[32];
	int64_t now = 1000000;

	for (int i = 0; i < 100000; i++) {
		snprintf(key, sizeof key, "k%d", i);
		throttle_fail(t, key, now + i);
		if (i % 7 == 0)
			throttle_fail(t, "hot", now + i);
	}
	ck_assert_int_gt(throttle_wait_s(t, "hot", now + 100000), 0);
	throttle_free(t);
}
END_TEST

static Suite *throttle_suite(void)
{
	Suite *s = suite_create("throttle");
	TCase *tc = tcase_create("counters");
	tcase_add_test(tc, test_limit_and_window);
	tcase_add_test(tc, test_take);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_undo);
	tcase_add_test(tc, test_bounded_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(throttle_suite()));
}
