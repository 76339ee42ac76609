/*
 * Codes and refresh tokens in the store (store_tokens.c): single use with
 * the successor in the same transaction, a family revoked whole (its access
 * tokens too), and the purge that keeps expired rows for a grace period.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_suite.h"
#include "store_projects.h"
#include "store.h"
#include "store_tokens.h"
#include "util.h"

static struct {
	char dir[64];
	char db[96];
	struct store *st;
	struct new_project p;
	char *user;
	struct store_token_row g;
	struct sync_result r;
	struct api_error err;
} fx;

static long long count(const char *fmt, ...)
{
	va_list ap;
	char *sql;
	sqlite3_stmt *s;
	long long n = -1;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_free(sql);
	return n;
}

static void setup(void)
{
	char errbuf[256];

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_store_tokens.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.db, sizeof fx.db, "%s/e.db", fx.dir);
	fx.st = store_open(fx.db, false, errbuf, sizeof errbuf);
	ck_assert_msg(fx.st != NULL, "%s", errbuf);
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &fx.err), 0);
	ck_assert_int_eq(sqlite3_exec(fx.st->db, "INSERT INTO users (id, project_id, display_name,"
	                              " created_at, updated_at) SELECT 'u1', id, 'U', 1, 1 FROM projects",
	                              NULL, NULL, NULL), SQLITE_OK);
}

static void teardown(void)
{
	store_token_row_release(&fx.g);
	store_new_project_release(&fx.p);
	ck_assert(sqlite3_get_autocommit(fx.st->db));
	store_close(fx.st);
	unlink(fx.db);
	rmdir(fx.dir);
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
	store_family_revoke(fx.st, "f", sync_completion(&fx.r));
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
	store_family_revoke(fx.st, "f", sync_completion(&fx.r));
	ok();
	store_family_revoke(fx.st, "none", sync_completion(&fx.r));
	ok();
	store_access_revoke(fx.st, "j9", time(NULL) + 60, sync_completion(&fx.r));
	ok();
	store_access_revoke(fx.st, "j9", time(NULL) + 60, sync_completion(&fx.r));
	ok();
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'j9'"), 1);
}
END_TEST

/* Expired codes and refresh tokens stay for the grace period (they still
 * answer *_expired and a replay is still seen), then go; a revocation entry
 * goes when its access token has expired. */
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
	ck_assert_int_eq(sqlite3_exec(fx.st->db, "INSERT INTO revoked_tokens VALUES ('gone', 1),"
	                              " ('kept', 9999999999)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_purge_expired(fx.st, 100, 5000, &fx.err), 3);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_old'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_recent'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM auth_codes WHERE hash = 'c_live'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'old'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM refresh_tokens WHERE hash = 'recent'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'gone'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM revoked_tokens WHERE jti = 'kept'"), 1);
	/* a batch bounds each table's deletions */
	ck_assert_int_eq(store_purge_expired(fx.st, 1, 0, &fx.err), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_tokens");
	TCase *tc = check_tcase("tokens", setup, teardown);

	tcase_add_test(tc, test_code_single_use);
	tcase_add_test(tc, test_refresh_rotate);
	tcase_add_test(tc, test_purge_grace);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
