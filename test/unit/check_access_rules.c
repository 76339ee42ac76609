/*
 * The access rule (access_rules.h, issue 31): [] lets everyone in, a list
 * only its roles; a list that cannot be read, or no client, lets no one in.
 * Consent (issue31.2): which scopes a consent covers, what an Allow
 * remembers, prompt=consent, and the consent page's form token.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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

static const struct {
	const char *consented, *scope;
	bool covers;
	const char *after_allow;
} consent_cases[] = {
	{ NULL, "openid", false, "openid" },
	{ NULL, NULL, false, "" },                       /* plain OAuth, never allowed */
	{ "", NULL, true, "" },                          /* plain OAuth, allowed */
	{ "", "openid", false, "openid" },
	{ "openid profile", "openid", true, "openid profile" },
	{ "openid profile", "profile openid", true, "openid profile" },
	{ "openid", "openid email", false, "openid email" },   /* a wider set */
	{ "openid email", "openid emai", false, "openid email emai" },   /* words, not prefixes */
	{ "openid", "openid  openid", true, "openid" },
};

START_TEST(test_consent_covers)
{
	char *u = consent_union(consent_cases[_i].consented, consent_cases[_i].scope);

	ck_assert_msg(consent_covers(consent_cases[_i].consented, consent_cases[_i].scope) ==
	              consent_cases[_i].covers, "issue31.2: covers, case %d", _i);
	ck_assert_str_eq(u, consent_cases[_i].after_allow);
	ck_assert(consent_covers(u, consent_cases[_i].scope));
	free(u);
}
END_TEST

START_TEST(test_consent_needed)
{
	struct store_access_facts f = { .consent_required = false };

	ck_assert(!consent_needed(&f, "openid", true));   /* a first-party app: never */
	f.consent_required = true;
	ck_assert(consent_needed(&f, "openid", false));
	f.consented = "openid";
	ck_assert(!consent_needed(&f, "openid", false));
	ck_assert(consent_needed(&f, "openid", true));   /* prompt=consent */
	ck_assert(consent_prompted("consent"));
	ck_assert(consent_prompted("login consent"));
	ck_assert(!consent_prompted("login"));
	ck_assert(!consent_prompted("consents"));
	ck_assert(!consent_prompted(NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("access_rules");
	TCase *tc = tcase_create("rule");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_allows, 0, sizeof cases / sizeof cases[0]);
	tcase_add_loop_test(tc, test_consent_covers, 0,
	                    sizeof consent_cases / sizeof consent_cases[0]);
	tcase_add_test(tc, test_consent_needed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
