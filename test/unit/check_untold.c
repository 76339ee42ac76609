/* Rotations whose outcome the client never learned (issue24.15): a noted
 * token is held for the window and no longer, other tokens are not, and
 * the table forgets the oldest once its slots are full. */
#include <check.h>
#include <stdio.h>

#include "check_suite.h"
#include "untold.h"

START_TEST(test_window)
{
	struct untold *u = untold_new();
	int64_t now = 1000000;

	ck_assert(!untold_holds(u, "h1", now));
	untold_note(u, "h1", now);
	ck_assert(untold_holds(u, "h1", now));
	ck_assert(untold_holds(u, "h1", now + UNTOLD_WINDOW_S * 1000LL));
	ck_assert(!untold_holds(u, "h1", now + UNTOLD_WINDOW_S * 1000LL + 1));
	ck_assert(!untold_holds(u, "h2", now));
	ck_assert(!untold_holds(NULL, "h1", now));
	untold_note(NULL, "h1", now);   /* no table: nothing to note */
	untold_free(u);
}
END_TEST

START_TEST(test_bounded)
{
	struct untold *u = untold_new();
	char h[32];

	for (int i = 0; i <= UNTOLD_SLOTS; i++) {
		snprintf(h, sizeof h, "h%d", i);
		untold_note(u, h, 5000);
	}
	ck_assert(!untold_holds(u, "h0", 5000));   /* the oldest went */
	ck_assert(untold_holds(u, "h1", 5000));
	snprintf(h, sizeof h, "h%d", UNTOLD_SLOTS);
	ck_assert(untold_holds(u, h, 5000));
	untold_free(u);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("untold");
	TCase *tc = tcase_create("untold");

	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_bounded);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
