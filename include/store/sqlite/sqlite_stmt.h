#ifndef EDGEAUTH_SQLITE_STMT_H
#define EDGEAUTH_SQLITE_STMT_H
/*
 * The SQLite backend's idioms, one way each, for its own files only
 * (sqlite_stmt.c; store_step_write is sqlite_tx.c's). Every statement use
 * ends in store_stmt_finish, on every path. Reading: store_step says row,
 * done or error. Writing: store_step_write maps a
 * UNIQUE failure to the spec's error by asking which rule the row breaks,
 * never by reading the message. A write is one transaction:
 * store_write_tx runs the checks and statements, reads the record back in
 * the same transaction, and commits, or rolls back on any failure.
 */
#include <stddef.h>
#include <sqlite3.h>

#include "error.h"
#include "flow.h"
#include "sqlite_store.h"
#include "store.h"

/* Steps s once: 1 a row, 0 done, -1 error (system_error, logged). */
int store_step(struct store *st, sqlite3_stmt *s, struct api_error *err);

/* What a UNIQUE failure of a write can mean, in the order asked: probe
 * returns 1 when the row a value conflicts with exists, 0 not, -1 error. */
struct unique_rule {
	int (*probe)(struct store *st, void *arg, struct api_error *err);
	enum api_code code;
	const char *description;
};
/* Steps the write s once and finishes it: 0 done; on a UNIQUE failure the
 * first rule whose probe finds the conflict gives the error (none found:
 * system_error); any other failure is system_error. -1 then. */
int store_step_write(struct store *st, sqlite3_stmt *s, const struct unique_rule *rules,
                     size_t n_rules, void *arg, struct api_error *err);
/* One batch of a purge, a write of its own: s deletes at most ?2 (batch)
 * of the rows the cut-off ?1 (before) leaves behind. Returns how many
 * went, or -1 with err. */
int store_purge_batch(struct store *st, sqlite3_stmt *s, int64_t before, int batch,
                      struct api_error *err);

/* One write transaction: write(st, arg, err) runs the checks and statements;
 * when it returns 0, read_back (may be NULL) reads the record in the same
 * transaction, and the transaction commits; any -1 rolls it all back.
 * Returns 0 or -1 with err. */
int store_write_tx(struct store *st, int (*write)(struct store *st, void *arg, struct api_error *err),
                   int (*read_back)(struct store *st, void *arg, struct api_error *err),
                   void *arg, struct api_error *err);
/* The same for a change the audit trail records: ev (store_events.h; NULL:
 * none) is inserted after write, in its transaction. */
struct event;
struct event_origin;
int store_write_tx_event(struct store *st,
                         int (*write)(struct store *st, void *arg, struct api_error *err),
                         int (*read_back)(struct store *st, void *arg, struct api_error *err),
                         void *arg, const struct event *ev, struct api_error *err);

/* Helpers for statement use: bind a string or NULL; step expecting DONE;
 * turn an unexpected SQLite result into system_error (and log it). */
int store_bind_text(sqlite3_stmt *s, int idx, const char *v);
const char *store_column_text(sqlite3_stmt *s, int col);   /* NULL for SQL NULL */
/* Column col of s, copied (caller frees); NULL for SQL NULL. */
char *store_column_dup(sqlite3_stmt *s, int col);
int store_step_done(struct store *st, sqlite3_stmt *s, struct api_error *err);
int store_fail(struct store *st, struct api_error *err, const char *what);
/* Resets a statement and drops its bindings, which point into the caller's
 * strings (SQLITE_STATIC). Every path through a statement ends here. */
void store_stmt_finish(sqlite3_stmt *s);
/* Binds a, b, c (as many as s has parameters; NULL binds NULL) to a
 * single-row query and steps it once: 1 a row, 0 none, -1 error (err set). */
int store_exists(struct store *st, sqlite3_stmt *s, const char *a, const char *b, const char *c,
                 struct api_error *err);
/* One record of a project, by ID: binds id to ?1 and project_id to ?2 of
 * s, a statement that builds the record (one statement: docs/api.md §"Read one and delete"'s
 * get-by-id is a hot path), and steps it once; *out is a copy of the
 * record's text (caller frees). Without a row, *out is NULL and err is
 * missing (store.h): its code and sentence (the area's *_not_found). 0, or
 * -1 with err. Finishes s. Also a write's read back (store_write_tx), where
 * the row is one the write has just made or kept. */
int store_read_record(struct store *st, sqlite3_stmt *s, const char *id, const char *project_id,
                      const struct record_missing *missing, char **out, struct api_error *err);
/* store_read_record as an operation: completes done. */
void store_get_record(struct store *st, sqlite3_stmt *s, const char *id, const char *project_id,
                      const struct record_missing *missing, char **out, struct completion done);

/* A delete of one record of a project (docs/api.md §"Read one and delete"), in one transaction:
 * find (?1 the ID, ?2 the project) must give a row, else missing; then
 * check (NULL: none) may refuse, with the record still there (no
 * escalation, a default resource); then remove (?1 the ID) deletes it, and
 * the schema's foreign keys and triggers do the rest. */
struct record_delete {
	sqlite3_stmt *find;
	sqlite3_stmt *remove;
	struct record_missing missing;
	int (*check)(struct store *st, const char *id, const void *arg, struct api_error *err);
	const void *check_arg;
	const struct event *event;   /* the audit trail's (NULL: none) */
};
void store_delete_record(struct store *st, const struct record_delete *d, const char *id,
                         const char *project_id, struct completion done);
/* Steps a page statement, whose one row holds the number of all matches and
 * the page's records as a JSON array's text, into *out, and finishes it.
 * 0, or -1 with system_error. */
struct page;
int store_read_page(struct store *st, sqlite3_stmt *s, struct page *out, struct api_error *err);
/* The condition that the SQL expression col holds the raw search term (an
 * SQL expression, a bound parameter) anywhere, ASCII letters in any case,
 * with %, _ and \ in it literal (docs/api.md §"Lists"). The pattern is made once
 * per statement run: it depends on parameters only. */
#define SQL_CONTAINS(col, term) \
	" " col " LIKE ('%' || replace(replace(replace(" term ", '\\', '\\\\'), '%', '\\%')," \
	" '_', '\\_') || '%') ESCAPE '\\'"
/* The scope statements' condition on the resource r and the permission pm:
 * both codes are ones a create accepts (validate_code). An update may store
 * any resource code of 50 characters (docs/api.md §"Resources"), and "x users" + ":read"
 * would read as the scope tokens "x" and "users:read"; such a permission is
 * left out of every token. The API checks every permission code, but the
 * store is data: a row written by another tool is held to it too, so that
 * a scope never needs a JSON escape (api_tokens.c writes it as it is). */
#define SQL_SCOPE_CODES_OK \
	" AND r.code <> '' AND r.code NOT GLOB '*[^A-Za-z0-9_-]*'" \
	" AND pm.code <> '' AND pm.code NOT GLOB '*[^A-Za-z0-9_-]*'"
/* A permission's named form (docs/api.md §"Permissions and default resources": "users:read") over a
 * permission pm and its resource r, spelled once for every statement. */
#define SQL_NAMED_PERMISSION "r.code || ':' || pm.code"
/* Joins pm, the permission whose ID is in column ref, and r, its resource. */
#define SQL_JOIN_PERMISSION(ref) \
	" JOIN permissions pm ON pm.id = " ref " JOIN resources r ON r.id = pm.resource_id"
/* What a holder has, as rows of pm and r: the permissions of the client ?1,
 * of the role ?1, or of the role of the user ?1. */
#define SQL_CLIENT_PERMISSIONS \
	"client_permissions cp" SQL_JOIN_PERMISSION("cp.permission_id") " WHERE cp.client_id = ?1"
#define SQL_ROLE_PERMISSIONS \
	"role_permissions rp" SQL_JOIN_PERMISSION("rp.permission_id") " WHERE rp.role_id = ?1"
#define SQL_USER_PERMISSIONS \
	"users u JOIN role_permissions rp ON rp.role_id = u.role_id" \
	SQL_JOIN_PERMISSION("rp.permission_id") " WHERE u.id = ?1"
/* What a token of a holder carries: the named permissions of the rows of pm
 * and r that from (one of the above) selects, those SQL_SCOPE_CODES_OK lets
 * through, in column named, sorted as a scope is. */
#define SQL_TOKEN_PERMISSIONS(from) \
	"SELECT " SQL_NAMED_PERMISSION " AS named FROM " from SQL_SCOPE_CODES_OK " ORDER BY named"

/* A list's total: with no filter (unfiltered, an SQL condition on the
 * list's parameters) the project's (?1) count kept in record_counts'
 * column (schema/026_record_counts.sql), else count (a SELECT). The CASE
 * runs only the subquery it takes. */
#define SQL_RECORD_COUNT(column, unfiltered, count) \
	"CASE WHEN " unfiltered " THEN coalesce((SELECT " column \
	" FROM record_counts WHERE project_id = ?1), 0) ELSE (" count ") END"

/* Binds key to ?1, steps s and joins column 0 of every row with spaces.
 * Returns a new string ("" for no rows) or NULL with err. */
char *store_join_column(struct store *st, sqlite3_stmt *s, const char *key, struct api_error *err);
/* The same, answered from *cache (made on first use, counted under metric)
 * while the store is at stamp at, and kept there after a read. */
char *store_join_column_cached(struct store *st, struct store_cache **cache,
                               enum metrics_cache metric, sqlite3_stmt *s, const char *key,
                               struct store_stamp at, struct api_error *err);

#endif
