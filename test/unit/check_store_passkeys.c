/* issue30.passkey.2: the passkeys area (store_passkeys.h) on both backends:
 * add, list, find, the single-use count move, removal, the user record's
 * second_factors and the administrator's reset. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_conform.h"
#include "store_factors.h"
#include "store_passkeys.h"
#include "store_users.h"

/* The user's second_factors, as JSON text. */
static char *second_factors(const char *user_id)
{
	char *out = NULL, *sf;
	json_t *j;

	store_user_get(cf.st, cf.p.project_id, user_id, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	sf = json_dumps(json_object_get(j, "second_factors"), JSON_COMPACT);
	json_decref(j);
	free(out);
	return sf;
}

/* One store serves every test of a backend, each in a project of its own:
 * passkey and credential IDs, unique store-wide, are the project's. */
static const char *own(const char *s)
{
	static char buf[4][96];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof buf[0], "%s-%s", cf.p.project_id, s);
	return b;
}

static bool add(const char *id, const char *user_id, const char *cred, const char *name)
{
	struct store_passkey p = { .id = (char *)own(id), .user_id = (char *)user_id,
		                   .credential_id = (char *)own(cred), .public_key = "pQECAyYgASFYIA",
		                   .alg = -7, .sign_count = 3, .name = (char *)name };
	struct event ev = { &event_origin_cli, cf.p.project_id, EVENT_FACTOR_ENROLL, user_id, NULL };
	bool added = true;

	store_passkey_add(cf.st, &p, &ev, &added, DONE);
	ok();
	return added;
}

START_TEST(test_add_list_find)
{
	char *u = conform_user_new("Ann"), *v = conform_user_new("Ann"), *sf;
	struct store_passkey_list l;
	struct store_passkey p;
	bool found;

	sf = second_factors(u);
	ck_assert_str_eq(sf, "[]");
	free(sf);
	ck_assert(add("pk1", u, "cred-1", "Laptop"));
	ck_assert(add("pk2", u, "cred-2", "Phone"));
	ck_assert_msg(!add("pk3", v, "cred-1", "Stolen"),
	              "issue30.passkey.2: a credential ID registered to another user");
	sf = second_factors(u);
	ck_assert_msg(!strcmp(sf, "[\"passkey\"]"), "issue30.passkey.2: second_factors %s", sf);
	free(sf);
	store_passkey_list(cf.st, u, &l, DONE);
	ok();
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.items[0].name, "Laptop");
	ck_assert_str_eq(l.items[1].credential_id, own("cred-2"));
	ck_assert_int_eq(l.items[0].alg, -7);
	ck_assert_int_eq(l.items[0].sign_count, 3);
	ck_assert_int_eq(l.items[0].last_used_at, 0);
	ck_assert_int_gt(l.items[0].created_at, 0);
	store_passkey_list_release(&l);
	store_passkey_find(cf.st, own("cred-2"), &p, &found, DONE);
	ok();
	ck_assert(found);
	ck_assert_str_eq(p.id, own("pk2"));
	ck_assert_str_eq(p.user_id, u);
	store_passkey_release(&p);
	store_passkey_find(cf.st, own("cred-9"), &p, &found, DONE);
	ok();
	ck_assert(!found);
	free(u);
	free(v);
}
END_TEST

START_TEST(test_use_once)
{
	char *u = conform_user_new("Ann");
	struct event ev = { &event_origin_cli, cf.p.project_id, EVENT_FACTOR_USE, u, NULL };
	struct store_passkey p;
	bool won = false, found;

	ck_assert(add("pk1", u, "cred-1", "Laptop"));
	store_passkey_use(cf.st, own("pk1"), 3, 0, 4, &ev, &won, DONE);
	ok();
	ck_assert(won);
	store_passkey_use(cf.st, own("pk1"), 3, 0, 4, &ev, &won, DONE);
	ok();
	ck_assert_msg(!won, "issue30.passkey.2: the same assertion used twice");
	store_passkey_find(cf.st, own("cred-1"), &p, &found, DONE);
	ok();
	ck_assert_int_eq(p.sign_count, 4);
	ck_assert_int_gt(p.last_used_at, 0);
	/* a count that stays (0 here: 4 to 4 stands for it) is used once per
	 * last_used_at read */
	store_passkey_use(cf.st, own("pk1"), 4, p.last_used_at, 4, &ev, &won, DONE);
	ok();
	ck_assert(won);
	store_passkey_use(cf.st, own("pk1"), 4, p.last_used_at, 4, &ev, &won, DONE);
	ok();
	ck_assert_msg(!won, "issue30.6: two uses with one last_used_at read");
	store_passkey_release(&p);
	free(u);
}
END_TEST

START_TEST(test_remove_and_reset)
{
	char *u = conform_user_new("Ann"), *sf;
	struct event ev = { &event_origin_cli, cf.p.project_id, EVENT_FACTOR_REMOVE, u, NULL };
	struct store_passkey_list l;
	bool removed = false;

	ck_assert(add("pk1", u, "cred-1", "Laptop"));
	ck_assert(add("pk2", u, "cred-2", "Phone"));
	store_passkey_remove(cf.st, "someone-else", own("pk1"), &ev, &removed, DONE);
	ok();
	ck_assert_msg(!removed, "issue30.passkey.2: another user's passkey removed");
	store_passkey_remove(cf.st, u, own("pk1"), &ev, &removed, DONE);
	ok();
	ck_assert(removed);
	store_factors_reset(cf.st, &event_origin_cli, cf.p.project_id, u, NULL, DONE);
	ok();
	store_passkey_list(cf.st, u, &l, DONE);
	ok();
	ck_assert_msg(l.n == 0, "issue30.passkey.2: the reset left %zu passkeys", l.n);
	store_passkey_list_release(&l);
	sf = second_factors(u);
	ck_assert_str_eq(sf, "[]");
	free(sf);
	free(u);
}
END_TEST

START_TEST(test_bound)
{
	char *u = conform_user_new("Ann"), id[32], cred[32];

	for (int i = 0; i < PASSKEYS_PER_USER_MAX; i++) {
		snprintf(id, sizeof id, "pk%d", i);
		snprintf(cred, sizeof cred, "cred-%d", i);
		ck_assert(add(id, u, cred, "Key"));
	}
	ck_assert_msg(!add("pk-over", u, "cred-over", "Key"),
	              "issue30.passkey.2: more than PASSKEYS_PER_USER_MAX passkeys");
	free(u);
}
END_TEST

/* A confirmed TOTP factor (sealed "sealed", last step 9) and the
 * recovery codes of hashes. */
static void totp_and_codes(const char *user_id, const char *hashes)
{
	bool begun = false, won = false;

	store_totp_begin(cf.st, user_id, "sealed", &begun, DONE);
	ok();
	store_totp_use(cf.st, user_id, 9, true, NULL, &won, DONE);
	ok();
	ck_assert(begun && won);
	store_recovery_set(cf.st, user_id, hashes, NULL, DONE);
	ok();
}

/* issue30.6: what a password sign-in reads of its user's factors, in one
 * read: none, then a TOTP factor, two passkeys (oldest first) and the
 * recovery codes left. */
START_TEST(test_signin_factors)
{
	char *u = conform_user_new("Ann");
	struct store_signin_factors f;
	bool won = false;

	store_signin_factors(cf.st, u, &f, DONE);
	ok();
	ck_assert(!f.totp.found);
	ck_assert_uint_eq(f.passkeys.n, 0);
	ck_assert_int_eq(f.recovery_left, 0);
	store_signin_factors_release(&f);
	ck_assert(add("pk1", u, "cred-1", "Laptop"));
	ck_assert(add("pk2", u, "cred-2", "Phone"));
	totp_and_codes(u, "h1 h2 h3");
	store_recovery_use(cf.st, u, "h2", 3, NULL, &won, DONE);
	ok();
	store_signin_factors(cf.st, u, &f, DONE);
	ok();
	ck_assert(f.totp.found && f.totp.confirmed);
	ck_assert_str_eq(f.totp.sealed, "sealed");
	ck_assert_int_eq(f.totp.last_step, 9);
	ck_assert_uint_eq(f.passkeys.n, 2);
	ck_assert_str_eq(f.passkeys.items[0].name, "Laptop");
	ck_assert_str_eq(f.passkeys.items[1].credential_id, own("cred-2"));
	ck_assert_int_eq(f.passkeys.items[1].sign_count, 3);
	ck_assert_int_eq(f.recovery_left, 2);
	store_signin_factors_release(&f);
	free(u);
}
END_TEST

static long long codes_left(const char *user_id)
{
	long long n = -1;

	store_recovery_count(cf.st, user_id, &n, DONE);
	ok();
	return n;
}

/* issue30.6: recovery codes stay while any second factor does: the removal
 * of TOTP keeps them beside a passkey, the last passkey's takes them. */
START_TEST(test_codes_kept)
{
	char *u = conform_user_new("Ann");
	struct event ev = { &event_origin_cli, cf.p.project_id, EVENT_FACTOR_REMOVE, u, NULL };
	bool won = false, done = false;

	ck_assert(add("pk1", u, "cred-1", "Laptop"));
	totp_and_codes(u, "h1 h2");
	store_totp_remove(cf.st, u, &ev, &done, DONE);
	ok();
	ck_assert(done);
	ck_assert_msg(codes_left(u) == 2, "issue30.6: the codes went with TOTP beside a passkey");
	store_recovery_use(cf.st, u, "h1", 2, NULL, &won, DONE);
	ok();
	ck_assert_msg(won, "issue30.6: a code of a user with a passkey alone");
	store_passkey_remove(cf.st, u, own("pk1"), &ev, &done, DONE);
	ok();
	ck_assert(done);
	ck_assert_msg(codes_left(u) == 0, "issue30.6: the codes outlived the last factor");
	free(u);
}
END_TEST

static void add_cases(TCase *tc)
{
	tcase_add_test(tc, test_signin_factors);
	tcase_add_test(tc, test_codes_kept);
	tcase_add_test(tc, test_add_list_find);
	tcase_add_test(tc, test_use_once);
	tcase_add_test(tc, test_remove_and_reset);
	tcase_add_test(tc, test_bound);
}

int main(void)
{
	return conform_run(conform_suite("store_passkeys", add_cases));
}
