/*
 * Unit tests for the core of store.c: opening and migrating a database file,
 * projects and what they are created with, the lookups token checks make,
 * and the constraints of schema/001_init.sql. Each test has its own mkdtemp
 * directory and store, which the checked teardown closes and removes, so a
 * failing assertion leaks nothing and order never matters.
 */
#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "crypto.h"
#include "error.h"
#include "jbody.h"
#include "sqlite_grants.h"
#include "store_projects.h"
#include "store_tokens.h"
#include "store.h"
#include "store_clients.h"
#include "store_users.h"
#include "util.h"

extern const char *const schema_migrations[];
extern const size_t schema_migration_count;


/* The admin client's scope: the twelve named permissions, sorted. */
#define ALL_TWELVE \
	"clients:create clients:read clients:update " \
	"resources:create resources:read resources:update " \
	"roles:create roles:read roles:update " \
	"users:create users:read users:update"

static struct {
	char dir[64];
	char path[128];           /* dir/edgeauth.db */
	struct store *st;
	sqlite3 *raw;             /* a connection of the test's own, outside the store */
	struct new_project p1, p2;
	json_t *json;
	char *str;
	struct api_error err;
	char errbuf[512];
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.path, sizeof fx.path, "%s/edgeauth.db", fx.dir);
}

static void teardown(void)
{
	DIR *d;
	struct dirent *e;
	char p[512];

	store_new_project_release(&fx.p1);
	store_new_project_release(&fx.p2);
	json_decref(fx.json);
	free(fx.str);
	store_close(fx.st);
	sqlite3_close(fx.raw);
	d = opendir(fx.dir);
	if (d) {
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(p, sizeof p, "%s/%s", fx.dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(fx.dir);
}

/* Opens fx.path into fx.st; the open must succeed. */
static struct store *open_store(void)
{
	fx.st = store_open(fx.path, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_msg(fx.st != NULL, "store_open: %s", fx.errbuf);
	return fx.st;
}

static void create_project(const char *name, struct new_project *np)
{
	int rc = store_project_create(fx.st, name, np, &fx.err);

	ck_assert_msg(rc == 0, "store_project_create: %s", fx.err.description);
	ck_assert_ptr_nonnull(np->project_id);
	ck_assert_ptr_nonnull(np->client_id);
	ck_assert_ptr_nonnull(np->client_secret);
}

/* The store's operations as these tests read them: through a completion
 * that the SQLite store runs before it returns, answering 1 / 0 / -1 (found,
 * not found, failed with fx.err). */
static int ended(const struct sync_result *r)
{
	ck_assert(r->done);
	if (r->failed)
		fx.err = r->err;
	return r->failed ? -1 : 0;
}

static int project_get(const char *id, bool *is_active)
{
	struct project_state ps;
	struct sync_result r;

	store_project_get(fx.st, id, &ps, sync_completion(&r));
	if (ended(&r) < 0)
		return -1;
	if (is_active && ps.found)
		*is_active = ps.is_active;
	return ps.found;
}

static int client_auth(const char *client_id, struct client_auth *ca)
{
	struct sync_result r;

	store_client_lookup(fx.st, client_id, ca, sync_completion(&r));
	return ended(&r) < 0 ? -1 : ca->found;
}

static int token_revoked(const char *jti)
{
	struct store_stamp stamp;
	struct sync_result r;
	bool revoked;

	store_token_is_revoked(fx.st, jti, &revoked, &stamp, sync_completion(&r));
	return ended(&r) < 0 ? -1 : revoked;
}

static int user_active(const char *project_id, const char *user_id)
{
	struct sync_result r;
	bool active;

	store_user_is_active(fx.st, project_id, user_id, &active, sync_completion(&r));
	return ended(&r) < 0 ? -1 : active;
}

static int holders_ok(const char *project_id, const char *client_id, const char *user_id,
                      long long iat)
{
	struct sync_result r;
	bool ok;

	store_token_holders_ok(fx.st, project_id, client_id, user_id, iat, &ok,
	                       sync_completion(&r));
	return ended(&r) < 0 ? -1 : ok;
}

/* The client's scope as a grant reads it: the client first, then the scope at
 * the stamp that read saw. */
static char *client_scope(const char *client_id)
{
	struct client_auth ca;
	struct sync_result r;
	char *scope;

	ck_assert_int_ge(client_auth(client_id, &ca), 0);
	store_client_scope(fx.st, client_id, ca.stamp, &scope, sync_completion(&r));
	return ended(&r) < 0 ? NULL : scope;
}

static void noop_opened(void *arg)
{
	(void)arg;
}

/* The one integer that sql (formatted with sqlite3_vmprintf: use %Q for
 * strings) returns on db. */
static long long sql_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	sqlite3_stmt *s = NULL;
	long long v;
	int rc;
	char msg[512];

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	snprintf(msg, sizeof msg, "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_free(sql);
	ck_assert_msg(rc == SQLITE_ROW, "%s", msg);
	return v;
}

/* The one text value sql returns, copied into buf ("" for NULL). */
static const char *sql_text(sqlite3 *db, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	sqlite3_stmt *s = NULL;
	int rc;
	char msg[512];

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		snprintf(buf, size, "%s", s && sqlite3_column_text(s, 0)
		                          ? (const char *)sqlite3_column_text(s, 0) : "");
	sqlite3_finalize(s);
	snprintf(msg, sizeof msg, "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_free(sql);
	ck_assert_msg(rc == SQLITE_ROW, "%s", msg);
	return buf;
}

/* Runs sql (sqlite3_vmprintf format) on db; returns the primary result code. */
static int sql_exec(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	int rc;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	return rc & 0xff;
}

/* The ID of the permission "resource:code" of project. */
static const char *permission_id(const char *project, const char *named, char *buf, size_t size)
{
	char resource[32];
	const char *colon = strchr(named, ':');

	ck_assert_ptr_nonnull(colon);
	snprintf(resource, sizeof resource, "%.*s", (int)(colon - named), named);
	return sql_text(sqlite_of(fx.st)->db, buf, size,
	                "SELECT pm.id FROM permissions pm JOIN resources r ON r.id = pm.resource_id"
	                " WHERE r.project_id = %Q AND r.code = %Q AND pm.code = %Q",
	                project, resource, colon + 1);
}

/* --- open and migrate ------------------------------------------------------- */

START_TEST(test_open_new_file_migrates)
{
	char buf[32];

	ck_assert_uint_gt(schema_migration_count, 0);
	open_store();
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA user_version"),
	                 (long long)schema_migration_count);
	ck_assert_str_eq(sql_text(sqlite_of(fx.st)->db, buf, sizeof buf, "PRAGMA journal_mode"),
	                 "wal");
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA foreign_keys"), 1);
	ck_assert_int_gt(sql_int(sqlite_of(fx.st)->db, "PRAGMA busy_timeout"), 0);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA synchronous"), 2);   /* FULL */
	/* the schema is there, and empty */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                         " AND name IN ('projects', 'resources', 'permissions', 'roles',"
	                         " 'role_permissions', 'users', 'clients', 'client_permissions',"
	                         " 'revoked_tokens')"), 9);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 0);
	/* the file itself says WAL, for any other process that opens it */
	ck_assert_int_eq(sqlite3_open(fx.path, &fx.raw), SQLITE_OK);
	ck_assert_str_eq(sql_text(fx.raw, buf, sizeof buf, "PRAGMA journal_mode"), "wal");
}
END_TEST

START_TEST(test_open_synchronous_normal)
{
	fx.st = store_open(fx.path, false, fx.errbuf, sizeof fx.errbuf);
	ck_assert_msg(fx.st != NULL, "store_open: %s", fx.errbuf);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA synchronous"), 1);   /* NORMAL */
}
END_TEST

/* Reopening keeps the data and applies nothing again (a second run of
 * 001_init.sql would fail on CREATE TABLE, and would bump nothing). */
START_TEST(test_reopen_keeps_data)
{
	bool active = false;

	open_store();
	create_project("kept", &fx.p1);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "CREATE TABLE marker (x)"), SQLITE_OK);
	store_close(fx.st);
	fx.st = NULL;

	open_store();
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA user_version"),
	                 (long long)schema_migration_count);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 1);
	ck_assert_int_eq(project_get(fx.p1.project_id, &active), 1);
	ck_assert(active);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM resources WHERE project_id = %Q",
	                         fx.p1.project_id), 4);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM sqlite_master WHERE name = 'marker'"),
	                 1);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA foreign_keys"), 1);
}
END_TEST

/* A file at version 1 (only 001_init.sql) gets the later migrations, and
 * keeps its rows. */
/* A file made by another program: open as the store wants it, mode 0600. */
static void raw_create(void)
{
	ck_assert_int_eq(sqlite3_open(fx.path, &fx.raw), SQLITE_OK);
	ck_assert_int_eq(chmod(fx.path, 0600), 0);
}

START_TEST(test_open_upgrades_old_file)
{
	raw_create();
	ck_assert_int_eq(sqlite3_exec(fx.raw, schema_migrations[0], NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sql_exec(fx.raw, "PRAGMA user_version = 1"), SQLITE_OK);
	ck_assert_int_eq(sql_exec(fx.raw, "INSERT INTO projects (id, name, created_at, updated_at)"
	                          " VALUES ('old', 'Old', 1, 1)"), SQLITE_OK);
	sqlite3_close(fx.raw);
	fx.raw = NULL;

	open_store();
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA user_version"),
	                 (long long)schema_migration_count);
	ck_assert_int_eq(project_get("old", NULL), 1);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 1);
}
END_TEST

/* A file from a newer edgeauth is refused and left as it was. */
START_TEST(test_newer_schema_refused)
{
	raw_create();
	ck_assert_int_eq(sql_exec(fx.raw, "PRAGMA user_version = %d",
	                          (int)schema_migration_count + 1), SQLITE_OK);
	ck_assert_int_eq(sql_exec(fx.raw, "CREATE TABLE future (x)"), SQLITE_OK);

	fx.st = store_open(fx.path, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_null(fx.st);
	ck_assert_msg(strstr(fx.errbuf, "newer") != NULL, "errbuf \"%s\"", fx.errbuf);
	ck_assert_int_eq(sql_int(fx.raw, "PRAGMA user_version"), (long long)schema_migration_count + 1);
	ck_assert_int_eq(sql_int(fx.raw, "SELECT count(*) FROM sqlite_master WHERE name = 'projects'"),
	                 0);
}
END_TEST

/* A path that cannot be a database (its parent is a file) gives NULL and a reason. */
static unsigned file_mode(const char *suffix)
{
	char name[160];
	struct stat sb;

	snprintf(name, sizeof name, "%s%s", fx.path, suffix);
	ck_assert_msg(stat(name, &sb) == 0, "%s is missing", name);
	return (unsigned)(sb.st_mode & 0777);
}

/* The store holds password and token hashes: its files are made 0600 (the
 * -wal and -shm too), and a store file others may read is refused. */
START_TEST(test_open_files_private)
{
	mode_t old = umask(022);

	open_store();
	create_project("acme", &fx.p1);
	ck_assert_uint_eq(file_mode(""), 0600);
	ck_assert_uint_eq(file_mode("-wal"), 0600);
	ck_assert_uint_eq(file_mode("-shm"), 0600);
	umask(old);
	store_close(fx.st);
	fx.st = NULL;

	ck_assert_int_eq(chmod(fx.path, 0640), 0);
	fx.st = store_open(fx.path, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_null(fx.st);
	ck_assert_msg(strstr(fx.errbuf, "accessible to others (mode 640)") != NULL, "errbuf \"%s\"",
	              fx.errbuf);
	ck_assert_msg(strstr(fx.errbuf, fx.path) != NULL, "errbuf \"%s\"", fx.errbuf);
	ck_assert_int_eq(chmod(fx.path, 0600), 0);
	open_store();
}
END_TEST

START_TEST(test_open_bad_path)
{
	char path[256];
	FILE *f = fopen(fx.path, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(path, sizeof path, "%s/sub.db", fx.path);
	fx.st = store_open(path, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_null(fx.st);
	ck_assert_str_ne(fx.errbuf, "");
}
END_TEST

/* --- projects ---------------------------------------------------------------- */

START_TEST(test_project_create)
{
	char buf[128];
	char hash[SECRET_HASH_LEN + 1];
	bool active = false;
	struct client_auth ca;

	open_store();
	create_project("acme", &fx.p1);
	ck_assert_str_ne(fx.p1.project_id, fx.p1.client_id);
	ck_assert_uint_ge(strlen(fx.p1.project_id), 16);
	ck_assert_uint_le(strlen(fx.p1.project_id), 64);
	ck_assert_uint_eq(strlen(fx.p1.client_secret), 43);

	ck_assert_int_eq(project_get(fx.p1.project_id, &active), 1);
	ck_assert(active);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 1);
	ck_assert_str_eq(sql_text(sqlite_of(fx.st)->db, buf, sizeof buf,
	                          "SELECT name FROM projects WHERE id = %Q",
	                          fx.p1.project_id), "acme");

	/* four default resources, codes resources, users, roles, clients */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM resources WHERE project_id = %Q",
	                         fx.p1.project_id), 4);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM resources WHERE project_id = %Q"
	                         " AND is_default = 1", fx.p1.project_id), 4);
	ck_assert_str_eq(sql_text(sqlite_of(fx.st)->db, buf, sizeof buf,
	                          "SELECT group_concat(code, ',') FROM (SELECT code FROM resources"
	                          " WHERE project_id = %Q ORDER BY code)", fx.p1.project_id),
	                 "clients,resources,roles,users");

	/* twelve permissions, create/update/read under each resource */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM permissions WHERE project_id = %Q",
	                         fx.p1.project_id), 12);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM permissions pm JOIN resources r"
	                         " ON r.id = pm.resource_id WHERE r.project_id = %Q AND"
	                         " pm.project_id = r.project_id AND pm.code IN"
	                         " ('create', 'update', 'read')", fx.p1.project_id), 12);

	/* one admin client, active, with all twelve */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM clients WHERE project_id = %Q",
	                         fx.p1.project_id), 1);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM client_permissions WHERE"
	                         " client_id = %Q", fx.p1.client_id), 12);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_ptr_nonnull(fx.str);
	ck_assert_str_eq(fx.str, ALL_TWELVE);

	/* the stored hash is the secret's, and client_auth reads it */
	memset(&ca, 0, sizeof ca);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	crypto_hash_secret(fx.p1.client_secret, strlen(fx.p1.client_secret), hash);
	ck_assert_str_eq(ca.secret_hash, hash);
	ck_assert_str_eq(ca.project_id, fx.p1.project_id);
	ck_assert(ca.is_active);
	ck_assert(ca.project_active);
	ck_assert_str_ne(ca.secret_hash, fx.p1.client_secret);   /* never the secret itself */

	/* no roles, no users */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM roles"), 0);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM users"), 0);
}
END_TEST

/* A create that fails (NOT NULL name) rolls back everything, hands out
 * nothing, and leaves the store usable. */
START_TEST(test_project_create_failure_rolls_back)
{
	open_store();
	ck_assert_int_eq(store_project_create(fx.st, NULL, &fx.p1, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "system_error");
	ck_assert_ptr_null(fx.p1.project_id);
	ck_assert_ptr_null(fx.p1.client_id);
	ck_assert_ptr_null(fx.p1.client_secret);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 0);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM clients"), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(sqlite_of(fx.st)->db), 1);
	create_project("after", &fx.p2);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 1);
}
END_TEST

START_TEST(test_transactions)
{
	open_store();
	store_rollback(fx.st);   /* no transaction: a no-op */
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(sqlite_of(fx.st)->db), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO revoked_tokens VALUES ('j1', 1)"),
	                 SQLITE_OK);
	store_rollback(fx.st);
	ck_assert_int_eq(sqlite3_get_autocommit(sqlite_of(fx.st)->db), 1);
	ck_assert_int_eq(token_revoked("j1"), 0);

	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	memset(&fx.err, 0, sizeof fx.err);
	ck_assert_int_eq(store_begin(fx.st, &fx.err), -1);   /* no nesting */
	ck_assert_str_eq(fx.err.code, "system_error");
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO revoked_tokens VALUES ('j2', 1)"),
	                 SQLITE_OK);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(token_revoked("j2"), 1);
}
END_TEST

/* A savepoint whose journal outgrows the spill (STMT_JOURNAL_SPILL_BYTES):
 * SQLite writes its memory copy out in pieces of that size, which the
 * default VFS refused (SQLITE_FULL) at 128 KiB and more; the suffix mover's
 * moves failed so, and with them their batch. */
START_TEST(test_savepoint_journal_spills)
{
	open_store();
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "CREATE TABLE big (x BLOB);"
	                          " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
	                          " WHERE i < 2000) INSERT INTO big SELECT randomblob(1000) FROM n"),
	                 SQLITE_OK);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "BEGIN; UPDATE big SET x = x WHERE rowid = 1;"
	                          " SAVEPOINT s"), SQLITE_OK);
	/* ~500 pages, 2 MiB of journal: past the spill */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "UPDATE big SET x = randomblob(1000)"),
	                 SQLITE_OK);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "ROLLBACK TO s; RELEASE s; COMMIT"),
	                 SQLITE_OK);
}
END_TEST

/* Two projects share nothing: their own IDs, resources, permissions and clients. */
START_TEST(test_projects_are_separate)
{
	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	ck_assert_str_ne(fx.p1.project_id, fx.p2.project_id);
	ck_assert_str_ne(fx.p1.client_id, fx.p2.client_id);
	ck_assert_str_ne(fx.p1.client_secret, fx.p2.client_secret);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 2);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM permissions"), 24);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM client_permissions cp"
	                         " JOIN permissions pm ON pm.id = cp.permission_id"
	                         " JOIN clients c ON c.id = cp.client_id"
	                         " WHERE pm.project_id <> c.project_id"), 0);
	fx.str = client_scope(fx.p2.client_id);
	ck_assert_str_eq(fx.str, ALL_TWELVE);
}
END_TEST

/* The project's entry in the list, or NULL. */
static json_t *find_project(json_t *list, const char *id)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "id")), id))
			return v;
	return NULL;
}

static void expect_timestamp(json_t *v)
{
	const char *s = json_string_value(v);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(strlen(s), 24);   /* 2026-11-22T12:00:00.123Z */
	ck_assert_int_eq(s[10], 'T');
	ck_assert_int_eq(s[19], '.');
	ck_assert_int_eq(s[23], 'Z');
}

START_TEST(test_project_list_and_set_active)
{
	json_t *e;
	bool active = true;
	struct client_auth ca;

	open_store();
	fx.json = store_project_list(fx.st, &fx.err);
	ck_assert_ptr_nonnull(fx.json);
	ck_assert(json_is_array(fx.json));
	ck_assert_uint_eq(json_array_size(fx.json), 0);
	json_decref(fx.json);
	fx.json = NULL;

	create_project("first", &fx.p1);
	create_project("second", &fx.p2);
	ck_assert_int_eq(store_project_set_active(fx.st, fx.p1.project_id, false, &fx.err), 1);
	ck_assert_int_eq(project_get(fx.p1.project_id, &active), 1);
	ck_assert(!active);
	ck_assert_int_eq(project_get(fx.p2.project_id, &active), 1);
	ck_assert(active);

	fx.json = store_project_list(fx.st, &fx.err);
	ck_assert_ptr_nonnull(fx.json);
	ck_assert_uint_eq(json_array_size(fx.json), 2);
	e = find_project(fx.json, fx.p1.project_id);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(json_object_size(e), 5);
	ck_assert_str_eq(json_string_value(json_object_get(e, "name")), "first");
	ck_assert(json_is_false(json_object_get(e, "is_active")));
	expect_timestamp(json_object_get(e, "created_at"));
	expect_timestamp(json_object_get(e, "updated_at"));
	e = find_project(fx.json, fx.p2.project_id);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "name")), "second");
	ck_assert(json_is_true(json_object_get(e, "is_active")));

	/* the admin client now sees an inactive project */
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(ca.is_active);
	ck_assert(!ca.project_active);

	/* and back */
	ck_assert_int_eq(store_project_set_active(fx.st, fx.p1.project_id, true, &fx.err), 1);
	ck_assert_int_eq(project_get(fx.p1.project_id, &active), 1);
	ck_assert(active);
	/* setting the value it has is still a change of a found project */
	ck_assert_int_eq(store_project_set_active(fx.st, fx.p1.project_id, true, &fx.err), 1);
}
END_TEST

/* The list is oldest first, ties by ID. */
START_TEST(test_project_list_order)
{
	json_t *a, *b;

	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	fx.json = store_project_list(fx.st, &fx.err);
	ck_assert_uint_eq(json_array_size(fx.json), 2);
	a = json_array_get(fx.json, 0);
	b = json_array_get(fx.json, 1);
	int c = strcmp(json_string_value(json_object_get(a, "created_at")),
	               json_string_value(json_object_get(b, "created_at")));
	ck_assert_int_le(c, 0);
	if (c == 0)
		ck_assert_str_lt(json_string_value(json_object_get(a, "id")),
		                 json_string_value(json_object_get(b, "id")));
}
END_TEST

/* docs/api.md §"Read one and delete": `project admin-client ID` makes a new admin client of an
 * existing project (active, the twelve permissions of the default
 * resources, none of a resource the project added), its secret stored only
 * as a hash; an unknown project gets none and leaves no transaction. */
START_TEST(test_project_admin_client)
{
	char hash[SECRET_HASH_LEN + 1];
	struct new_project np;
	struct client_auth ca;

	open_store();
	create_project("acme", &fx.p1);
	create_project("other", &fx.p2);
	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO resources (id, project_id, name, code, is_default,"
	          " created_at, updated_at) VALUES ('ro', %Q, 'Orders', 'orders', 0, 1, 1);"
	          " INSERT INTO permissions (id, resource_id, project_id, name, code, position)"
	          " VALUES ('po', 'ro', %Q, 'Read', 'read', 0)", fx.p1.project_id,
	          fx.p1.project_id);
	ck_assert_int_eq(store_project_admin_client(fx.st, fx.p1.project_id, &np, &fx.err), 1);
	ck_assert_str_eq(np.project_id, fx.p1.project_id);
	ck_assert_str_ne(np.client_id, fx.p1.client_id);
	ck_assert_uint_eq(strlen(np.client_secret), 43);
	fx.str = client_scope(np.client_id);
	ck_assert_str_eq(fx.str, ALL_TWELVE);
	ck_assert_int_eq(client_auth(np.client_id, &ca), 1);
	crypto_hash_secret(np.client_secret, strlen(np.client_secret), hash);
	ck_assert_str_eq(ca.secret_hash, hash);
	ck_assert_str_eq(ca.project_id, fx.p1.project_id);
	ck_assert(ca.is_active);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM clients WHERE project_id = %Q",
	                         fx.p1.project_id), 2);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM clients WHERE project_id = %Q",
	                         fx.p2.project_id), 1);
	store_new_project_release(&np);

	ck_assert_int_eq(store_project_admin_client(fx.st, "nope", &np, &fx.err), 0);
	ck_assert_ptr_null(np.client_id);
	ck_assert_ptr_null(np.client_secret);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM clients"), 3);
	ck_assert_int_eq(sqlite3_get_autocommit(sqlite_of(fx.st)->db), 1);
}
END_TEST

START_TEST(test_project_unknown)
{
	bool active = true;

	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(project_get("no-such-project", &active), 0);
	ck_assert(active);   /* untouched */
	ck_assert_int_eq(project_get("", NULL), 0);
	ck_assert_int_eq(project_get(fx.p1.project_id, NULL), 1);
	ck_assert_int_eq(store_project_set_active(fx.st, "no-such-project", false, &fx.err), 0);
	ck_assert_int_eq(store_project_count(fx.st, &fx.err), 1);
	/* a client ID is not a project ID */
	ck_assert_int_eq(project_get(fx.p1.client_id, NULL), 0);
}
END_TEST

/* --- token checks ------------------------------------------------------------- */

START_TEST(test_client_auth_unknown)
{
	struct client_auth ca;

	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(client_auth("no-such-client", &ca), 0);
	ck_assert_int_eq(client_auth(fx.p1.project_id, &ca), 0);
	ck_assert_int_eq(client_auth("", &ca), 0);
	/* an unknown client has no scope */
	fx.str = client_scope("no-such-client");
	ck_assert_ptr_nonnull(fx.str);
	ck_assert_str_eq(fx.str, "");
}
END_TEST

START_TEST(test_client_auth_inactive_client)
{
	struct client_auth ca;

	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE clients SET is_active = 0 WHERE id = %Q",
	                          fx.p1.client_id), SQLITE_OK);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(!ca.is_active);
	ck_assert(ca.project_active);
}
END_TEST

START_TEST(test_token_is_revoked)
{
	open_store();
	ck_assert_int_eq(token_revoked("jti-1"), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO revoked_tokens (jti, expires_at)"
	                          " VALUES ('jti-1', 4102444800000)"), SQLITE_OK);
	ck_assert_int_eq(token_revoked("jti-1"), 1);
	ck_assert_int_eq(token_revoked("jti-2"), 0);
	ck_assert_int_eq(token_revoked("JTI-1"), 0);
	ck_assert_int_eq(token_revoked(""), 0);
	/* a jti is revoked once */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO revoked_tokens (jti, expires_at)"
	                          " VALUES ('jti-1', 1)"), SQLITE_CONSTRAINT);
}
END_TEST

START_TEST(test_user_is_active)
{
	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO users (id, project_id, display_name,"
	                          " is_active, created_at, updated_at) VALUES ('u1', %Q, 'U', 1, 1, 1),"
	                          " ('u2', %Q, 'V', 0, 1, 1)", fx.p1.project_id, fx.p1.project_id),
	                 SQLITE_OK);
	ck_assert_int_eq(user_active(fx.p1.project_id, "u1"), 1);
	ck_assert_int_eq(user_active(fx.p1.project_id, "u2"), 0);
	ck_assert_int_eq(user_active(fx.p2.project_id, "u1"), 0);
	ck_assert_int_eq(user_active(fx.p1.project_id, "u3"), 0);
}
END_TEST

/* A token's holders (docs/tokens.md §"Bearer check"): the client in the project, client,
 * project and user active, and none deactivated in or after the token's
 * iat second, also once reactivated (schema/006's triggers). */
START_TEST(test_token_holders)
{
	const char *p, *c;

	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	p = fx.p1.project_id;
	c = fx.p1.client_id;
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO users (id, project_id, display_name,"
	                          " is_active, created_at, updated_at) VALUES ('u1', %Q, 'U', 1, 1, 1)",
	                          p), SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, NULL, 100), 1);
	ck_assert_int_eq(holders_ok(p, c, "u1", 100), 1);
	ck_assert_int_eq(holders_ok(p, c, "u2", 100), 0);
	ck_assert_int_eq(holders_ok(fx.p2.project_id, c, NULL, 100), 0);
	ck_assert_int_eq(holders_ok(p, fx.p2.client_id, NULL, 100), 0);

	/* the user deactivated at 200.5 s, then reactivated */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE users SET is_active = 0, updated_at = 200500"
	                          " WHERE id = 'u1'"), SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, "u1", 300), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE users SET is_active = 1, updated_at = 250000"
	                          " WHERE id = 'u1'"), SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, "u1", 199), 0);
	ck_assert_int_eq(holders_ok(p, c, "u1", 200), 0);
	ck_assert_int_eq(holders_ok(p, c, "u1", 201), 1);
	ck_assert_int_eq(holders_ok(p, c, NULL, 199), 1);
	/* an update that keeps it active moves nothing */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE users SET is_active = 1, updated_at = 900000"
	                          " WHERE id = 'u1'"), SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, "u1", 201), 1);

	/* the client, then the project */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE clients SET is_active = 0, updated_at = 300000"
	                          " WHERE id = %Q", c), SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, NULL, 400), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE clients SET is_active = 1 WHERE id = %Q", c),
	                 SQLITE_OK);
	ck_assert_int_eq(holders_ok(p, c, "u1", 300), 0);
	ck_assert_int_eq(holders_ok(p, c, "u1", 301), 1);
	ck_assert_int_eq(store_project_set_active(fx.st, p, false, &fx.err), 1);
	ck_assert_int_eq(store_project_set_active(fx.st, p, true, &fx.err), 1);
	ck_assert_int_eq(holders_ok(p, c, "u1", 301), 0);
	ck_assert_int_eq(holders_ok(p, c, NULL, time(NULL) + 1), 1);
}
END_TEST

/* --- the write idioms (store_step_write, store_write_tx) ---------------------- */

static int probe_calls;

static int probe_none(struct store *st, void *arg, struct api_error *err)
{
	(void)st; (void)arg; (void)err;
	probe_calls++;
	return 0;
}

static int probe_found(struct store *st, void *arg, struct api_error *err)
{
	(void)st; (void)arg; (void)err;
	probe_calls++;
	return 1;
}

static int probe_failed(struct store *st, void *arg, struct api_error *err)
{
	(void)arg;
	probe_calls++;
	return store_fail(st, err, "probe");
}

/* Inserts arg (a text) into t. */
static int insert_t(struct store *st, void *arg, struct api_error *err)
{
	static const struct unique_rule rules[] = {
		{ probe_none, E_ROLE_CODE_ALREADY_USED, "no" },
		{ probe_found, E_USER_EMAIL_ALREADY_USED, "The email is taken." },
	};
	sqlite3_stmt *s;
	int rc;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(st)->db, "INSERT INTO t VALUES (?1)", -1, &s,
	                                    NULL),
	                 SQLITE_OK);
	store_bind_text(s, 1, arg);
	rc = store_step_write(st, s, rules, 2, NULL, err);
	ck_assert_int_eq(sqlite3_stmt_busy(s), 0);
	sqlite3_finalize(s);
	return rc;
}

static int read_t(struct store *st, void *arg, struct api_error *err)
{
	(void)arg;
	return sql_int(sqlite_of(st)->db, "SELECT count(*) FROM t") == 2 ? 0 :
	       api_fail(err, E_NOT_FOUND, "read back sees %lld rows",
	                sql_int(sqlite_of(st)->db, "SELECT count(*) FROM t"));
}

START_TEST(test_write_idioms)
{
	static const struct unique_rule failing[] = { { probe_failed, E_ROLE_NOT_FOUND, "x" } };
	sqlite3_stmt *s;

	open_store();
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "CREATE TABLE t (x TEXT UNIQUE)"),
	                 SQLITE_OK);
	/* a write, read back inside its transaction, then committed */
	ck_assert_int_eq(store_write_tx(fx.st, insert_t, NULL, "a", &fx.err), 0);
	ck_assert_int_eq(store_write_tx(fx.st, insert_t, read_t, "b", &fx.err), 0);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM t"), 2);
	/* a UNIQUE failure: the first rule whose probe finds the row decides */
	probe_calls = 0;
	ck_assert_int_eq(store_write_tx(fx.st, insert_t, NULL, "a", &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "user_email_already_used");
	ck_assert_str_eq(fx.err.description, "The email is taken.");
	ck_assert_int_eq(probe_calls, 2);
	/* a read back that fails rolls the write back */
	ck_assert_int_eq(store_write_tx(fx.st, insert_t, read_t, "c", &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "not_found");
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM t"), 2);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	/* a probe that fails, and no rule at all, are system errors */
	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, "INSERT INTO t VALUES ('a')", -1,
	                                    &s, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(store_step_write(fx.st, s, failing, 1, NULL, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "system_error");
	ck_assert_int_eq(store_step_write(fx.st, s, NULL, 0, NULL, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "system_error");
	sqlite3_finalize(s);
	/* store_step: a row, then done */
	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, "SELECT x FROM t WHERE x = 'a'",
	                                    -1, &s, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(store_step(fx.st, s, &fx.err), 1);
	ck_assert_int_eq(store_step(fx.st, s, &fx.err), 0);
	sqlite3_finalize(s);
}
END_TEST

/* --- sqlite_permissions_check ---------------------------------------------------- */

START_TEST(test_permissions_check)
{
	char a1[80], a2[80], b1[80];
	const char *ok_ids[2], *mixed[3], *unknown[1];
	struct jbody_id_list list;

	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	ok_ids[0] = permission_id(fx.p1.project_id, "users:read", a1, sizeof a1);
	ok_ids[1] = permission_id(fx.p1.project_id, "roles:update", a2, sizeof a2);
	permission_id(fx.p2.project_id, "users:read", b1, sizeof b1);
	ck_assert_str_ne(a1, b1);

	list = (struct jbody_id_list){ true, 2, ok_ids };
	ck_assert_int_eq(sqlite_permissions_check(fx.st, fx.p1.project_id, &list, &fx.err), 0);

	list = (struct jbody_id_list){ true, 0, NULL };
	ck_assert_int_eq(sqlite_permissions_check(fx.st, fx.p1.project_id, &list, &fx.err), 0);

	/* one of another project among the project's own */
	mixed[0] = a1;
	mixed[1] = b1;
	mixed[2] = a2;
	list = (struct jbody_id_list){ true, 3, mixed };
	memset(&fx.err, 0, sizeof fx.err);
	ck_assert_int_eq(sqlite_permissions_check(fx.st, fx.p1.project_id, &list, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
	ck_assert_int_eq(fx.err.status, 404);

	/* the same IDs are fine for the project they belong to, except a1 and a2 */
	list = (struct jbody_id_list){ true, 1, &mixed[1] };
	ck_assert_int_eq(sqlite_permissions_check(fx.st, fx.p2.project_id, &list, &fx.err), 0);

	unknown[0] = "no-such-permission";
	list = (struct jbody_id_list){ true, 1, unknown };
	memset(&fx.err, 0, sizeof fx.err);
	ck_assert_int_eq(sqlite_permissions_check(fx.st, fx.p1.project_id, &list, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");

	/* a permission ID under an unknown project */
	list = (struct jbody_id_list){ true, 1, ok_ids };
	memset(&fx.err, 0, sizeof fx.err);
	ck_assert_int_eq(sqlite_permissions_check(fx.st, "no-such-project", &list, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
}
END_TEST

/* --- no escalation (store_grants.c) ------------------------------------------ */

/* Project a and b, and in a: a resource of its own, orders (orders:read); a
 * role ro1 holding users:update and orders:read; a user u1 in it and a user
 * u2 without a role. */
static void grants_fixture(void)
{
	char a[80];

	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
		"INSERT INTO resources (id, project_id, name, code, is_default, created_at, updated_at)"
		" VALUES ('res-orders', %Q, 'Orders', 'orders', 0, 1, 1);"
		"INSERT INTO permissions (id, resource_id, project_id, name, code, position)"
		" VALUES ('orders-read', 'res-orders', %Q, 'Read', 'read', 0);"
		"INSERT INTO roles (id, project_id, code, name, created_at, updated_at)"
		" VALUES ('ro1', %Q, 'ro1', 'R', 1, 1);"
		"INSERT INTO role_permissions VALUES ('ro1', 'orders-read'), ('ro1', %Q);"
		"INSERT INTO users (id, project_id, display_name, role_id, created_at, updated_at)"
		" VALUES ('u1', %Q, 'U', 'ro1', 1, 1), ('u2', %Q, 'V', NULL, 1, 1)",
		fx.p1.project_id, fx.p1.project_id, fx.p1.project_id,
		permission_id(fx.p1.project_id, "users:update", a, sizeof a),
		fx.p1.project_id, fx.p1.project_id), SQLITE_OK);
}

/* Checks err against want (E__COUNT: the check passed) and that the grant
 * statements were all reset. */
static void expect_grant(int rc, enum api_code want, const char *lacked, const char *desc)
{
	if (want == E__COUNT) {
		ck_assert_msg(rc == 0, "%s: %s", desc, fx.err.description);
	} else {
		ck_assert_msg(rc == -1 && fx.err.api_code == want, "%s: %d %s", desc, rc,
		              fx.err.description);
	}
	if (lacked)
		ck_assert_msg(strstr(fx.err.description, lacked), "%s: %s", desc, fx.err.description);
	for (size_t i = 0; i < sqlite_of(fx.st)->grants.count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(sqlite_of(fx.st)->grants.stmt[i]), 0);
}

#define GRANTED E__COUNT

static const struct {
	const char *desc;
	const char *scope;      /* the caller's; NULL: no limit */
	const char *grant[3];   /* named permissions of project a ("b:..." of b), or raw IDs */
	enum api_code want;
	const char *lacked;     /* the permission the description names */
} grant_id_cases[] = {
	{ "carried", "roles:update users:read", { "users:read", "roles:update" }, GRANTED, NULL },
	{ "one lacked", "users:read", { "users:read", "users:update" },
	  E_INSUFFICIENT_PERMISSION, "users:update" },
	{ "empty scope", "", { "clients:read" }, E_INSUFFICIENT_PERMISSION, "clients:read" },
	{ "no limit", NULL, { "users:create", "clients:update" }, GRANTED, NULL },
	{ "a name is a whole word", "users:reader xusers:read users:read2", { "users:read" },
	  E_INSUFFICIENT_PERMISSION, "users:read" },
	{ "the project's own resource is free", "", { "orders:read" }, GRANTED, NULL },
	{ "own resource beside a carried one", "users:read", { "orders:read", "users:read" },
	  GRANTED, NULL },
	{ "not found before lacked", "", { "users:read", "nope" },
	  E_SOME_PERMISSIONS_NOT_FOUND, NULL },
	{ "another project's is not found", "", { "b:users:read" },
	  E_SOME_PERMISSIONS_NOT_FOUND, NULL },
};

START_TEST(test_grant_check_ids)
{
	char buf[3][80];
	const char *ids[3];
	struct jbody_id_list list = { true, 0, ids };

	grants_fixture();
	for (size_t i = 0; i < 3 && grant_id_cases[_i].grant[i]; i++, list.count++) {
		const char *named = grant_id_cases[_i].grant[i];
		if (!strchr(named, ':'))
			ids[i] = named;
		else if (!strncmp(named, "b:", 2))
			ids[i] = permission_id(fx.p2.project_id, named + 2, buf[i], sizeof buf[i]);
		else
			ids[i] = permission_id(fx.p1.project_id, named, buf[i], sizeof buf[i]);
	}
	expect_grant(sqlite_grant_check_ids(fx.st, fx.p1.project_id, grant_id_cases[_i].scope, &list,
	                                   &fx.err),
	             grant_id_cases[_i].want, grant_id_cases[_i].lacked, grant_id_cases[_i].desc);
	/* no IDs, nothing to grant */
	ck_assert_int_eq(sqlite_grant_check_ids(fx.st, fx.p1.project_id, "", NULL, &fx.err), 0);
}
END_TEST

/* The admin client's scope without roles:create. */
#define ALL_BUT_ROLES_CREATE \
	"clients:create clients:read clients:update resources:create resources:read" \
	" resources:update roles:read roles:update users:create users:read users:update"

static const struct {
	const char *desc;
	enum grant_holder holder;
	const char *id;         /* "admin": project a's admin client */
	const char *scope;
	enum api_code want;
	const char *lacked;     /* what the description names */
} grant_holder_cases[] = {
	{ "role within scope", GRANT_HOLDER_ROLE, "ro1", "users:update", GRANTED, NULL },
	{ "role holds what scope lacks", GRANT_HOLDER_ROLE, "ro1", "orders:read users:read",
	  E_INSUFFICIENT_PERMISSION, "users:update, which the role holds" },
	{ "user's role holds it", GRANT_HOLDER_USER, "u1", "", E_INSUFFICIENT_PERMISSION,
	  "users:update, which the user's role holds" },
	{ "user without a role", GRANT_HOLDER_USER, "u2", "", GRANTED, NULL },
	{ "user, no limit", GRANT_HOLDER_USER, "u1", NULL, GRANTED, NULL },
	{ "admin client, all twelve", GRANT_HOLDER_CLIENT, "admin", ALL_TWELVE, GRANTED, NULL },
	{ "admin client, one missing", GRANT_HOLDER_CLIENT, "admin", ALL_BUT_ROLES_CREATE,
	  E_INSUFFICIENT_PERMISSION, "roles:create, which the client holds" },
	{ "no such role holds nothing", GRANT_HOLDER_ROLE, "nope", "", GRANTED, NULL },
};

START_TEST(test_grant_check_holder)
{
	const char *id = grant_holder_cases[_i].id;

	grants_fixture();
	if (!strcmp(id, "admin"))
		id = fx.p1.client_id;
	expect_grant(sqlite_grant_check_holder(fx.st, grant_holder_cases[_i].scope,
	                                      grant_holder_cases[_i].holder, id, &fx.err),
	             grant_holder_cases[_i].want, grant_holder_cases[_i].lacked,
	             grant_holder_cases[_i].desc);
}
END_TEST

/* docs/signin.md §"Who may change where tokens go": who may change where a client's tokens go carries all
 * twelve default-resource permissions; the project's own ones (orders:read)
 * are not needed, another project's scope is the same names. */
static const struct {
	const char *desc;
	const char *scope;
	enum api_code want;
	const char *lacked;
} grant_admin_cases[] = {
	{ "all twelve", ALL_TWELVE, GRANTED, NULL },
	{ "all twelve and more", "orders:read " ALL_TWELVE " x", GRANTED, NULL },
	{ "one missing", ALL_BUT_ROLES_CREATE, E_INSUFFICIENT_PERMISSION,
	  "roles:create, and only a token with all twelve" },
	{ "every clients permission only", "clients:create clients:read clients:update",
	  E_INSUFFICIENT_PERMISSION, "resources:create" },
	{ "empty scope", "", E_INSUFFICIENT_PERMISSION, "clients:create" },
	{ "no limit", NULL, GRANTED, NULL },
};

START_TEST(test_grant_check_admin)
{
	grants_fixture();
	expect_grant(sqlite_grant_check_admin(fx.st, fx.p1.project_id, grant_admin_cases[_i].scope,
	                                     &fx.err),
	             grant_admin_cases[_i].want, grant_admin_cases[_i].lacked,
	             grant_admin_cases[_i].desc);
}
END_TEST

/* --- schema constraints ------------------------------------------------------- */

static int insert_user(const char *id, const char *project, const char *email,
                       const char *external_id)
{
	return sql_exec(sqlite_of(fx.st)->db,
	                "INSERT INTO users (id, project_id, display_name, email,"
	                " external_user_id, created_at, updated_at) VALUES (%Q, %Q, 'U', %Q, %Q, 1, 1)",
	                id, project, email, external_id);
}

static const struct {
	const char *desc;
	const char *first, *second;   /* emails in one project */
	int rc;                       /* of the second insert */
} email_cases[] = {
	{ "same email", "ann@example.com", "ann@example.com", SQLITE_CONSTRAINT },
	{ "differs only in case", "Ann@Example.com", "ann@EXAMPLE.COM", SQLITE_CONSTRAINT },
	{ "all upper and all lower", "BOB@X.IO", "bob@x.io", SQLITE_CONSTRAINT },
	{ "different emails", "ann@example.com", "bob@example.com", SQLITE_OK },
	{ "both NULL", NULL, NULL, SQLITE_OK },
	{ "one NULL", "ann@example.com", NULL, SQLITE_OK },
};

START_TEST(test_user_email_unique_per_project)
{
	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(insert_user("u1", fx.p1.project_id, email_cases[_i].first, NULL), SQLITE_OK);
	ck_assert_msg(insert_user("u2", fx.p1.project_id, email_cases[_i].second, NULL) ==
	              email_cases[_i].rc, "%s: %s", email_cases[_i].desc,
	              sqlite3_errmsg(sqlite_of(fx.st)->db));
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM users"),
	                 email_cases[_i].rc == SQLITE_OK ? 2 : 1);
}
END_TEST

START_TEST(test_user_email_in_two_projects)
{
	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	ck_assert_int_eq(insert_user("u1", fx.p1.project_id, "ann@example.com", "x1"), SQLITE_OK);
	ck_assert_int_eq(insert_user("u2", fx.p2.project_id, "ANN@example.com", "x1"), SQLITE_OK);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM users"), 2);
}
END_TEST

START_TEST(test_user_external_id_unique_per_project)
{
	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(insert_user("u1", fx.p1.project_id, NULL, "ext-1"), SQLITE_OK);
	ck_assert_int_eq(insert_user("u2", fx.p1.project_id, NULL, "ext-1"), SQLITE_CONSTRAINT);
	ck_assert_int_eq(insert_user("u3", fx.p1.project_id, NULL, "EXT-1"), SQLITE_OK);
	ck_assert_int_eq(insert_user("u4", fx.p1.project_id, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(insert_user("u5", fx.p1.project_id, NULL, NULL), SQLITE_OK);
}
END_TEST

START_TEST(test_codes_unique_per_project)
{
	open_store();
	create_project("a", &fx.p1);
	create_project("b", &fx.p2);
	/* a resource code that a default resource has */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO resources (id, project_id, name, code,"
	                          " created_at, updated_at) VALUES ('r1', %Q, 'U', 'users', 1, 1)",
	                          fx.p1.project_id), SQLITE_CONSTRAINT);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO roles (id, project_id, code, name,"
	                          " created_at, updated_at) VALUES ('ro1', %Q, 'admin', 'A', 1, 1)",
	                          fx.p1.project_id), SQLITE_OK);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO roles (id, project_id, code, name,"
	                          " created_at, updated_at) VALUES ('ro2', %Q, 'admin', 'B', 1, 1)",
	                          fx.p1.project_id), SQLITE_CONSTRAINT);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO roles (id, project_id, code, name,"
	                          " created_at, updated_at) VALUES ('ro3', %Q, 'admin', 'C', 1, 1)",
	                          fx.p2.project_id), SQLITE_OK);
}
END_TEST

/* A row that names a missing parent is refused (foreign_keys is on). */
START_TEST(test_foreign_keys_enforced)
{
	open_store();
	ck_assert_int_eq(insert_user("u1", "no-such-project", NULL, NULL), SQLITE_CONSTRAINT);
}
END_TEST

/* Deleting a permission takes it out of every role and client. */
START_TEST(test_delete_permission_cascades)
{
	char perm[80], other[80];

	open_store();
	create_project("a", &fx.p1);
	permission_id(fx.p1.project_id, "users:read", perm, sizeof perm);
	permission_id(fx.p1.project_id, "users:update", other, sizeof other);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO roles (id, project_id, code, name,"
	                          " created_at, updated_at) VALUES ('ro1', %Q, 'viewer', 'V', 1, 1);"
	                          "INSERT INTO role_permissions VALUES ('ro1', %Q), ('ro1', %Q)",
	                          fx.p1.project_id, perm, other), SQLITE_OK);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM client_permissions"
	                         " WHERE permission_id = %Q", perm), 1);

	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "DELETE FROM permissions WHERE id = %Q",
	                          perm),
	                 SQLITE_OK);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM role_permissions"
	                         " WHERE permission_id = %Q", perm), 0);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM client_permissions"
	                         " WHERE permission_id = %Q", perm), 0);
	/* the others stay */
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM role_permissions"
	                         " WHERE role_id = 'ro1'"), 1);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM client_permissions"
	                         " WHERE client_id = %Q", fx.p1.client_id), 11);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_ptr_nonnull(fx.str);
	ck_assert_ptr_null(strstr(fx.str, "users:read"));
	ck_assert_ptr_nonnull(strstr(fx.str, "users:update"));
}
END_TEST

/* Deleting a role leaves its users, without a role. */
START_TEST(test_delete_role_sets_user_role_null)
{
	open_store();
	create_project("a", &fx.p1);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO roles (id, project_id, code, name,"
	                          " created_at, updated_at) VALUES ('ro1', %Q, 'viewer', 'V', 1, 1),"
	                          " ('ro2', %Q, 'editor', 'E', 1, 1)",
	                          fx.p1.project_id, fx.p1.project_id), SQLITE_OK);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO users (id, project_id, display_name,"
	                          " role_id, created_at, updated_at) VALUES ('u1', %Q, 'U', 'ro1', 1, 1),"
	                          " ('u2', %Q, 'V', 'ro2', 1, 1)",
	                          fx.p1.project_id, fx.p1.project_id), SQLITE_OK);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db, "DELETE FROM roles WHERE id = 'ro1'"),
	                 SQLITE_OK);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "SELECT count(*) FROM users"), 2);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT role_id IS NULL FROM users WHERE id = 'u1'"), 1);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT role_id = 'ro2' FROM users WHERE id = 'u2'"), 1);
}
END_TEST

/* A cached scope never outlives a change: one written through the store, one
 * in the store's own connection outside it, one by another process (a
 * second connection, as the CLI is), one inside a group-commit batch. */
START_TEST(test_scope_cache_sees_every_change)
{
	char perm[80];

	open_store();
	create_project("a", &fx.p1);
	permission_id(fx.p1.project_id, "users:read", perm, sizeof perm);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_str_eq(fx.str, ALL_TWELVE);
	free(fx.str);

	/* another process */
	ck_assert_int_eq(sqlite3_open(fx.path, &fx.raw), SQLITE_OK);
	ck_assert_int_eq(sql_exec(fx.raw, "DELETE FROM client_permissions WHERE permission_id = %Q",
	                          perm), SQLITE_OK);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_ptr_null(strstr(fx.str, "users:read"));
	ck_assert_ptr_nonnull(strstr(fx.str, "users:update"));
	free(fx.str);

	/* this connection, outside store_begin */
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "INSERT INTO client_permissions VALUES (%Q, %Q)",
	                          fx.p1.client_id, perm), SQLITE_OK);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_str_eq(fx.str, ALL_TWELVE);
	free(fx.str);

	/* a request's savepoint in a batch: no commit yet, so no new data version */
	store_batch_enable(fx.st, noop_opened, NULL);
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "DELETE FROM client_permissions WHERE permission_id = %Q",
	                          perm), SQLITE_OK);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	fx.str = client_scope(fx.p1.client_id);
	ck_assert_ptr_null(strstr(fx.str, "users:read"));
	free(fx.str);
	fx.str = NULL;
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
}
END_TEST

/* With group commit a client's row is cached at the stamp of the loop
 * iteration's read transaction (store_read_stamp): another process's
 * commit is seen once the iteration ends, ours at once. */
/* synchronous=full with group commit: SQLite stops syncing at the commit
 * (NORMAL), a batch that wrote says it needs the WAL synced, and the sync
 * itself is an fdatasync of the WAL through the descriptor opened with the
 * store. */
START_TEST(test_batch_sync_leaves_the_commit)
{
	char why[STORE_FILES_WHY_MAX];
	struct store_files *f;

	open_store();
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA synchronous"),
	                 2);   /* FULL until group commit */
	ck_assert_ptr_null(store_sync_target(fx.st));
	store_batch_enable(fx.st, noop_opened, NULL);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db, "PRAGMA synchronous"),
	                 1);   /* NORMAL: the sync is ours */
	f = store_sync_target(fx.st);
	ck_assert_ptr_nonnull(f);
	ck_assert(!strcmp(f->wal_path + strlen(fx.path), "-wal"));

	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	create_project("a", &fx.p1);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert(!store_batch_needs_sync(fx.st));   /* not committed yet */
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert(store_batch_needs_sync(fx.st));
	ck_assert_int_eq(store_files_sync(f, why, sizeof why), 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);   /* no batch open */
	ck_assert(!store_batch_needs_sync(fx.st));
}
END_TEST

/* issue24.9: the WAL's name unlinked under the store: the sync says so
 * (it once reopened the WAL by name, found nothing, and took that for
 * "nothing to sync"); the next batch is refused with 503, as is every
 * write after it; what was committed before is checkpointed into the store
 * file, so it is there when the store opens again. */
START_TEST(test_wal_unlinked_refuses_writes)
{
	char why[STORE_FILES_WHY_MAX];
	struct store_files *f;

	open_store();
	store_batch_enable(fx.st, noop_opened, NULL);
	f = store_sync_target(fx.st);
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	create_project("kept", &fx.p1);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(unlink(f->wal_path), 0);
	ck_assert_int_eq(store_files_sync(f, why, sizeof why), STORE_FILES_WAL_UNLINKED);
	ck_assert_ptr_nonnull(strstr(why, "was unlinked"));

	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	create_project("lost", &fx.p2);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), -1);
	ck_assert_int_eq(fx.err.status, 503);
	ck_assert(store_writes_failed(fx.st));
	ck_assert_int_eq(store_begin(fx.st, &fx.err), -1);
	ck_assert_int_eq(fx.err.status, 503);

	store_close(fx.st);
	fx.st = store_open(fx.path, true, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_nonnull(fx.st);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM projects WHERE name = 'kept'"), 1);
	ck_assert_int_eq(sql_int(sqlite_of(fx.st)->db,
	                         "SELECT count(*) FROM projects WHERE name = 'lost'"), 0);
}
END_TEST

/* synchronous=normal: nothing to sync after a batch. */
START_TEST(test_batch_normal_needs_no_sync)
{
	fx.st = store_open(fx.path, false, fx.errbuf, sizeof fx.errbuf);
	ck_assert_ptr_nonnull(fx.st);
	store_batch_enable(fx.st, noop_opened, NULL);
	ck_assert_ptr_null(store_sync_target(fx.st));
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	create_project("a", &fx.p1);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert(!store_batch_needs_sync(fx.st));
}
END_TEST

START_TEST(test_client_cache_sees_every_change)
{
	struct client_auth ca;

	open_store();
	create_project("a", &fx.p1);
	store_batch_enable(fx.st, noop_opened, NULL);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(ca.is_active && ca.project_active);

	/* another process: the iteration keeps its snapshot, the next sees it */
	ck_assert_int_eq(sqlite3_open(fx.path, &fx.raw), SQLITE_OK);
	ck_assert_int_eq(sql_exec(fx.raw, "UPDATE clients SET is_active = 0 WHERE id = %Q",
	                          fx.p1.client_id), SQLITE_OK);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(ca.is_active);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(!ca.is_active);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(sql_exec(fx.raw, "UPDATE projects SET is_active = 0 WHERE id = %Q",
	                          fx.p1.project_id), SQLITE_OK);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(!ca.project_active);

	/* ours: a request's write ends the read transaction, its commit moves the stamp */
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	ck_assert_int_eq(sql_exec(sqlite_of(fx.st)->db,
	                          "UPDATE clients SET is_active = 1 WHERE id = %Q",
	                          fx.p1.client_id), SQLITE_OK);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(ca.is_active);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);

	/* a write outside store_begin (the purges) commits on its own */
	ck_assert_int_eq(client_auth(fx.p1.client_id, &ca), 1);
	ck_assert(!sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	ck_assert_int_ge(store_purge_expired(fx.st, 10, now_ms(), 0, &fx.err), 0);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));

	ck_assert_int_eq(client_auth("no-such-client", &ca), 0);
	ck_assert_int_eq(client_auth("no-such-client", &ca), 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc;

	tc = tcase_create("open");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_new_file_migrates);
	tcase_add_test(tc, test_open_synchronous_normal);
	tcase_add_test(tc, test_reopen_keeps_data);
	tcase_add_test(tc, test_open_upgrades_old_file);
	tcase_add_test(tc, test_newer_schema_refused);
	tcase_add_test(tc, test_open_bad_path);
	tcase_add_test(tc, test_open_files_private);
	suite_add_tcase(s, tc);

	tc = tcase_create("projects");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_project_create);
	tcase_add_test(tc, test_project_create_failure_rolls_back);
	tcase_add_test(tc, test_transactions);
	tcase_add_test(tc, test_savepoint_journal_spills);
	tcase_add_test(tc, test_projects_are_separate);
	tcase_add_test(tc, test_project_list_and_set_active);
	tcase_add_test(tc, test_project_list_order);
	tcase_add_test(tc, test_project_unknown);
	tcase_add_test(tc, test_project_admin_client);
	suite_add_tcase(s, tc);

	tc = tcase_create("token_checks");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_client_auth_unknown);
	tcase_add_test(tc, test_client_auth_inactive_client);
	tcase_add_test(tc, test_token_is_revoked);
	tcase_add_test(tc, test_user_is_active);
	tcase_add_test(tc, test_token_holders);
	tcase_add_test(tc, test_write_idioms);
	tcase_add_test(tc, test_permissions_check);
	tcase_add_test(tc, test_scope_cache_sees_every_change);
	tcase_add_test(tc, test_client_cache_sees_every_change);
	tcase_add_test(tc, test_batch_sync_leaves_the_commit);
	tcase_add_test(tc, test_wal_unlinked_refuses_writes);
	tcase_add_test(tc, test_batch_normal_needs_no_sync);
	suite_add_tcase(s, tc);

	tc = tcase_create("grants");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_grant_check_ids, 0, N_ELEMS(grant_id_cases));
	tcase_add_loop_test(tc, test_grant_check_holder, 0, N_ELEMS(grant_holder_cases));
	tcase_add_loop_test(tc, test_grant_check_admin, 0, N_ELEMS(grant_admin_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("schema");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_user_email_unique_per_project, 0, N_ELEMS(email_cases));
	tcase_add_test(tc, test_user_email_in_two_projects);
	tcase_add_test(tc, test_user_external_id_unique_per_project);
	tcase_add_test(tc, test_codes_unique_per_project);
	tcase_add_test(tc, test_foreign_keys_enforced);
	tcase_add_test(tc, test_delete_permission_cascades);
	tcase_add_test(tc, test_delete_role_sets_user_role_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_suite()));
}
