/*
 * issue30.4: second factors' rules (factors.c) over a real key ring: a TOTP
 * secret sealed for its user only, a code checked against it, and the
 * value that binds a sign-in's second step to its first: of its project,
 * its request and its time only, and never readable without the key.
 */
#include <check.h>
#include "sqlite_store.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "factors.h"
#include "keyring.h"
#include "passkey_auth.h"
#include "crypto.h"
#include "store.h"
#include "store_factors.h"
#include "store_projects.h"
#include "totp.h"

/* the store and key ring of keyring_fixture.h, and setup_user's project
 * and user */
static struct keyring_fixture kf;
static struct {
	struct store *st;
	struct keyring *ring;
	struct new_project p;
	char *user;
} fx;

#define sql_text(...) check_sql_text(sqlite_of(fx.st)->db, __VA_ARGS__)

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	keyring_fixture_open(&kf, "check_factors");
	fx.st = kf.st;
	fx.ring = kf.ring;
}

/* A project and a user of it, for the store's operations. */
static void setup_user(void)
{
	struct api_error err;

	setup();
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &err), 0);
	fx.user = crypto_new_id();
	check_sql(sqlite_of(fx.st)->db, "INSERT INTO users (id, project_id, display_name, email,"
	          " password_hash, created_at, updated_at) VALUES (%Q, %Q, 'u', 'u@x', 'x', 1, 1)",
	          fx.user, fx.p.project_id);
}

static void teardown(void)
{
	store_new_project_release(&fx.p);
	free(fx.user);
	keyring_fixture_close(&kf);
}

static const unsigned char seed[] = "12345678901234567890";

START_TEST(test_totp_sealed_for_its_user)
{
	char *sealed = factor_totp_seal(fx.ring, "u1", seed, 20);
	char code[TOTP_DIGITS + 1];
	int64_t now = 1234567890;

	totp_code(seed, 20, totp_step(now), code);
	ck_assert_ptr_null(strstr(sealed, "MTIzNDU2"));   /* not the seed in base64 */
	ck_assert_int_eq(factor_totp_check(fx.ring, "u1", sealed, code, now, 0), totp_step(now));
	ck_assert_int_eq(factor_totp_check(fx.ring, "u2", sealed, code, now, 0), -1);
	ck_assert_int_eq(factor_totp_check(fx.ring, "u1", sealed, code, now, totp_step(now)), -1);
	ck_assert_int_eq(factor_totp_check(fx.ring, "u1", "garbage", code, now, 0), -1);
	ck_assert_int_eq(factor_totp_check(fx.ring, "u1", NULL, code, now, 0), -1);
	free(sealed);
}
END_TEST

static char *pending_for(const char *project, int64_t expires_at)
{
	struct factor_pending p = { .user_id = "u1", .email = "Rita@Example.com", .last_step = 41,
	                            .recovery_left = 7, .passkey_used_at = 5,
	                            .expires_at = expires_at };

	factor_binding("c1", "https://app/cb", "chal", "openid", NULL, p.binding);
	return factor_pending_seal(fx.ring, project, &p);
}

START_TEST(test_pending_round_trip)
{
	char *text = pending_for("p1", 2000), want[SECRET_HASH_LEN + 1];
	struct factor_pending out;

	ck_assert_ptr_null(strstr(text, "Rita"));
	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", text, 1999, &out), 0);
	ck_assert_str_eq(out.user_id, "u1");
	ck_assert_str_eq(out.email, "Rita@Example.com");
	ck_assert_int_eq(out.last_step, 41);
	ck_assert_int_eq(out.recovery_left, 7);
	ck_assert_int_eq(out.passkey_used_at, 5);
	ck_assert_int_eq(out.expires_at, 2000);
	factor_binding("c1", "https://app/cb", "chal", "openid", NULL, want);
	ck_assert_str_eq(out.binding, want);
	factor_binding("c1", "https://app/cb", "other", "openid", NULL, want);
	ck_assert_str_ne(out.binding, want);
	factor_pending_release(&out);
	free(text);
}
END_TEST

/* expired, another project's, tampered, not ours at all */
START_TEST(test_pending_refused)
{
	char *text = pending_for("p1", 2000);
	struct factor_pending out;

	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", text, 2000, &out), -1);
	ck_assert_ptr_null(out.user_id);
	ck_assert_int_eq(factor_pending_open(fx.ring, "p2", text, 1000, &out), -1);
	text[10] = text[10] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", text, 1000, &out), -1);
	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", "", 1000, &out), -1);
	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", "%%%", 1000, &out), -1);
	ck_assert_int_eq(factor_pending_open(fx.ring, "p1", NULL, 1000, &out), -1);
	free(text);
}
END_TEST

/* issue30.passkey.6: a passkey alone's value (passkey_auth.h): of its
 * project, its request and its time only; the userHandle compared as the
 * registration's user.id (the user's ID as bytes) */
START_TEST(test_passkey_alone_value)
{
	char want[SECRET_HASH_LEN + 1], got[SECRET_HASH_LEN + 1], *text;
	char challenge[SECRET_HASH_LEN + 1], other[SECRET_HASH_LEN + 1];
	int64_t issued = 0;

	factor_binding("c1", "https://app/cb", "chal", "openid", NULL, want);
	text = passkey_alone_seal(fx.ring, "p1", want, 1000);
	ck_assert_int_eq(passkey_alone_open(fx.ring, "p1", text, 1000 + PASSKEY_ALONE_TTL_S * 1000 - 1,
	                                    got, &issued), 0);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(issued, 1000);
	ck_assert_int_eq(passkey_alone_open(fx.ring, "p1", text, 1000 + PASSKEY_ALONE_TTL_S * 1000,
	                                    got, &issued), -1);
	ck_assert_int_eq(passkey_alone_open(fx.ring, "p2", text, 1000, got, &issued), -1);
	/* a second step's value is not one, nor is this one a second step's */
	ck_assert_int_eq(passkey_alone_open(fx.ring, "p1", "", 1000, got, &issued), -1);
	{
		char *pending = pending_for("p1", 2000);
		struct factor_pending out;

		ck_assert_int_eq(passkey_alone_open(fx.ring, "p1", pending, 1000, got, &issued), -1);
		ck_assert_int_eq(factor_pending_open(fx.ring, "p1", text, 1000, &out), -1);
		free(pending);
	}
	/* its challenge is the value's own */
	passkey_signin_challenge(text, challenge);
	text[10] = text[10] == 'A' ? 'B' : 'A';
	passkey_signin_challenge(text, other);
	ck_assert_str_ne(challenge, other);
	ck_assert_int_eq(passkey_alone_open(fx.ring, "p1", text, 1000, got, &issued), -1);
	free(text);

	ck_assert(passkey_user_handle_is("dTE", "u1"));          /* base64url of "u1" */
	ck_assert(!passkey_user_handle_is("dTI", "u1"));
	ck_assert(!passkey_user_handle_is("dTEx", "u1"));        /* "u11" */
	ck_assert(!passkey_user_handle_is("", "u1"));
	ck_assert(!passkey_user_handle_is(NULL, "u1"));
	ck_assert(!passkey_user_handle_is("%%%", "u1"));
}
END_TEST

/* the enrollment step's value (docs/signin.md "Second factors"): round trip;
 * expired, another project's, tampered, and a second step's value refused */
START_TEST(test_enroll_value)
{
	struct factor_enroll e = { .user_id = "u1", .email = "Rita@Example.com", .expires_at = 2000 };
	struct factor_enroll out;
	char *text, *pending = pending_for("p1", 2000);

	factor_binding("c1", "https://app/cb", "chal", "openid", NULL, e.binding);
	crypto_hash_secret("sealed", 6, e.secret_hash);
	text = factor_enroll_seal(fx.ring, "p1", &e);
	ck_assert_ptr_null(strstr(text, "Rita"));
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p1", text, 1999, &out), 0);
	ck_assert_str_eq(out.user_id, "u1");
	ck_assert_str_eq(out.email, "Rita@Example.com");
	ck_assert_str_eq(out.secret_hash, e.secret_hash);
	ck_assert_str_eq(out.binding, e.binding);
	ck_assert_int_eq(out.expires_at, 2000);
	factor_enroll_release(&out);
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p1", text, 2000, &out), -1);
	ck_assert_ptr_null(out.user_id);
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p2", text, 1000, &out), -1);
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p1", pending, 1000, &out), -1);
	{
		struct factor_pending p;   /* nor is it a second step's */
		ck_assert_int_eq(factor_pending_open(fx.ring, "p1", text, 1000, &p), -1);
	}
	text[10] = text[10] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p1", text, 1000, &out), -1);
	ck_assert_int_eq(factor_enroll_open(fx.ring, "p1", NULL, 1000, &out), -1);
	free(text);
	free(pending);
}
END_TEST

/* the head every request-bound token shares: a binding, then the expiry */
START_TEST(test_binding_open)
{
	char want[SECRET_HASH_LEN + 1], *fields[3], *plain, *text;

	factor_binding("c1", "https://app/cb", "chal", "openid", NULL, want);
	text = keyring_seal_fields(fx.ring, "aad", "%s\n%d\n%s", want, 2000, "rest");
	ck_assert_ptr_null(factor_binding_open(fx.ring, "aad", text, 2000, fields, 3));
	ck_assert_ptr_null(factor_binding_open(fx.ring, "other", text, 1999, fields, 3));
	ck_assert_ptr_null(factor_binding_open(fx.ring, "aad", text, 1999, fields, 2));
	plain = factor_binding_open(fx.ring, "aad", text, 1999, fields, 3);
	ck_assert_ptr_nonnull(plain);
	ck_assert_str_eq(fields[0], want);
	ck_assert_str_eq(fields[1], "2000");
	ck_assert_str_eq(fields[2], "rest");
	crypto_free_wiped(plain);
	free(text);
	/* a binding that is not a hash; a field that brought a newline of its own */
	text = keyring_seal_fields(fx.ring, "aad", "%s\n%d\n%s", "short", 2000, "rest");
	ck_assert_ptr_null(factor_binding_open(fx.ring, "aad", text, 1999, fields, 3));
	free(text);
	text = keyring_seal_fields(fx.ring, "aad", "%s\n%d\n%s", want, 2000, "re\nst");
	ck_assert_ptr_null(factor_binding_open(fx.ring, "aad", text, 1999, fields, 3));
	free(text);
}
END_TEST

static bool use(int64_t step, bool confirm)
{
	const struct event ev = { &event_origin_cli, fx.p.project_id, EVENT_FACTOR_USE, fx.user,
	                          NULL };
	struct sync_result r;
	struct api_error err;
	bool won = true;

	store_totp_use(fx.st, fx.user, step, confirm, &ev, &won, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	return won;
}

/* issue30.2: an enrollment waits for its first code, which confirms it; a
 * step is accepted once and only forward; a confirmed factor stays until
 * removed. */
START_TEST(test_store_totp)
{
	struct store_totp_row row = { 0 };
	struct sync_result r;
	struct api_error err;
	bool done = false;

	store_totp_begin(fx.st, fx.user, "sealed-1", &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(done);
	store_totp_get(fx.st, fx.user, &row, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(row.found && !row.confirmed && row.last_step == 0);
	ck_assert_str_eq(row.sealed, "sealed-1");
	store_totp_row_release(&row);
	ck_assert(!use(10, false));   /* not confirmed: no sign-in */
	ck_assert(use(10, true));
	ck_assert(!use(10, true));    /* confirmed already */
	ck_assert(!use(10, false));   /* the replay */
	ck_assert(!use(9, false));
	ck_assert(use(11, false));
	ck_assert_str_eq(sql_text("SELECT count(*) FROM events WHERE action = 'factor.use'"), "2");
	store_totp_begin(fx.st, fx.user, "sealed-2", &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(!done);             /* a confirmed factor stays */
	store_totp_get(fx.st, fx.user, &row, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(row.confirmed && row.last_step == 11);
	ck_assert_str_eq(row.sealed, "sealed-1");
	store_totp_row_release(&row);
	store_totp_remove(fx.st, fx.user, NULL, &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(done);
	store_totp_remove(fx.st, fx.user, NULL, &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(!done);
	store_totp_get(fx.st, fx.user, &row, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(!row.found);
}
END_TEST

/* issue30.6: a recovery code's form, and the hash of what a user types:
 * any case, dashes and blanks ignored; a TOTP code is no recovery code. */
START_TEST(test_recovery_code_form)
{
	char a[FACTOR_RECOVERY_TEXT], b[FACTOR_RECOVERY_TEXT], typed[FACTOR_RECOVERY_TEXT + 8];
	char h1[SECRET_HASH_LEN + 1], h2[SECRET_HASH_LEN + 1];

	factor_recovery_new(a);
	factor_recovery_new(b);
	ck_assert_uint_eq(strlen(a), FACTOR_RECOVERY_TEXT - 1);
	ck_assert_str_ne(a, b);
	ck_assert(a[4] == '-' && a[9] == '-');
	ck_assert_int_eq(factor_recovery_hash(a, h1), 0);
	for (size_t i = 0, o = 0; i <= strlen(a); i++)   /* upper case, no dashes, a blank */
		if (a[i] != '-')
			typed[o++] = (char)(a[i] >= 'a' && a[i] <= 'z' ? a[i] - 32 : a[i]);
	ck_assert_int_eq(factor_recovery_hash(typed, h2), 0);
	ck_assert_str_eq(h1, h2);
	ck_assert_int_eq(factor_recovery_hash("123456", h2), -1);
	ck_assert_int_eq(factor_recovery_hash("", h2), -1);
	a[0] = a[0] == 'a' ? 'b' : 'a';
	ck_assert_int_eq(factor_recovery_hash(a, h2), 0);
	ck_assert_str_ne(h1, h2);
	a[0] = '1';   /* not base32 */
	ck_assert_int_eq(factor_recovery_hash(a, h2), -1);
}
END_TEST

/* issue30.6: new codes void the old; each is spent once; the codes go
 * with the user's last confirmed factor. */
START_TEST(test_store_recovery)
{
	struct sync_result r;
	struct api_error err;
	long long n = -1;
	bool won = false, done = false;

	store_recovery_set(fx.st, fx.user, "h1 h2 h3", NULL, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	store_recovery_set(fx.st, fx.user, "h4 h5", NULL, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	store_recovery_count(fx.st, fx.user, &n, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert_int_eq(n, 2);
	store_recovery_use(fx.st, fx.user, "h1", 2, NULL, &won, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(!won);   /* voided */
	store_recovery_use(fx.st, fx.user, "h4", 2, NULL, &won, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(won);
	store_recovery_use(fx.st, fx.user, "h4", 1, NULL, &won, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(!won);   /* once */
	store_totp_begin(fx.st, fx.user, "sealed", &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert(use(10, true));
	store_totp_remove(fx.st, fx.user, NULL, &done, sync_completion(&r));
	ck_assert_int_eq(sync_wait(&r, &err), 0);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM recovery_codes"), "0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("factors");
	TCase *tc = check_tcase("factors", setup, teardown);

	/* each setup makes a key ring, whose RSA key takes seconds on a busy machine */
	tcase_set_timeout(tc, 120);

	tcase_add_test(tc, test_totp_sealed_for_its_user);
	tcase_add_test(tc, test_pending_round_trip);
	tcase_add_test(tc, test_pending_refused);
	tcase_add_test(tc, test_binding_open);
	tcase_add_test(tc, test_passkey_alone_value);
	tcase_add_test(tc, test_enroll_value);
	tcase_add_test(tc, test_recovery_code_form);
	suite_add_tcase(s, tc);
	tc = check_tcase("store", setup_user, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_store_totp);
	tcase_add_test(tc, test_store_recovery);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
