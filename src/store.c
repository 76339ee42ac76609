/*
 * The store's connection, migrations, transactions and projects. Every
 * statement is prepared here at open; no code path prepares on a request.
 * Must never be used from any thread but the one that opened it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crypto.h"
#include "json_util.h"
#include "store.h"
#include "util.h"
#include "validate.h"

extern const char *const schema_migrations[];
extern const size_t schema_migration_count;

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define BUSY_TIMEOUT_MS 5000

static const char *const core_sql[SQ__COUNT] = {
	[SQ_BEGIN] = "BEGIN IMMEDIATE",
	[SQ_COMMIT] = "COMMIT",
	[SQ_ROLLBACK] = "ROLLBACK",
	[SQ_PROJECT_INSERT] =
		"INSERT INTO projects (id, name, is_active, created_at, updated_at)"
		" VALUES (?1, ?2, 1, ?3, ?3)",
	[SQ_PROJECT_GET] = "SELECT is_active FROM projects WHERE id = ?1",
	[SQ_PROJECT_LIST] =
		"SELECT id, name, is_active, created_at, updated_at FROM projects"
		" ORDER BY created_at, id",
	[SQ_PROJECT_COUNT] = "SELECT count(*) FROM projects",
	[SQ_PROJECT_SET_ACTIVE] =
		"UPDATE projects SET is_active = ?2, updated_at = ?3 WHERE id = ?1",
	[SQ_RESOURCE_INSERT] =
		"INSERT INTO resources (id, project_id, name, code, description, is_default,"
		" created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
	[SQ_PERMISSION_INSERT] =
		"INSERT INTO permissions (id, resource_id, project_id, name, code, description,"
		" position) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[SQ_CLIENT_INSERT] =
		"INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,"
		" redirect_uris, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?7)",
	[SQ_CLIENT_PERMISSION_INSERT] =
		"INSERT OR IGNORE INTO client_permissions (client_id, permission_id) VALUES (?1, ?2)",
	[SQ_CLIENT_AUTH] =
		"SELECT c.project_id, c.secret_hash, c.is_active, p.is_active"
		" FROM clients c JOIN projects p ON p.id = c.project_id WHERE c.id = ?1",
	[SQ_CLIENT_SCOPE] =
		"SELECT " SQL_NAMED_PERMISSION " AS named FROM " SQL_CLIENT_PERMISSIONS
		SQL_SCOPE_CODES_OK " ORDER BY named",
	[SQ_USER_ACTIVE] =
		"SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2 AND is_active",
	[SQ_TOKEN_REVOKED] = "SELECT 1 FROM revoked_tokens WHERE jti = ?1",
	/* iat is in seconds: a token of the deactivation's own second is taken
	 * as issued before it (the safe side). */
	[SQ_TOKEN_HOLDERS] =
		"SELECT 1 FROM clients c JOIN projects p ON p.id = c.project_id"
		" WHERE c.id = ?1 AND c.project_id = ?2 AND c.is_active AND p.is_active"
		" AND (c.tokens_valid_after IS NULL OR ?4 > c.tokens_valid_after / 1000)"
		" AND (p.tokens_valid_after IS NULL OR ?4 > p.tokens_valid_after / 1000)"
		" AND (?3 IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.id = ?3"
		" AND u.project_id = ?2 AND u.is_active"
		" AND (u.tokens_valid_after IS NULL OR ?4 > u.tokens_valid_after / 1000)))",
	[SQ_PERMISSION_IN_PROJECT] = "SELECT 1 FROM permissions WHERE id = ?1 AND project_id = ?2",
	[SQ_SAVEPOINT] = "SAVEPOINT request",
	[SQ_RELEASE] = "RELEASE request",
	[SQ_ROLLBACK_TO] = "ROLLBACK TO request",
};

static const struct stmt_set core_set = { SQ__COUNT, core_sql, NULL };

int store_fail(struct store *st, struct api_error *err, const char *what)
{
	fprintf(stderr, "edgeauth: store: %s: %s\n", what, sqlite3_errmsg(st->db));
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

int store_bind_text(sqlite3_stmt *s, int idx, const char *v)
{
	if (!v)
		return sqlite3_bind_null(s, idx);
	return sqlite3_bind_text(s, idx, v, -1, SQLITE_STATIC);
}

const char *store_column_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

int store_step_done(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(st, err, sqlite3_sql(s));
	return 0;
}

void store_stmt_finish(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

int store_step(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(st, err, sqlite3_sql(s));
}

int store_step_write(struct store *st, sqlite3_stmt *s, const struct unique_rule *rules,
                     size_t n_rules, void *arg, struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
		store_stmt_finish(s);
		return 0;
	}
	if (rc != SQLITE_CONSTRAINT_UNIQUE) {
		store_fail(st, err, sqlite3_sql(s));
		store_stmt_finish(s);
		return -1;
	}
	store_stmt_finish(s);
	for (size_t i = 0; i < n_rules; i++) {
		int found = rules[i].probe(st, arg, err);
		if (found < 0)
			return -1;
		if (found)
			return api_fail(err, rules[i].code, "%s", rules[i].description);
	}
	fprintf(stderr, "edgeauth: store: a UNIQUE failure no rule explains\n");
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

int store_write_tx(struct store *st, int (*write)(struct store *st, void *arg, struct api_error *err),
                   int (*read_back)(struct store *st, void *arg, struct api_error *err),
                   void *arg, struct api_error *err)
{
	if (store_begin(st, err) < 0)
		return -1;
	if (write(st, arg, err) < 0 || (read_back && read_back(st, arg, err) < 0)) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, err);   /* rolls back itself when it fails */
}

int store_exists(struct store *st, sqlite3_stmt *s, const char *a, const char *b, const char *c,
                 struct api_error *err)
{
	const char *v[3] = { a, b, c };
	int n = sqlite3_bind_parameter_count(s), rc;

	for (int i = 0; i < n && i < 3; i++)
		store_bind_text(s, i + 1, v[i]);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = 1;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = store_fail(st, err, sqlite3_sql(s));
	store_stmt_finish(s);
	return rc;
}

int store_prepare_set(struct store *st, struct stmt_set *set, char *errbuf, size_t errlen)
{
	set->stmt = xcalloc(set->count ? set->count : 1, sizeof *set->stmt);
	for (size_t i = 0; i < set->count; i++) {
		if (!set->sql[i])
			continue;
		if (sqlite3_prepare_v3(st->db, set->sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                       &set->stmt[i], NULL) != SQLITE_OK) {
			snprintf(errbuf, errlen, "cannot prepare statement: %s: %s",
			         sqlite3_errmsg(st->db), set->sql[i]);
			return -1;
		}
	}
	return 0;
}

static void finalize_set(struct stmt_set *set)
{
	if (!set->stmt)
		return;
	for (size_t i = 0; i < set->count; i++)
		sqlite3_finalize(set->stmt[i]);
	free(set->stmt);
	set->stmt = NULL;
}

static int exec(sqlite3 *db, const char *sql, char *errbuf, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(errbuf, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Applies the migrations the file has not seen, each in its own transaction
 * with the version bump, so a crash leaves either the old or the new schema. */
static int migrate(sqlite3 *db, char *errbuf, size_t errlen)
{
	sqlite3_stmt *s;
	int version = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return snprintf(errbuf, errlen, "%s", sqlite3_errmsg(db)), -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (version > (int)schema_migration_count) {
		snprintf(errbuf, errlen, "database schema version %d is newer than this edgeauth (%zu)",
		         version, schema_migration_count);
		return -1;
	}
	for (size_t i = (size_t)version; i < schema_migration_count; i++) {
		char bump[64];
		snprintf(bump, sizeof bump, "PRAGMA user_version = %zu", i + 1);
		if (exec(db, "BEGIN IMMEDIATE", errbuf, errlen) < 0)
			return -1;
		if (exec(db, schema_migrations[i], errbuf, errlen) < 0 ||
		    exec(db, bump, errbuf, errlen) < 0 ||
		    exec(db, "COMMIT", errbuf, errlen) < 0) {
			exec(db, "ROLLBACK", errbuf + strlen(errbuf), 0);
			return -1;
		}
	}
	return 0;
}

/* iso_time(ms): format_timestamp as an SQL function, for records that
 * statements write as JSON text; NULL stays NULL. */
static void sql_iso_time(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	char buf[TIMESTAMP_LEN];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;   /* the result is NULL */
	format_timestamp(sqlite3_value_int64(argv[0]), buf);
	sqlite3_result_text(c, buf, -1, SQLITE_TRANSIENT);
}

/* Creates the parent directory of path (one level) when it is missing. */
static void make_parent_dir(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		(void)mkdir(dir, 0700);   /* a failure: sqlite3_open reports the real problem */
	}
	free(dir);
}

/* The store holds password and token hashes: a file others may read is
 * refused, as the signing key is. Checks path and its WAL, those that exist.
 * Returns 0, or -1 with the reason in errbuf. */
static int store_files_private(const char *path, char *errbuf, size_t errlen)
{
	static const char *const suffixes[] = { "", "-wal" };
	int rc = 0;

	for (size_t i = 0; i < ARRAY_LEN(suffixes) && rc == 0; i++) {
		char *name = xasprintf("%s%s", path, suffixes[i]);
		struct stat sb;

		if (stat(name, &sb) == 0 && (sb.st_mode & (S_IRWXG | S_IRWXO))) {
			snprintf(errbuf, errlen, "store file %s is accessible to others (mode %03o);"
			         " run chmod 600 on it", name, (unsigned)(sb.st_mode & 0777));
			rc = -1;
		}
		free(name);
	}
	return rc;
}

/* Only the loop thread ever calls SQLite (workers hash passwords and
 * nothing else), so SQLite's mutexes, which it takes around every allocation
 * and page access when built thread-safe, are pure cost. Must run before
 * SQLite initialises, i.e. before the first store_open; later calls fail
 * harmlessly (SQLITE_MISUSE). */
static void sqlite_single_thread(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	(void)sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

struct store *store_open(const char *path, bool synchronous_full, char *errbuf, size_t errlen)
{
	struct store *st = xcalloc(1, sizeof *st);
	const char *sync = synchronous_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";

	mode_t old_umask;
	int opened;

	sqlite_single_thread();
	make_parent_dir(path);
	if (store_files_private(path, errbuf, errlen) < 0)
		goto fail;
	/* A new file is made 0600; SQLite gives its -wal and -shm the main
	 * file's mode. umask is the process's: nothing else runs yet. */
	old_umask = umask(077);
	opened = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX, NULL);
	umask(old_umask);
	if (opened != SQLITE_OK) {
		snprintf(errbuf, errlen, "cannot open %s: %s", path,
		         st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(st->db, 1);
	if (exec(st->db, "PRAGMA journal_mode = WAL", errbuf, errlen) < 0 ||
	    exec(st->db, "PRAGMA foreign_keys = ON", errbuf, errlen) < 0 ||
	    /* 8 MiB of pages (the default is 2): lists and search over 100k users
	     * stay in memory; the budget is 64 MiB with two 19 MiB hashes. */
	    exec(st->db, "PRAGMA cache_size = -8192", errbuf, errlen) < 0 ||
	    /* Fewer, longer checkpoints (16 MiB of WAL, not 4): a page written
	     * again and again is copied back once per checkpoint
	     * (docs/BENCHMARKS.md, "Design notes"). */
	    exec(st->db, "PRAGMA wal_autocheckpoint = 4000", errbuf, errlen) < 0 ||
	    exec(st->db, sync, errbuf, errlen) < 0 ||
	    migrate(st->db, errbuf, errlen) < 0)
		goto fail;
	if (sqlite3_create_function(st->db, "iso_time", 1,
	                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
	                            sql_iso_time, NULL, NULL) != SQLITE_OK) {
		snprintf(errbuf, errlen, "%s", sqlite3_errmsg(st->db));
		goto fail;
	}

	st->core = core_set;
	st->resources = store_resources_sql;
	st->roles = store_roles_sql;
	st->users = store_users_sql;
	st->clients = store_clients_sql;
	st->tokens = store_tokens_sql;
	st->grants = store_grants_sql;
	st->keys = store_keys_sql;
	if (store_prepare_set(st, &st->core, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->resources, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->roles, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->users, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->clients, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->tokens, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->grants, errbuf, errlen) < 0 ||
	    store_prepare_set(st, &st->keys, errbuf, errlen) < 0)
		goto fail;
	return st;
fail:
	store_close(st);
	return NULL;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	finalize_set(&st->core);
	finalize_set(&st->resources);
	finalize_set(&st->roles);
	finalize_set(&st->users);
	finalize_set(&st->clients);
	finalize_set(&st->tokens);
	finalize_set(&st->grants);
	finalize_set(&st->keys);
	derived_cache_free(st->scopes);
	derived_cache_free(st->role_permissions);
	if (st->db)
		sqlite3_close(st->db);
	free(st);
}

static int run_simple(struct store *st, enum store_core_stmt which, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[which];
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, err, sqlite3_sql(s));
	return 0;
}

int store_begin(struct store *st, struct api_error *err)
{
	if (!st->batch_mode)
		return run_simple(st, SQ_BEGIN, err);
	if (!st->batch_open) {
		if (run_simple(st, SQ_BEGIN, err) < 0)
			return -1;
		st->batch_open = true;
		st->batch_opened(st->batch_arg);
	}
	if (run_simple(st, SQ_SAVEPOINT, err) < 0)
		return -1;
	st->in_savepoint = true;
	return 0;
}

int store_commit(struct store *st, struct api_error *err)
{
	st->generation++;
	if (!st->batch_mode) {
		if (run_simple(st, SQ_COMMIT, err) < 0) {
			store_rollback(st);
			return -1;
		}
		return 0;
	}
	if (run_simple(st, SQ_RELEASE, err) < 0) {
		store_rollback(st);
		return -1;
	}
	st->in_savepoint = false;
	return 0;
}

void store_rollback(struct store *st)
{
	struct api_error ignored;

	st->generation++;
	if (!st->batch_mode) {
		if (!sqlite3_get_autocommit(st->db))
			run_simple(st, SQ_ROLLBACK, &ignored);
		return;
	}
	/* Only this request's savepoint: the batch keeps the others' writes. */
	if (st->in_savepoint) {
		run_simple(st, SQ_ROLLBACK_TO, &ignored);
		run_simple(st, SQ_RELEASE, &ignored);
		st->in_savepoint = false;
	}
}

void store_batch_enable(struct store *st, void (*opened)(void *arg), void *arg)
{
	st->batch_mode = true;
	st->batch_opened = opened;
	st->batch_arg = arg;
}

bool store_batch_open(const struct store *st)
{
	return st->batch_open;
}

int store_batch_commit(struct store *st, struct api_error *err)
{
	struct api_error ignored;

	if (!st->batch_open)
		return 0;
	st->generation++;
	st->batch_open = false;
	st->in_savepoint = false;
	if (run_simple(st, SQ_COMMIT, err) < 0) {
		if (!sqlite3_get_autocommit(st->db))
			run_simple(st, SQ_ROLLBACK, &ignored);
		return -1;
	}
	return 0;
}

/* ---- projects ---- */

struct default_resource {
	const char *code;
	const char *name;
	const char *description;
};

/* CONTRACT.md §2: the four default resources, each with create, update, read. */
static const struct default_resource default_resources[] = {
	{ "resources", "Resources", "Resources and their permissions" },
	{ "users", "Users", "Users of the project" },
	{ "roles", "Roles", "Roles: sets of permissions" },
	{ "clients", "Clients", "Applications that obtain tokens" },
};

static const struct {
	const char *code;
	const char *name;
} default_permissions[] = {
	{ "create", "Create" },
	{ "update", "Update" },
	{ "read", "Read" },
};

static int insert_default_resource(struct store *st, const char *project_id,
                                   const struct default_resource *r, int64_t now,
                                   const char *client_id, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_RESOURCE_INSERT];
	char *rid = crypto_new_id();
	int rc = -1;

	store_bind_text(s, 1, rid);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, r->name);
	store_bind_text(s, 4, r->code);
	store_bind_text(s, 5, r->description);
	sqlite3_bind_int(s, 6, 1);
	sqlite3_bind_int64(s, 7, now);
	if (store_step_done(st, s, err) < 0)
		goto out;
	sqlite3_reset(s);
	for (size_t i = 0; i < ARRAY_LEN(default_permissions); i++) {
		sqlite3_stmt *p = st->core.stmt[SQ_PERMISSION_INSERT];
		sqlite3_stmt *cp = st->core.stmt[SQ_CLIENT_PERMISSION_INSERT];
		char *pid = crypto_new_id();
		char *desc = xasprintf("%s %s", default_permissions[i].name, r->code);
		int ok;

		store_bind_text(p, 1, pid);
		store_bind_text(p, 2, rid);
		store_bind_text(p, 3, project_id);
		store_bind_text(p, 4, default_permissions[i].name);
		store_bind_text(p, 5, default_permissions[i].code);
		store_bind_text(p, 6, desc);
		sqlite3_bind_int(p, 7, (int)i);
		ok = store_step_done(st, p, err) == 0;
		sqlite3_reset(p);
		if (ok) {
			store_bind_text(cp, 1, client_id);
			store_bind_text(cp, 2, pid);
			ok = store_step_done(st, cp, err) == 0;
			sqlite3_reset(cp);
		}
		free(desc);
		free(pid);
		if (!ok)
			goto out;
	}
	rc = 0;
out:
	sqlite3_reset(s);
	free(rid);
	return rc;
}

int store_project_create(struct store *st, const char *name, struct new_project *out,
                         struct api_error *err)
{
	int64_t now = now_ms();
	char hash[SECRET_HASH_LEN + 1];
	sqlite3_stmt *s;

	memset(out, 0, sizeof *out);
	out->project_id = crypto_new_id();
	out->client_id = crypto_new_id();
	out->client_secret = crypto_new_secret();
	crypto_hash_secret(out->client_secret, strlen(out->client_secret), hash);

	if (store_begin(st, err) < 0)
		goto fail;
	s = st->core.stmt[SQ_PROJECT_INSERT];
	store_bind_text(s, 1, out->project_id);
	store_bind_text(s, 2, name);
	sqlite3_bind_int64(s, 3, now);
	if (store_step_done(st, s, err) < 0)
		goto fail_tx;
	sqlite3_reset(s);

	s = st->core.stmt[SQ_CLIENT_INSERT];
	store_bind_text(s, 1, out->client_id);
	store_bind_text(s, 2, out->project_id);
	store_bind_text(s, 3, "admin");
	store_bind_text(s, 4, "The project's admin client");
	store_bind_text(s, 5, hash);
	store_bind_text(s, 6, "[]");
	sqlite3_bind_int64(s, 7, now);
	if (store_step_done(st, s, err) < 0)
		goto fail_tx;
	sqlite3_reset(s);

	for (size_t i = 0; i < ARRAY_LEN(default_resources); i++)
		if (insert_default_resource(st, out->project_id, &default_resources[i], now,
		                            out->client_id, err) < 0)
			goto fail_tx;
	if (store_commit(st, err) < 0)
		goto fail;
	return 0;
fail_tx:
	sqlite3_reset(s);
	store_rollback(st);
fail:
	store_new_project_release(out);
	return -1;
}

void store_new_project_release(struct new_project *np)
{
	free(np->project_id);
	free(np->client_id);
	crypto_wipe_free(np->client_secret);
	memset(np, 0, sizeof *np);
}

/* 1 found (and *is_active set), 0 not found, -1 error. */
static int project_read(struct store *st, const char *id, bool *is_active, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_PROJECT_GET];
	int rc;

	store_bind_text(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*is_active = sqlite3_column_int(s, 0) != 0;
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store_fail(st, err, "project get");
	}
	store_stmt_finish(s);
	return rc;
}

void store_project_get(struct store *st, const char *id, struct project_state *out,
                       struct completion done)
{
	struct api_error err;
	int rc;

	out->is_active = false;
	rc = project_read(st, id, &out->is_active, &err);

	out->found = rc == 1;
	complete(done, rc, &err);
}

json_t *store_project_list(struct store *st, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_PROJECT_LIST];
	json_t *list = json_array();
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char created[TIMESTAMP_LEN], updated[TIMESTAMP_LEN];
		format_timestamp(sqlite3_column_int64(s, 3), created);
		format_timestamp(sqlite3_column_int64(s, 4), updated);
		json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:s}",
			"id", store_column_text(s, 0), "name", store_column_text(s, 1),
			"is_active", sqlite3_column_int(s, 2), "created_at", created,
			"updated_at", updated));
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		store_fail(st, err, "project list");
		return NULL;
	}
	return list;
}

long store_project_count(struct store *st, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_PROJECT_COUNT];
	long n = -1;

	if (sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	else
		store_fail(st, err, "project count");
	sqlite3_reset(s);
	return n;
}

int store_project_set_active(struct store *st, const char *id, bool active, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_PROJECT_SET_ACTIVE];
	int rc;

	store_bind_text(s, 1, id);
	sqlite3_bind_int(s, 2, active);
	sqlite3_bind_int64(s, 3, now_ms());
	rc = store_step_done(st, s, err);
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	return sqlite3_changes(st->db) > 0;
}

/* ---- token checks ---- */

/* Fills *out (found set) and its stamp. 0, or -1 with err. */
static int client_read(struct store *st, const char *client_id, struct client_auth *out,
                       struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_CLIENT_AUTH];
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, client_id);
	rc = sqlite3_step(s);
	out->stamp = store_stamp(st);
	if (rc == SQLITE_ROW) {
		snprintf(out->project_id, sizeof out->project_id, "%s", store_column_text(s, 0));
		snprintf(out->secret_hash, sizeof out->secret_hash, "%s", store_column_text(s, 1));
		out->is_active = sqlite3_column_int(s, 2) != 0;
		out->project_active = sqlite3_column_int(s, 3) != 0;
		out->found = true;
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store_fail(st, err, "client auth");
	}
	store_stmt_finish(s);
	return rc;
}

void store_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                         struct completion done)
{
	struct api_error err;

	complete(done, client_read(st, client_id, out, &err), &err);
}

static int client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];

	if (client_read(st, client_id, out, err) < 0)
		return -1;
	if (secret) {
		/* Hashed even for an unknown client, so timing does not tell which. */
		crypto_hash_secret(secret, strlen(secret), hash);
		if (!out->found || !crypto_equal(hash, out->secret_hash))
			return api_fail(err, E_INVALID_CLIENT_CREDENTIALS,
			                "The client ID or secret is wrong.");
	} else if (!out->found) {
		return api_fail(err, E_INVALID_CLIENT, "The client ID is invalid.");
	}
	return 0;
}

void store_client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct completion done)
{
	struct api_error err;

	complete(done, client_authenticate(st, client_id, secret, out, &err), &err);
}

char *store_join_column(struct store *st, sqlite3_stmt *s, const char *key, struct api_error *err)
{
	size_t len = 0, cap = 256;
	char *out = xmalloc(cap);
	int rc;

	out[0] = '\0';
	store_bind_text(s, 1, key);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *v = store_column_text(s, 0);
		size_t n = v ? strlen(v) : 0;
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			out = xrealloc(out, cap);
		}
		if (len)
			out[len++] = ' ';
		memcpy(out + len, v ? v : "", n + 1);
		len += n;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		free(out);
		store_fail(st, err, sqlite3_sql(s));
		return NULL;
	}
	return out;
}

struct store_stamp store_stamp(struct store *st)
{
	struct store_stamp now = { st->generation, 0, true };
	unsigned v = 0;

	/* Not expected to fail for "main"; if it did, nothing may be cached. */
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK)
		now.known = false;
	now.data_version = v;
	return now;
}

static void free_string(void *p)
{
	free(p);
}

/* A client's scope is read on every client_credentials grant and changes
 * rarely, so it is cached. */
void store_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                        char **out, struct completion done)
{
	struct api_error err;
	const char *cached;

	if (!st->scopes)
		st->scopes = derived_cache_new(free_string);
	cached = derived_cache_get(st->scopes, client_id, at);
	if (cached) {
		*out = xstrdup(cached);
		complete(done, 0, NULL);
		return;
	}
	*out = store_join_column(st, st->core.stmt[SQ_CLIENT_SCOPE], client_id, &err);
	if (*out)
		derived_cache_put(st->scopes, client_id, at, xstrdup(*out));
	complete(done, *out ? 0 : -1, &err);
}

void store_user_is_active(struct store *st, const char *project_id, const char *user_id,
                          bool *active, struct completion done)
{
	struct api_error err;
	int rc = store_exists(st, st->core.stmt[SQ_USER_ACTIVE], user_id, project_id, NULL, &err);

	*active = rc == 1;
	complete(done, rc, &err);
}

void store_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                            const char *user_id, long long iat_s, bool *ok,
                            struct completion done)
{
	sqlite3_stmt *s = st->core.stmt[SQ_TOKEN_HOLDERS];
	struct api_error err;
	int rc;

	sqlite3_bind_int64(s, 4, iat_s);
	rc = store_exists(st, s, client_id, project_id, user_id, &err);
	*ok = rc == 1;
	complete(done, rc, &err);
}

void store_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                            struct store_stamp *stamp, struct completion done)
{
	struct api_error err;
	int rc = store_exists(st, st->core.stmt[SQ_TOKEN_REVOKED], jti, NULL, NULL, &err);

	*revoked = rc == 1;
	*stamp = store_stamp(st);
	complete(done, rc, &err);
}

int store_permissions_check(struct store *st, const char *project_id,
                            const struct id_list *ids, struct api_error *err)
{
	sqlite3_stmt *s = st->core.stmt[SQ_PERMISSION_IN_PROJECT];

	for (size_t i = 0; i < ids->count; i++) {
		int rc;
		store_bind_text(s, 1, ids->ids[i]);
		store_bind_text(s, 2, project_id);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc == SQLITE_DONE)
			return api_fail(err, E_SOME_PERMISSIONS_NOT_FOUND,
			                "One or more permission IDs do not exist in this project.");
		if (rc != SQLITE_ROW)
			return store_fail(st, err, "permission check");
	}
	return 0;
}
