#ifndef EDGEAUTH_CHECK_SUITE_H
#define EDGEAUTH_CHECK_SUITE_H
/*
 * What every Check suite of test/unit/ shares: the runner's main body and
 * the assertion on an invalid_params answer. Header-only, since each suite
 * is its own program.
 */
#include <check.h>
#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cidr.h"
#include "config.h"
#include "error.h"
#include "keyring.h"
#include "store.h"
#include "util.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A test case whose tests each run between setup and teardown (a checked
 * fixture: in the test's own process, so a failed assertion still tears down). */
static inline TCase *check_tcase(const char *name, void (*setup)(void), void (*teardown)(void))
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, teardown);
	return tc;
}

/* Runs every suite of sr, frees it, and returns main's exit status. */
static inline int check_run(SRunner *sr)
{
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* rc is a failure with invalid_params (400) and a description starting with msg. */
static inline void check_invalid_params(const struct api_error *err, int rc, const char *msg)
{
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(err->code, "invalid_params");
	ck_assert_int_eq(err->status, 400);
	ck_assert_msg(strncmp(err->description, msg, strlen(msg)) == 0,
	              "description \"%s\", expected \"%s\"", err->description, msg);
}

/* Runs sql, a sqlite3_vmprintf format (%Q quotes a string), on db, as a
 * test's own set-up or sabotage; the test fails when it does. */
static inline void check_sql(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
	              sqlite3_errmsg(db));
	sqlite3_free(sql);
}

/* The first column of the first row of sql (a sqlite3_vmprintf format) on
 * db, as text ("" for no row or NULL), for a test to look at what the store
 * holds. Static: the next call overwrites it. */
static inline const char *check_sql_vtext(sqlite3 *db, const char *fmt, va_list ap)
{
	static char out[256];
	sqlite3_stmt *s;
	char *sql = sqlite3_vmprintf(fmt, ap);

	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK, "%s: %s", sql,
	              sqlite3_errmsg(db));
	out[0] = '\0';
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_free(sql);
	return out;
}

static inline const char *check_sql_text(sqlite3 *db, const char *fmt, ...)
{
	const char *out;
	va_list ap;

	va_start(ap, fmt);
	out = check_sql_vtext(db, fmt, ap);
	va_end(ap);
	return out;
}

/* The same as an integer; -1 when there is no row (or a NULL). */
static inline long long check_query_int(sqlite3 *db, const char *fmt, ...)
{
	const char *out;
	va_list ap;

	va_start(ap, fmt);
	out = check_sql_vtext(db, fmt, ap);
	va_end(ap);
	return *out ? strtoll(out, NULL, 10) : -1;
}

/* A new SQLite store, DIR/e.db, in a new directory /tmp/SUITE.XXXXXX whose
 * name goes into dir; check_store_remove removes them. */
static inline struct store *check_store_new(const char *suite, char dir[64])
{
	char path[96], errbuf[256];
	struct store *st;

	snprintf(dir, 64, "/tmp/%s.XXXXXX", suite);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/e.db", dir);
	st = store_open(path, false, errbuf, sizeof errbuf);
	ck_assert_msg(st != NULL, "%s", errbuf);
	return st;
}

/* Closes st and removes dir with every file in it: the store's, its WAL's
 * and whatever else the test put there (a key ring's files). */
static inline void check_store_remove(struct store *st, const char *dir)
{
	char path[64 + sizeof ((struct dirent *)0)->d_name + 1];
	struct dirent *e;
	DIR *d;

	store_close(st);
	d = opendir(dir);
	ck_assert_msg(d != NULL, "%s", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	ck_assert_msg(rmdir(dir) == 0, "%s", dir);
}

/* Points cfg's signing key file and key-encryption key file into dir
 * (DIR/key.pem, DIR/kek: the caller removes them) and opens the key ring of
 * st, which a new store gets its keys from. */
static inline struct keyring *check_keyring(struct config *cfg, struct store *st,
                                            const char *dir)
{
	char errbuf[512] = "";
	struct keyring *ring;

	free(cfg->signing_key);
	cfg->signing_key = xasprintf("%s/key.pem", dir);
	free(cfg->key_encryption_key_file);
	cfg->key_encryption_key_file = xasprintf("%s/kek", dir);
	ring = keyring_open(cfg, st, errbuf, sizeof errbuf);
	ck_assert_msg(ring != NULL, "%s", errbuf);
	return ring;
}

/* The address text (IPv4 or IPv6) with port as a sockaddr, in ss. */
static inline const struct sockaddr *check_sockaddr(const char *text, unsigned port,
                                                    struct sockaddr_storage *ss)
{
	ck_assert_msg(cidr_sockaddr_parse(text, port, ss) == 0, "%s", text);
	return (const struct sockaddr *)ss;
}

#endif
