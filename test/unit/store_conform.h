#ifndef EDGEAUTH_STORE_CONFORM_H
#define EDGEAUTH_STORE_CONFORM_H
/*
 * The store conformance suites' fixture (test/unit/check_store_conform*.c):
 * every case runs once per backend, as a test case of its own named for
 * the backend. One store per backend per suite: SQLite's in a temporary
 * file, PostgreSQL's on a throw-away cluster (scripts/pg-cluster) started
 * once and removed after; each test opens the store (migrated already)
 * and works in a fresh project of its own, so order never matters and no
 * database is made again. Without PostgreSQL's tools the PostgreSQL case
 * is left out, saying so; with them, a cluster that fails to start fails
 * the suite. The cases use the public store API only (store_<area>.h):
 * what they see is what a caller of either backend sees.
 *
 * On PostgreSQL an operation runs on the pool's blocking connection (its
 * completion has run when the call returns: sync_completion), unless the
 * test hands the store to a loop (conform_serve), as the server does;
 * then conform_wait runs the loop until the completion ran.
 */
#include <check.h>
#include <event2/event.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "flow.h"
#include "store.h"
#include "store_pg.h"
#include "store_projects.h"
#include "store_users.h"
#include "util.h"

/* Times far from every cut-off: no case races the clock. */
#define MINUTE_MS (60 * 1000LL)
#define HOUR_MS (60 * MINUTE_MS)

enum conform_backend { CONFORM_SQLITE, CONFORM_POSTGRES };

/* Set by the test case's unchecked fixture, in the runner: the test's
 * process inherits it. */
static struct {
	enum conform_backend backend;
	char dir[64];            /* SQLite's store, or PostgreSQL's cluster */
	char path[96];
	struct config cfg;       /* PostgreSQL: its url */
} conform;

/* One test's store, project and the completion it waits on. */
static struct {
	struct store *st;
	struct event_base *base;
	struct new_project p;
	struct sync_result r;
	struct api_error err;
} cf;

static inline const char *conform_name(void)
{
	return conform.backend == CONFORM_SQLITE ? "sqlite" : "postgres";
}

static inline struct store *conform_open(void)
{
	char errbuf[512] = "";
	struct store *st = conform.backend == CONFORM_SQLITE
	                   ? store_open(conform.path, false, errbuf, sizeof errbuf)
	                   : store_open_postgres(&conform.cfg, errbuf, sizeof errbuf);

	ck_assert_msg(st != NULL, "%s store: %s", conform_name(), errbuf);
	return st;
}

static inline void conform_sqlite_start(void)
{
	conform.backend = CONFORM_SQLITE;
	snprintf(conform.dir, sizeof conform.dir, "/tmp/check_store_conform.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(conform.dir));
	snprintf(conform.path, sizeof conform.path, "%s/e.db", conform.dir);
	store_close(conform_open());   /* migrated once, here */
}

static inline void conform_sqlite_stop(void)
{
	char line[160];

	snprintf(line, sizeof line, "rm -rf %s", conform.dir);
	ck_assert_int_eq(system(line), 0);
}

static inline void conform_cluster(const char *cmd)
{
	char line[256];

	snprintf(line, sizeof line, "%s/scripts/pg-cluster %s %s >&2", SOURCE_DIR, cmd, conform.dir);
	ck_assert_msg(system(line) == 0, "scripts/pg-cluster %s failed", cmd);
}

static inline void conform_pg_start(void)
{
	conform.backend = CONFORM_POSTGRES;
	snprintf(conform.dir, sizeof conform.dir, "/tmp/check_store_conform_pg.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(conform.dir));
	rmdir(conform.dir);   /* pg-cluster makes it, for the server's user */
	conform_cluster("start");
	config_init(&conform.cfg);
	free(conform.cfg.store_url);
	conform.cfg.store_url = xasprintf("host=%s user=edgeauth dbname=postgres", conform.dir);
	conform.cfg.pool_size = 1;
	store_close(conform_open());   /* migrated once, here */
}

static inline void conform_pg_stop(void)
{
	config_release(&conform.cfg);
	conform_cluster("stop");
}

/* Whether Debian's PostgreSQL server tools are here (scripts/pg-cluster's
 * own test). */
static inline bool conform_pg_installed(void)
{
	glob_t g;
	bool found = glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0;

	globfree(&g);
	return found;
}

static inline void conform_setup(void)
{
	memset(&cf, 0, sizeof cf);
	cf.st = conform_open();
	ck_assert_int_eq(store_project_create(cf.st, "conform", &cf.p, &cf.err), 0);
}

static inline void conform_teardown(void)
{
	store_new_project_release(&cf.p);
	store_close(cf.st);
	if (cf.base)
		event_base_free(cf.base);
}

/* The store serves from a loop of the test's, as in the server (a no-op
 * on SQLite). Blocking operations (the CLI's) are over for the test. */
static inline void conform_serve(void)
{
	cf.base = event_base_new();
	store_serve(cf.st, cf.base);
}

/* A completion for the next operation. */
#define DONE sync_completion(&cf.r)

/* Waits for the operation's completion (the loop runs when serving). */
static inline void conform_wait(void)
{
	while (!cf.r.done && cf.base)
		event_base_loop(cf.base, EVLOOP_ONCE);
	ck_assert_msg(cf.r.done, "the operation never completed");
}

/* The operation succeeded. */
static inline void ok(void)
{
	conform_wait();
	ck_assert_msg(!cf.r.failed, "%s: %s", cf.r.err.code, cf.r.err.description);
}

/* The operation failed with code (the spec's string) and, unless NULL,
 * exactly that sentence. */
static inline void fails(const char *code, const char *sentence)
{
	conform_wait();
	ck_assert_msg(cf.r.failed, "succeeded, expected %s", code);
	ck_assert_str_eq(cf.r.err.code, code);
	if (sentence)
		ck_assert_str_eq(cf.r.err.description, sentence);
}

/* A new user of the test's project, named name: its ID (caller frees). */
static inline char *conform_user_new(const char *name)
{
	struct user_fields f = { .display_name = name, .is_active = -1 };
	char *out = NULL, *id;
	json_t *j;

	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	id = xstrdup(json_string_value(json_object_get(j, "id")));
	json_decref(j);
	free(out);
	return id;
}

/* A suite of the cases add() adds, once per backend. */
static inline Suite *conform_suite(const char *name, void (*add)(TCase *tc))
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("sqlite");

	tcase_add_unchecked_fixture(tc, conform_sqlite_start, conform_sqlite_stop);
	tcase_add_checked_fixture(tc, conform_setup, conform_teardown);
	tcase_set_timeout(tc, 60);
	add(tc);
	suite_add_tcase(s, tc);
	if (!conform_pg_installed()) {
		fprintf(stderr, "%s: PostgreSQL is not installed (make deps): its cases are "
		        "SKIPPED, SQLite's run\n", name);
		return s;
	}
	tc = tcase_create("postgres");
	tcase_add_unchecked_fixture(tc, conform_pg_start, conform_pg_stop);
	tcase_add_checked_fixture(tc, conform_setup, conform_teardown);
	tcase_set_timeout(tc, 60);
	add(tc);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the suite and answers main's exit status. */
static inline int conform_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
