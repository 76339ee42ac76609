/*
 * Codes and refresh tokens in the store (store_tokens.c): single use with
 * the successor in the same transaction, the refresh grace's single use of
 * a successor, a family revoked whole (its access tokens too), the purge
 * that keeps expired rows for a grace period, and the user's claims.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "store_projects.h"
#include "store.h"
#include "store_tokens.h"
#include "util.h"

static struct {
	char dir[64];
	struct store *st;
	struct new_project p;
	char *user;
	struct store_token_row g;
	struct sync_result r;
	struct api_error err;
} fx;

#define count(...) check_query_int(sqlite_of(fx.st)->db, __VA_ARGS__)

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_tokens", fx.dir);
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &fx.err), 0);
	ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db,
	                              "INSERT INTO users (id, project_id, display_name,"
	                              " created_at, updated_at) SELECT 'u1', id, 'U', 1, 1 FROM projects",
	                              NULL, NULL, NULL), SQLITE_OK);
}

static void teardown(void)
{
	store_token_row_release(&fx.g);
	store_new_project_release(&fx.p);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	check_store_remove(fx.st, fx.dir);
}

static void ok(void)
{
	ck_assert(fx.r.done);
	ck_assert_msg(!fx.r.failed, "%s", fx.r.err.description);
}

static void code(const char *hash, const char *family, int64_t expires_at)
{
	struct new_code c = {
		.hash = hash, .family_id = family, .project_id = fx.p.project_id,
		.client_id = fx.p.client_id, .user_id = "u1", .redirect_uri = "https://a/cb",
		.code_challenge = "c", .expires_at = expires_at,
	};

	store_code_insert(fx.st, &c, sync_completion(&fx.r));
	ok();
}

static struct new_refresh refresh(const char *hash, const char *family, const char *jti,
                                  int64_t expires_at)
{
	return (struct new_refresh){
		.hash = hash, .family_id = family, .project_id = fx.p.project_id,
		.client_id = fx.p.client_id, .user_id = "u1", .access_jti = jti,
		.access_exp_s = time(NULL) + 600, .expires_at = expires_at,
	};
}

/* Of two uses of one code, the first wins and stores its successor; the
 * second changes nothing. */
START_TEST(test_code_single_use)
{
	struct new_refresh r1 = refresh("r1", "f", "j1", now_ms() + 60000);
	struct new_refresh r2 = refresh("r2", "f", "j2", now_ms() + 60000);
	bool won = false;

	code("c1", "f", now_ms() + 60000);
	store_code_get(fx.st, "c1", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.found && !fx.g.used && !fx.g.predates_deactivation);
	ck_assert_str_eq(fx.g.family_id, "f");
	store_code_redeem(fx.st, "c1", &r1, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_code_redeem(fx.st, "c1", &r2, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens"), 1);
	store_token_row_release(&fx.g);
	store_code_get(fx.st, "c1", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.used);
	store_token_row_release(&fx.g);
	store_code_get(fx.st, "nope", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(!fx.g.found);
}
END_TEST

/* A rotation uses the token once; a revoked token cannot be used. */
START_TEST(test_refresh_rotate)
{
	struct new_refresh r1 = refresh("r1", "f", "j1", now_ms() + 60000);
	struct new_refresh r2 = refresh("r2", "f", "j2", now_ms() + 60000);
	struct new_refresh r3 = refresh("r3", "f", "j3", now_ms() + 60000);
	bool won = false;

	code("c1", "f", now_ms() + 60000);
	store_code_redeem(fx.st, "c1", &r1, &won, sync_completion(&fx.r));
	ok();
	store_refresh_rotate(fx.st, "r1", &r2, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_refresh_rotate(fx.st, "r1", &r3, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	store_refresh_get(fx.st, "r1", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.found && fx.g.used && !fx.g.revoked);
	store_token_row_release(&fx.g);
	/* the family is revoked whole: its refresh tokens, and the access
	 * tokens issued with them */
	store_family_revoke(fx.st, "f", NULL, sync_completion(&fx.r));
	ok();
	store_refresh_get(fx.st, "r2", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.revoked && !fx.g.used);
	store_refresh_rotate(fx.st, "r2", &r3, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti IN ('j1', 'j2')"), 2);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE revoked_at IS NULL"), 0);
	/* revoking again, and an unknown family, are no error */
	store_family_revoke(fx.st, "f", NULL, sync_completion(&fx.r));
	ok();
	store_family_revoke(fx.st, "none", NULL, sync_completion(&fx.r));
	ok();
	store_access_revoke(fx.st, "j9", time(NULL) + 60, NULL, sync_completion(&fx.r));
	ok();
	store_access_revoke(fx.st, "j9", time(NULL) + 60, NULL, sync_completion(&fx.r));
	ok();
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'j9'"), 1);
}
END_TEST

/* Expired codes and refresh tokens stay for the grace period (they still
 * answer *_expired and a replay is still seen), then go; so does a
 * revocation entry after its access token's expiry (issue24.13: it must
 * outlive the token should the clock go back). */
START_TEST(test_purge_grace)
{
	int64_t now = now_ms();
	struct new_refresh old = refresh("old", "f1", "j1", now - 10000);
	struct new_refresh recent = refresh("recent", "f2", "j2", now - 1000);
	bool won;

	code("c_old", "f1", now - 10000);
	code("c_recent", "f2", now - 1000);
	code("c_live", "f3", now + 60000);
	code("c_x", "f1", now + 60000);
	store_code_redeem(fx.st, "c_x", &old, &won, sync_completion(&fx.r));
	ok();
	code("c_y", "f2", now + 60000);
	store_code_redeem(fx.st, "c_y", &recent, &won, sync_completion(&fx.r));
	ok();
	char sql[160];

	snprintf(sql, sizeof sql, "INSERT INTO revoked_tokens VALUES ('gone', 1),"
	         " ('kept', 9999999999), ('graced', %lld)", (long long)(now / 1000 - 2));
	ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db, sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_purge_expired(fx.st, 100, now, 5000, &fx.err), 3);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_old'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_recent'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_live'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'old'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'recent'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'gone'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'kept'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'graced'"), 1);
	/* a batch bounds each table's deletions */
	ck_assert_int_eq(store_purge_expired(fx.st, 1, now, 0, &fx.err), 3);
}
END_TEST

/* A sign-in's OpenID Connect side goes with its code, then with every
 * refresh token of the sign-in (the nonce with the code alone). */
START_TEST(test_oidc_side_travels)
{
	struct new_code c = {
		.hash = "c1", .family_id = "f", .project_id = fx.p.project_id,
		.client_id = fx.p.client_id, .user_id = "u1", .redirect_uri = "https://a/cb",
		.code_challenge = "c", .expires_at = now_ms() + 60000, .scope = "openid email",
		.nonce = "n-0S6", .auth_time = 1234567, .session_id = "sid-1",
	};
	struct new_refresh r = refresh("r1", "f", "j1", now_ms() + 60000);
	bool won;

	store_code_insert(fx.st, &c, sync_completion(&fx.r));
	ok();
	store_code_get(fx.st, "c1", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert_str_eq(fx.g.scope, "openid email");
	ck_assert_str_eq(fx.g.nonce, "n-0S6");
	ck_assert_int_eq(fx.g.auth_time, 1234567);
	ck_assert_str_eq(fx.g.session_id, "sid-1");
	r.scope = fx.g.scope;
	r.auth_time = fx.g.auth_time;
	r.session_id = fx.g.session_id;
	store_code_redeem(fx.st, "c1", &r, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_token_row_release(&fx.g);
	store_refresh_get(fx.st, "r1", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert_str_eq(fx.g.scope, "openid email");
	ck_assert_ptr_null(fx.g.nonce);
	ck_assert_int_eq(fx.g.auth_time, 1234567);
	ck_assert_str_eq(fx.g.session_id, "sid-1");
}
END_TEST

static void exec(const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_exec(sqlite_of(fx.st)->db, sql, NULL, NULL, NULL) == SQLITE_OK,
	              "%s: %s", sql,
	              sqlite3_errmsg(sqlite_of(fx.st)->db));
	sqlite3_free(sql);
}

/* A session of u1 with a sign-in made through it at the admin client, which
 * has a back-channel URI; and a BYOU-style sign-in (no session) too. */
static void session_with_sign_ins(void)
{
	struct new_refresh in_session = refresh("rs", "fs", "js", now_ms() + 60000);
	struct new_refresh byou = refresh("rb", "fb", "jb", now_ms() + 60000);
	bool won;

	exec("UPDATE clients SET backchannel_logout_uri = 'https://rp/bc',"
	     " id_token_signed_response_alg = 'ES256' WHERE id = %Q", fx.p.client_id);
	exec("INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,"
	     " expires_at) VALUES ('sid1', 'h1', %Q, 'u1', 1, 1, %lld)", fx.p.project_id,
	     (long long)now_ms() + 60000);
	exec("INSERT INTO session_clients VALUES ('sid1', %Q)", fx.p.client_id);
	code("cs", "fs", now_ms() + 60000);
	in_session.session_id = "sid1";
	store_code_redeem(fx.st, "cs", &in_session, &won, sync_completion(&fx.r));
	ok();
	code("cb", "fb", now_ms() + 60000);
	store_code_redeem(fx.st, "cb", &byou, &won, sync_completion(&fx.r));
	ok();
}

/* schema/008's triggers: a session that ends revokes its sign-ins and
 * queues a logout token for each client of it with a back-channel URI. */
START_TEST(test_session_end_revokes_and_queues)
{
	session_with_sign_ins();
	exec("UPDATE sessions SET ended_at = 77 WHERE id = 'sid1'");
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'rs'"
	                       " AND revoked_at = 77"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'js'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'rb'"
	                       " AND revoked_at IS NULL"), 1);   /* not of the session */
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox WHERE client_id = %Q"
	                       " AND uri = 'https://rp/bc' AND alg = 'ES256' AND subject = 'u1'"
	                       " AND session_id = 'sid1' AND length(id) = 32", fx.p.client_id), 1);
	/* ending it again changes nothing */
	exec("UPDATE sessions SET ended_at = 99 WHERE id = 'sid1'");
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox"), 1);
}
END_TEST

/* A code of session sid at hash, not redeemed. */
static void session_code(const char *hash, const char *sid)
{
	struct new_code c = {
		.hash = hash, .family_id = hash, .project_id = fx.p.project_id,
		.client_id = fx.p.client_id, .user_id = "u1", .redirect_uri = "https://a/cb",
		.code_challenge = "c", .expires_at = now_ms() + 60000, .session_id = sid,
	};

	store_code_insert(fx.st, &c, sync_completion(&fx.r));
}

/* issue24.1: a session that ends makes its unredeemed codes unredeemable
 * (they read as revoked; schema/017 keeps the rows for the purge); a
 * redeemed one stays for its replay to be seen; a code whose session is
 * gone reads as revoked. */
START_TEST(test_session_end_drops_codes)
{
	session_with_sign_ins();
	session_code("cu", "sid1");
	ok();
	store_code_get(fx.st, "cu", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.found && !fx.g.revoked);
	exec("UPDATE sessions SET ended_at = 77 WHERE id = 'sid1'");
	store_token_row_release(&fx.g);
	store_code_get(fx.st, "cu", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.found && fx.g.revoked);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'cs'"), 1);
	session_code("cg", "gone");
	ok();
	store_token_row_release(&fx.g);
	store_code_get(fx.st, "cg", &fx.g, sync_completion(&fx.r));
	ok();
	ck_assert(fx.g.found && fx.g.revoked);
}
END_TEST

/* Deactivation ends the user's sessions, and tells the clients of their
 * sign-ins outside a session (BYOU) with no sid. */
START_TEST(test_user_deactivated_ends)
{
	session_with_sign_ins();
	exec("UPDATE users SET is_active = 0, updated_at = 55 WHERE id = 'u1'");
	ck_assert_int_eq(count("SELECT ended_at FROM sessions WHERE id = 'sid1'"), 55);
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox WHERE session_id = 'sid1'"),
	                 1);
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox WHERE session_id IS NULL"
	                       " AND subject = 'u1'"), 1);
}
END_TEST

START_TEST(test_password_change_ends)
{
	session_with_sign_ins();
	exec("UPDATE users SET display_name = 'V', updated_at = 5 WHERE id = 'u1'");
	ck_assert_int_eq(count("SELECT count(*) FROM sessions WHERE ended_at IS NULL"), 1);
	exec("UPDATE users SET password_hash = 'new', updated_at = 6 WHERE id = 'u1'");
	ck_assert_int_eq(count("SELECT ended_at FROM sessions WHERE id = 'sid1'"), 6);
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox"), 1);
}
END_TEST

/* Deleting the user ends its sessions before they cascade away: the
 * outbox keeps what back-channel logout needs. */
START_TEST(test_user_deleted_ends)
{
	session_with_sign_ins();
	exec("DELETE FROM users WHERE id = 'u1'");
	ck_assert_int_eq(count("SELECT count(*) FROM sessions"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'js'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM backchannel_outbox WHERE subject = 'u1'"), 2);
}
END_TEST

/* The refresh grace's write (docs/tokens.md §"Refresh grace"): a repeat of r1 within the
 * window takes back its unused successor r2 once, and stores r3; a second
 * repeat, one after the successor was used, or one outside the window
 * changes nothing. */
START_TEST(test_refresh_regrace)
{
	struct new_refresh r1 = refresh("r1", "f", "j1", now_ms() + 60000);
	struct new_refresh r2 = refresh("r2", "f", "j2", now_ms() + 60000);
	struct new_refresh r3 = refresh("r3", "f", "j3", now_ms() + 60000);
	struct new_refresh r4 = refresh("r4", "f", "j4", now_ms() + 60000);
	struct new_refresh r5 = refresh("r5", "f", "j5", now_ms() + 60000);
	struct new_refresh r6 = refresh("r6", "f", "j6", now_ms() + 60000);
	struct new_refresh r7 = refresh("r7", "f", "j7", now_ms() + 60000);
	struct new_refresh r8 = refresh("r8", "f", "j8", now_ms() + 60000);
	bool won = false;

	code("c1", "f", now_ms() + 60000);
	store_code_redeem(fx.st, "c1", &r1, &won, sync_completion(&fx.r));
	ok();
	/* not used yet: nothing to repeat */
	store_refresh_regrace(fx.st, "r1", now_ms() - 5000, &r3, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	store_refresh_rotate(fx.st, "r1", &r2, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'r1'"
	                       " AND successor_hash = 'r2'"), 1);
	/* outside the window */
	store_refresh_regrace(fx.st, "r1", now_ms() + 1, &r3, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	store_refresh_regrace(fx.st, "r1", now_ms() - 5000, &r3, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'r2'"
	                       " AND revoked_at IS NOT NULL AND used_at IS NULL"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'j2'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'r3'"
	                       " AND revoked_at IS NULL AND used_at IS NULL"), 1);
	/* a second repeat */
	store_refresh_regrace(fx.st, "r1", now_ms() - 5000, &r4, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	/* r2, taken back, cannot be used */
	store_refresh_rotate(fx.st, "r2", &r4, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	/* r3 rotated to r4, then repeated: it takes r4 back, and r4's use
	 * then loses (one row, one winner) */
	store_refresh_rotate(fx.st, "r3", &r4, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_refresh_regrace(fx.st, "r3", now_ms() - 5000, &r5, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_refresh_rotate(fx.st, "r4", &r2, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	/* r5 is the one unused, unrevoked token of the family */
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE family_id = 'f'"
	                       " AND used_at IS NULL AND revoked_at IS NULL"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'r5'"
	                       " AND used_at IS NULL AND revoked_at IS NULL"), 1);
	/* a repeat after the successor was used: r5 to r6, r6 to r7, r5 again */
	store_refresh_rotate(fx.st, "r5", &r6, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_refresh_rotate(fx.st, "r6", &r7, &won, sync_completion(&fx.r));
	ok();
	ck_assert(won);
	store_refresh_regrace(fx.st, "r5", now_ms() - 5000, &r8, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	/* a revoked family: no repeat */
	store_family_revoke(fx.st, "f", NULL, sync_completion(&fx.r));
	ok();
	store_refresh_regrace(fx.st, "r6", now_ms() - 5000, &r8, &won, sync_completion(&fx.r));
	ok();
	ck_assert(!won);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'r8'"), 0);
}
END_TEST

/* What an ID token says of a user: one statement, the role's code too. */
START_TEST(test_user_claims)
{
	struct user_claims u;

	exec("INSERT INTO roles (id, project_id, code, name, created_at, updated_at)"
	     " VALUES ('r1', %Q, 'clerk', 'Clerk', 1, 1)", fx.p.project_id);
	exec("UPDATE users SET email = 'a@example.com', email_verified = 0, avatar_url = 'https://i/a',"
	     " external_user_id = 'x-1', role_id = 'r1', updated_at = 4567 WHERE id = 'u1'");
	store_user_claims(fx.st, fx.p.project_id, "u1", &u, sync_completion(&fx.r));
	ok();
	ck_assert(u.found && u.is_active && !u.email_verified);
	ck_assert_str_eq(u.display_name, "U");
	ck_assert_str_eq(u.email, "a@example.com");
	ck_assert_str_eq(u.avatar_url, "https://i/a");
	ck_assert_str_eq(u.external_user_id, "x-1");
	ck_assert_str_eq(u.role_code, "clerk");
	ck_assert_int_eq(u.updated_at, 4567);
	user_claims_release(&u);
	exec("UPDATE users SET role_id = NULL, is_active = 0, email = NULL WHERE id = 'u1'");
	store_user_claims(fx.st, fx.p.project_id, "u1", &u, sync_completion(&fx.r));
	ok();
	ck_assert(u.found && !u.is_active);
	ck_assert_ptr_null(u.role_code);
	ck_assert_ptr_null(u.email);
	user_claims_release(&u);
	/* another project's, or none */
	store_user_claims(fx.st, "other-project", "u1", &u, sync_completion(&fx.r));
	ok();
	ck_assert(!u.found);
	user_claims_release(&u);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_tokens");
	TCase *tc = check_tcase("tokens", setup, teardown);

	tcase_add_test(tc, test_code_single_use);
	tcase_add_test(tc, test_refresh_rotate);
	tcase_add_test(tc, test_purge_grace);
	tcase_add_test(tc, test_oidc_side_travels);
	tcase_add_test(tc, test_session_end_revokes_and_queues);
	tcase_add_test(tc, test_session_end_drops_codes);
	tcase_add_test(tc, test_user_deactivated_ends);
	tcase_add_test(tc, test_password_change_ends);
	tcase_add_test(tc, test_user_deleted_ends);
	tcase_add_test(tc, test_refresh_regrace);
	tcase_add_test(tc, test_user_claims);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
