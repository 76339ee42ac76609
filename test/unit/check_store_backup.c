/*
 * Backup, restore and invalidate-all (store_backup.c, store_invalidate_all):
 * what invalidation writes (every project's tokens_valid_after, every open
 * session ended, which revokes its sign-in), the lock that keeps a restore
 * and a server apart, and the files a backup and a restore leave.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "store.h"
#include "store_backup.h"
#include "store_projects.h"
#include "util.h"

static struct {
	char dir[64];
	char db[96], copy[96];
	struct store *st;
	struct new_project p;
	struct api_error err;
	char errbuf[512];
} fx;

#define value(...) check_query_int(sqlite_of(fx.st)->db, __VA_ARGS__)

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_store_backup.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.db, sizeof fx.db, "%s/e.db", fx.dir);
	snprintf(fx.copy, sizeof fx.copy, "%s/copy.db", fx.dir);
	fx.st = store_open(fx.db, false, fx.errbuf, sizeof fx.errbuf);
	ck_assert_msg(fx.st != NULL, "%s", fx.errbuf);
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &fx.err), 0);
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
	          " VALUES ('u1', %Q, 'U', 1, 1);"
	          "INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,"
	          " expires_at) VALUES ('s1', 'h1', %Q, 'u1', 1, 1, 9e15),"
	          " ('s2', 'h2', %Q, 'u1', 1, 1, 9e15);"
	          "UPDATE sessions SET ended_at = 5 WHERE id = 's2';"
	          "INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id,"
	          " access_jti, access_exp, created_at, expires_at, session_id) VALUES ('t1', 'f1',"
	          " %Q, %Q, 'u1', 'jti-1', 9e12, 1, 9e15, 's1');",
	          fx.p.project_id, fx.p.project_id, fx.p.project_id, fx.p.project_id, fx.p.client_id);
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf %s", fx.dir);

	store_new_project_release(&fx.p);
	store_close(fx.st);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

START_TEST(test_invalidate_all)
{
	ck_assert_int_eq(store_invalidate_all(fx.st, 1000000, &fx.err), 0);
	ck_assert_int_eq(value("SELECT tokens_valid_after FROM projects"), 1000000);
	ck_assert_int_eq(value("SELECT ended_at FROM sessions WHERE id = 's1'"), 1000000);
	ck_assert_int_eq(value("SELECT ended_at FROM sessions WHERE id = 's2'"), 5);   /* kept */
	/* the session's end revoked its sign-in (schema/008) */
	ck_assert_int_eq(value("SELECT revoked_at FROM refresh_tokens WHERE hash = 't1'"), 1000000);
	ck_assert_int_eq(value("SELECT count(*) FROM revoked_tokens WHERE jti = 'jti-1'"), 1);
	/* it never moves back */
	ck_assert_int_eq(store_invalidate_all(fx.st, 500, &fx.err), 0);
	ck_assert_int_eq(value("SELECT tokens_valid_after FROM projects"), 1000000);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
}
END_TEST

/* A server's lock is shared; a restore's is exclusive; neither waits. */
START_TEST(test_lock)
{
	int a = store_lock(fx.db, false, fx.errbuf, sizeof fx.errbuf);
	int b = store_lock(fx.db, false, fx.errbuf, sizeof fx.errbuf);
	struct stat sb;
	char lock[128];

	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	ck_assert_int_eq(store_lock(fx.db, true, fx.errbuf, sizeof fx.errbuf), -1);
	ck_assert_ptr_nonnull(strstr(fx.errbuf, "server is running"));
	close(a);
	close(b);
	a = store_lock(fx.db, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(store_lock(fx.db, false, fx.errbuf, sizeof fx.errbuf), -1);
	ck_assert_ptr_nonnull(strstr(fx.errbuf, "restore"));
	close(a);
	snprintf(lock, sizeof lock, "%s.lock", fx.db);
	ck_assert_int_eq(stat(lock, &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

START_TEST(test_backup_file)
{
	struct stat sb;

	ck_assert_msg(store_backup(fx.db, fx.copy, fx.errbuf, sizeof fx.errbuf) == 0, "%s",
	              fx.errbuf);
	ck_assert_int_eq(stat(fx.copy, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	/* never over a file, not even its own */
	ck_assert_int_eq(store_backup(fx.db, fx.copy, fx.errbuf, sizeof fx.errbuf), -1);
	ck_assert_ptr_nonnull(strstr(fx.errbuf, "exists"));
	ck_assert_int_eq(stat(fx.copy, &sb), 0);
	/* a store that is not there: nothing made */
	unlink(fx.copy);
	ck_assert_int_eq(store_backup("/nonexistent/e.db", fx.copy, fx.errbuf, sizeof fx.errbuf),
	                 -1);
	ck_assert_int_eq(access(fx.copy, F_OK), -1);
}
END_TEST

/* The restored store is the copy, invalidated at the restore's time. */
START_TEST(test_restore)
{
	char target[128];
	long long at = 0;
	struct store *r;

	ck_assert_int_eq(store_backup(fx.db, fx.copy, fx.errbuf, sizeof fx.errbuf), 0);
	snprintf(target, sizeof target, "%s/restored/e.db", fx.dir);   /* a new box: no store */
	ck_assert_msg(store_restore(target, false, fx.copy, &at, fx.errbuf, sizeof fx.errbuf) == 0,
	              "%s", fx.errbuf);
	ck_assert_int_gt(at, 0);
	ck_assert_int_gt(now_ms() / 1000, at / 1000);   /* its second is over */
	r = store_open(target, false, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_nonnull(r);
	store_close(fx.st);
	fx.st = r;
	ck_assert_int_eq(value("SELECT tokens_valid_after FROM projects"), at);
	ck_assert_int_eq(value("SELECT count(*) FROM sessions WHERE ended_at IS NULL"), 0);
	ck_assert_int_eq(value("SELECT count(*) FROM users WHERE id = 'u1'"), 1);
}
END_TEST

static Suite *store_backup_suite(void)
{
	Suite *s = suite_create("store_backup");
	TCase *tc = check_tcase("backup", setup, teardown);

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_invalidate_all);
	tcase_add_test(tc, test_lock);
	tcase_add_test(tc, test_backup_file);
	tcase_add_test(tc, test_restore);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_backup_suite()));
}
