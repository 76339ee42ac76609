/*
 * The access rule (access_rules.h, issue 31): [] lets everyone in, a list
 * only its roles; a list that cannot be read, or no client, lets no one in.
 */
#include <check.h>
#include <stdlib.h>

#include "access_rules.h"

static const struct {
	const char *allowed;
	const char *role_id;
	bool allows;
} cases[] = {
	{ "[]", "r1", true },
	{ "[]", NULL, true },
	{ "[\"r1\"]", "r1", true },
	{ "[\"r0\",\"r1\"]", "r1", true },
	{ "[\"r1\"]", "r2", false },
	{ "[\"r1\"]", NULL, false },
	{ "[\"r1\"]", "", false },
	{ NULL, "r1", false },            /* no such client */
	{ "{}", "r1", false },            /* not an array: another program wrote it */
	{ "not json", "r1", false },
	{ "[1]", "1", false },
	{ "[\"r1\"", "r1", false },
};

START_TEST(test_allows)
{
	ck_assert_msg(access_rule_allows(cases[_i].allowed, cases[_i].role_id) == cases[_i].allows,
	              "issue31.1: %s for %s", cases[_i].allowed ? cases[_i].allowed : "NULL",
	              cases[_i].role_id ? cases[_i].role_id : "NULL");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("access_rules");
	TCase *tc = tcase_create("rule");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_allows, 0, sizeof cases / sizeof cases[0]);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
