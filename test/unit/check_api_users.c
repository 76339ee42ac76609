/*
 * Unit tests for api_users.c's rules that need no socket: docs/signin.md §"Recent sign-in"'s
 * recent sign-in for account changes (users_current_recent_check), table
 * driven over the token's auth_time and what the body sets.
 */
#include <check.h>
#include <string.h>

#include "api_users.h"
#include "check_suite.h"

#define NOW 1800000000LL

static const struct {
	const char *desc;
	long long auth_time;          /* 0: the token has none */
	enum field_state password;    /* what the body's password was */
	bool refused;                 /* insufficient_permission */
	bool email_locked;
} cases[] = {
	{ "no auth_time, no password", 0, FIELD_ABSENT, false, true },
	{ "no auth_time, empty password", 0, FIELD_CLEAR, false, true },
	{ "no auth_time, a password", 0, FIELD_SET, true, true },
	{ "just now, a password", NOW, FIELD_SET, false, false },
	{ "300 s ago, a password", NOW - USERS_RECENT_SIGNIN_S, FIELD_SET, false, false },
	{ "301 s ago, a password", NOW - USERS_RECENT_SIGNIN_S - 1, FIELD_SET, true, true },
	{ "301 s ago, no password", NOW - USERS_RECENT_SIGNIN_S - 1, FIELD_ABSENT, false, true },
	{ "300 s ago, no password", NOW - USERS_RECENT_SIGNIN_S, FIELD_ABSENT, false, false },
	{ "a day ago, a password", NOW - 86400, FIELD_SET, true, true },
	{ "in the future (another clock)", NOW + 5, FIELD_SET, false, false },
	{ "negative auth_time", -1, FIELD_SET, true, true },
};

START_TEST(test_recent_signin)
{
	struct str_field password = { cases[_i].password,
	                              cases[_i].password == FIELD_SET ? "s3cret-value" : NULL };
	struct user_fields f;
	struct api_error err;
	int rc;

	memset(&f, 0, sizeof f);
	memset(&err, 0, sizeof err);
	rc = users_current_recent_check(cases[_i].auth_time, NOW, &password, &f, &err);
	ck_assert_msg(rc == (cases[_i].refused ? -1 : 0), "%s: %d", cases[_i].desc, rc);
	if (cases[_i].refused) {
		ck_assert_str_eq(err.code, "insufficient_permission");
		ck_assert_int_eq(err.status, 403);
		ck_assert_ptr_null(strstr(err.description, "s3cret"));   /* never echoed */
	}
	ck_assert_msg(f.email_locked == cases[_i].email_locked, "%s: email_locked %d", cases[_i].desc,
	              f.email_locked);
}
END_TEST

static Suite *api_users_suite(void)
{
	Suite *s = suite_create("api_users");
	TCase *tc = tcase_create("recent sign-in");

	tcase_add_loop_test(tc, test_recent_signin, 0, N_ELEMS(cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(api_users_suite()));
}
