/*
 * Unit tests for pg.h, the PostgreSQL pool on the loop, against a real
 * server: a throw-away cluster (scripts/pg-cluster) started once for the
 * suite and removed after it; without PostgreSQL the suite fails, it never
 * skips. Each test opens a pool of its own on a fresh event base, submits
 * queries and runs the loop until every callback ran (or a deadline: a
 * failure). What is tested: the results of one pipelined batch reach their
 * own callbacks in submission order; a query that raises gets its error
 * while the others of its aborted batch go again and commit once; the
 * pool reconnects by itself after its connections were killed; a
 * notification on the channel, and the commit of a write, reach the
 * changed callback.
 */
#include <check.h>
#include <event2/event.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suite.h"
#include "pg.h"
#include "pq_lib.h"

#define QUERIES_MAX 64

static char cluster[64];

enum { S_ECHO, S_DIV, S_INSERT, S__COUNT };
static const struct pg_statement statements[S__COUNT] = {
	[S_ECHO] = { "t_echo", "SELECT $1::int", 1, false },
	[S_DIV] = { "t_div", "SELECT 100 / $1::int", 1, false },
	[S_INSERT] = { "t_insert", "INSERT INTO pool_rows VALUES ($1::int) RETURNING x", 1, true },
};
static const struct pg_statement *const statement_list[S__COUNT] = {
	&statements[S_ECHO], &statements[S_DIV], &statements[S_INSERT],
};

/* One test's loop, pool and the answers its callbacks saw. */
static struct {
	struct event_base *base;
	struct pg_pool *pool;
	int expected, answered;
	int order[QUERIES_MAX];          /* the query numbers, in the order answered */
	long long value[QUERIES_MAX];    /* column 0 of each query's row, by number */
	int status[QUERIES_MAX];         /* each query's error status (0 for none) */
	int changed;
} fx;

static void cluster_cmd(const char *cmd)
{
	char line[256];

	snprintf(line, sizeof line, "%s/scripts/pg-cluster %s %s >&2", SOURCE_DIR, cmd, cluster);
	ck_assert_msg(system(line) == 0, "scripts/pg-cluster %s failed (make deps installs "
	              "PostgreSQL)", cmd);
}

/* The suite's cluster (an unchecked fixture: once, in the runner). */
static void cluster_start(void)
{
	char *dir;

	snprintf(cluster, sizeof cluster, "/tmp/check_pg_pool.XXXXXX");
	dir = mkdtemp(cluster);
	ck_assert_ptr_nonnull(dir);
	rmdir(cluster);   /* pg-cluster makes it, for the server's user */
	cluster_cmd("start");
}

static void cluster_stop(void)
{
	cluster_cmd("stop");
}

/* A blocking connection of the test's own, beside the pool's. */
static PGconn *side_conn(void)
{
	char conninfo[160], errbuf[256];
	PGconn *c;

	ck_assert_msg(pq_lib_load(errbuf, sizeof errbuf) == 0, "%s", errbuf);
	snprintf(conninfo, sizeof conninfo, "host=%s user=edgeauth dbname=postgres"
	         " application_name=check", cluster);
	c = PQconnectdb(conninfo);
	ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
	return c;
}

/* Runs sql on a side connection (the test's own set-up or sabotage). */
static void side_sql(const char *sql)
{
	PGconn *c = side_conn();
	PGresult *r;

	r = PQexec(c, sql);
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
	              "%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

static void on_changed(void *arg)
{
	(void)arg;
	fx.changed++;
}

static void setup(void)
{
	char conninfo[160], errbuf[256];
	struct pg_pool_config cfg = { 0 };

	memset(&fx, 0, sizeof fx);
	side_sql("DROP TABLE IF EXISTS pool_rows; CREATE TABLE pool_rows (x int)");
	snprintf(conninfo, sizeof conninfo, "host=%s user=edgeauth dbname=postgres", cluster);
	cfg.conninfo = conninfo;
	cfg.size = 2;
	cfg.statements = statement_list;
	cfg.n_statements = S__COUNT;
	cfg.changed = on_changed;
	fx.base = event_base_new();
	fx.pool = pg_pool_open(&cfg, errbuf, sizeof errbuf);
	ck_assert_msg(fx.pool != NULL, "%s", errbuf);
	pg_pool_serve(fx.pool, fx.base);
}

static void teardown(void)
{
	pg_pool_free(fx.pool);
	event_base_free(fx.base);
}

static void on_done(void *arg, const PGresult *res, const struct api_error *err)
{
	int n = (int)(intptr_t)arg;

	ck_assert_int_lt(fx.answered, QUERIES_MAX);
	fx.order[fx.answered++] = n;
	if (err)
		fx.status[n] = err->status;
	else if (PQntuples(res) > 0)
		fx.value[n] = pg_int(res, 0, 0);
	if (fx.answered == fx.expected)
		event_base_loopbreak(fx.base);
}

/* Query n: statement which with the parameter v. */
static void submit(int n, int which, long long v)
{
	char param[24];

	snprintf(param, sizeof param, "%lld", v);
	fx.expected++;
	pg_query(fx.pool, &statements[which], (const char *const[]){ param }, on_done,
	         (void *)(intptr_t)n);
}

/* Runs the loop until every query submitted was answered, or ms passed. */
static void run_for(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	if (fx.answered < fx.expected) {
		event_base_loopexit(fx.base, &tv);
		event_base_dispatch(fx.base);
	}
	ck_assert_msg(fx.answered == fx.expected, "%d of %d queries answered", fx.answered,
	              fx.expected);
}

/* Runs the loop for ms, whatever comes. */
static void idle(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(fx.base, &tv);
	event_base_dispatch(fx.base);
}

/* Runs the loop until the pool listens (the test fails after 3 s). */
static void await_listening(void)
{
	for (int i = 0; i < 60 && !pg_pool_listening(fx.pool); i++)
		idle(50);
	ck_assert(pg_pool_listening(fx.pool));
}

/* The rows the pool's writes left. */
static long long side_count(void)
{
	PGconn *c = side_conn();
	PGresult *r;
	long long n;

	r = PQexec(c, "SELECT count(*) FROM pool_rows");
	ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
	n = pg_int(r, 0, 0);
	PQclear(r);
	PQfinish(c);
	return n;
}

START_TEST(test_pipelined_in_order)
{
	for (int i = 0; i < 40; i++)
		submit(i, S_ECHO, 1000 + i);
	run_for(10000);
	for (int i = 0; i < 40; i++) {
		ck_assert_int_eq(fx.order[i], i);
		ck_assert_int_eq(fx.value[i], 1000 + i);
		ck_assert_int_eq(fx.status[i], 0);
	}
}
END_TEST

START_TEST(test_aborted_batch)
{
	/* one tick: a write, a query that raises (division by zero), a write, a read */
	submit(0, S_INSERT, 1);
	submit(1, S_DIV, 0);
	submit(2, S_INSERT, 2);
	submit(3, S_DIV, 4);
	run_for(10000);
	ck_assert_int_eq(fx.status[1], 500);   /* a bug's system_error, not the store's 503 */
	ck_assert_int_eq(fx.status[0], 0);
	ck_assert_int_eq(fx.status[2], 0);
	ck_assert_int_eq(fx.status[3], 0);
	ck_assert_int_eq(fx.value[0], 1);
	ck_assert_int_eq(fx.value[2], 2);
	ck_assert_int_eq(fx.value[3], 25);
	/* the aborted batch committed nothing: the writes that went again, once */
	ck_assert_int_eq(side_count(), 2);
	ck_assert_int_ge(fx.changed, 1);   /* their commit moved the caches' stamp */
}
END_TEST

START_TEST(test_reconnects)
{
	int n = 0, first_ok = -1;

	submit(n, S_ECHO, n);
	n++;
	run_for(10000);
	ck_assert_int_eq(fx.status[0], 0);
	await_listening();
	side_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
	         " WHERE application_name LIKE 'edgeauth%'");
	/* queries during the outage answer at once, 503 or a result, never hang;
	 * within a few seconds the pool is back by itself */
	for (int round = 0; round < 40 && first_ok < 0; round++) {
		submit(n, S_ECHO, n);
		run_for(10000);
		if (!fx.status[n])
			first_ok = n;
		else
			ck_assert_int_eq(fx.status[n], 503);
		n++;
		idle(100);
	}
	ck_assert_msg(first_ok > 0, "no query succeeded after the connections were killed");
	ck_assert_int_eq(fx.value[first_ok], first_ok);
	await_listening();   /* the listener came back too */
}
END_TEST

START_TEST(test_notification_moves)
{
	submit(0, S_ECHO, 0);
	run_for(10000);
	await_listening();
	fx.changed = 0;
	side_sql("NOTIFY " PG_CHANNEL);
	for (int i = 0; i < 40 && !fx.changed; i++)
		idle(25);
	ck_assert_int_ge(fx.changed, 1);
}
END_TEST

static Suite *pg_pool_suite(void)
{
	Suite *s = suite_create("pg_pool");
	TCase *tc = check_tcase("pg_pool", setup, teardown);

	tcase_add_unchecked_fixture(tc, cluster_start, cluster_stop);
	tcase_add_test(tc, test_pipelined_in_order);
	tcase_add_test(tc, test_aborted_batch);
	tcase_add_test(tc, test_reconnects);
	tcase_add_test(tc, test_notification_moves);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(pg_pool_suite()));
}
