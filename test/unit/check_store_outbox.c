/*
 * The back-channel logout outbox in the store (store_outbox.c): rows come
 * oldest first, as many as asked, with a NULL sid kept NULL; a delete takes
 * several rows in one transaction, and a row already gone is no error.
 * Also the schema's side: ending a session queues a row per client of it
 * with a back-channel URI; and a batch says whether it may have queued
 * one, so that the outbox is read only then.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "store.h"
#include "store_outbox.h"
#include "store_projects.h"
#include "store_sessions.h"

static struct {
	char dir[64];
	struct store *st;
	struct new_project p;
	struct outbox_rows rows;
	struct api_error err;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_outbox", fx.dir);
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &fx.err), 0);
}

static void teardown(void)
{
	outbox_rows_release(&fx.rows);
	store_new_project_release(&fx.p);
	check_store_remove(fx.st, fx.dir);
}

/* The operations complete before they return on SQLite: 0, or -1. */
static int outbox_read(size_t limit)
{
	struct sync_result r;

	store_outbox_read(fx.st, limit, &fx.rows, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : 0;
}

static int outbox_delete(const char *const *ids, size_t n)
{
	struct sync_result r;

	store_outbox_delete(fx.st, ids, n, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : 0;
}

static void add_row(const char *id, long long created_at, const char *sid)
{
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject,"
	          " session_id, created_at) VALUES (%Q, 'c', 'http://a.example/bc', 'ES256', 'u',"
	          " %Q, %lld)", id, sid, created_at);
}

START_TEST(test_read_oldest_first)
{
	add_row("b", 2, "s2");
	add_row("c", 1, NULL);
	add_row("a", 2, "s1");
	ck_assert_int_eq(outbox_read(2), 0);
	ck_assert_uint_eq(fx.rows.count, 2);
	ck_assert_str_eq(fx.rows.rows[0].id, "c");
	ck_assert_ptr_null(fx.rows.rows[0].session_id);
	ck_assert_str_eq(fx.rows.rows[1].id, "a");   /* the same time: by ID */
	ck_assert_str_eq(fx.rows.rows[1].session_id, "s1");
	ck_assert_str_eq(fx.rows.rows[1].uri, "http://a.example/bc");
	ck_assert_str_eq(fx.rows.rows[1].alg, "ES256");
	ck_assert_str_eq(fx.rows.rows[1].client_id, "c");
	ck_assert_str_eq(fx.rows.rows[1].subject, "u");
	ck_assert_int_eq(fx.rows.rows[1].created_at, 2);
	outbox_rows_release(&fx.rows);
	ck_assert_int_eq(outbox_read(10), 0);
	ck_assert_uint_eq(fx.rows.count, 3);
}
END_TEST

START_TEST(test_delete)
{
	const char *ids[] = { "a", "gone", "c" };

	add_row("a", 1, NULL);
	add_row("b", 1, NULL);
	add_row("c", 1, NULL);
	ck_assert_int_eq(outbox_delete(ids, N_ELEMS(ids)), 0);
	ck_assert_int_eq(outbox_read(10), 0);
	ck_assert_uint_eq(fx.rows.count, 1);
	ck_assert_str_eq(fx.rows.rows[0].id, "b");
}
END_TEST

/* schema/008: a session's end queues its clients with a back-channel URI,
 * with the URI and algorithm of that moment and the session as sid. */
START_TEST(test_session_end_fills_outbox)
{
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO users (id, project_id, display_name, created_at,"
	          " updated_at) VALUES ('u1', %Q, 'U', 1, 1)", fx.p.project_id);
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO clients (id, project_id, name, secret_hash, created_at,"
	          " updated_at, backchannel_logout_uri) VALUES ('c1', %Q, 'a', 'x', 1, 1,"
	          " 'https://a.example/bc'), ('c2', %Q, 'b', 'x', 1, 1, NULL)", fx.p.project_id,
	          fx.p.project_id);
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time,"
	          " created_at, expires_at) VALUES ('s1', 'h', %Q, 'u1', 1, 1, 9)", fx.p.project_id);
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO session_clients VALUES ('s1', 'c1'), ('s1', 'c2')");
	check_sql(sqlite_of(fx.st)->db, "UPDATE sessions SET ended_at = 5 WHERE id = 's1'");
	ck_assert_int_eq(outbox_read(10), 0);
	ck_assert_uint_eq(fx.rows.count, 1);
	ck_assert_str_eq(fx.rows.rows[0].client_id, "c1");
	ck_assert_str_eq(fx.rows.rows[0].uri, "https://a.example/bc");
	ck_assert_str_eq(fx.rows.rows[0].alg, "RS256");
	ck_assert_str_eq(fx.rows.rows[0].subject, "u1");
	ck_assert_str_eq(fx.rows.rows[0].session_id, "s1");
	ck_assert_uint_eq(strlen(fx.rows.rows[0].id), 32);
}
END_TEST

static void batch_opened(void *arg)
{
	(void)arg;
}

/* Runs op in a batch of its own and commits it: whether the batch may have
 * queued a logout. */
static bool batch_queued_logouts(void (*op)(struct sync_result *r))
{
	struct sync_result r;

	op(&r);
	ck_assert(r.done && !r.failed);
	ck_assert(store_batch_open(fx.st));
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	return store_batch_queued_logouts(fx.st);
}

static void add_client(struct sync_result *r)
{
	store_session_add_client(fx.st, "s1", "c1", sync_completion(r));
}

static void end_session(struct sync_result *r)
{
	bool ended;

	store_session_end(fx.st, "s1", fx.p.project_id, NULL, NULL, &ended, sync_completion(r));
}

/* A statement that can queue a logout (through the triggers of schema/008)
 * makes its batch one to read the outbox after, even when it ended
 * nothing; a batch without one does not, nor does the next. */
START_TEST(test_batch_queued_logouts)
{
	store_batch_enable(fx.st, batch_opened, NULL);
	ck_assert(!batch_queued_logouts(add_client));
	ck_assert(batch_queued_logouts(end_session));
	ck_assert(!batch_queued_logouts(add_client));
}
END_TEST

static Suite *outbox_suite(void)
{
	Suite *s = suite_create("store_outbox");
	TCase *tc = check_tcase("outbox", setup, teardown);

	tcase_add_test(tc, test_read_oldest_first);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_session_end_fills_outbox);
	tcase_add_test(tc, test_batch_queued_logouts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(outbox_suite()));
}
