#ifndef EDGEAUTH_STORE_H
#define EDGEAUTH_STORE_H
/*
 * The store: one SQLite file in WAL mode, opened once, its schema migrated at
 * open (PRAGMA user_version), every statement prepared at open and reused.
 * Only the thread that opened it uses it. Each API area keeps its statements
 * in its own store_<area>.c; this file holds the connection, transactions,
 * projects and what token checks need.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include <jansson.h>

#include "error.h"
#include "flow.h"
#include "store_cache.h"
#include "store_files.h"

/* Operations a request uses take a struct completion (flow.h) and call it
 * once: the SQLite backend before it returns; a backend that waits on a
 * network will call it later, from the loop. */
/* Statements of one area: an array of SQL texts prepared into an array of
 * statements at open, finalized at close. */
struct stmt_set {
	size_t count;
	const char *const *sql;
	sqlite3_stmt **stmt;
};

enum store_core_stmt {
	SQ_BEGIN,
	SQ_COMMIT,
	SQ_ROLLBACK,
	SQ_SAVEPOINT,
	SQ_RELEASE,
	SQ_ROLLBACK_TO,
	SQ_READ_BEGIN,
	SQ_READ_START,
	SQ__COUNT
};

struct pg_pool;

/* A PostgreSQL purge (store_pg.h, pg_purge_run): it answers after the tick
 * that started it, so a tick reads the count of the last run that ended. */
struct store_purge_run {
	bool busy;            /* a run is in flight: the tick starts none */
	long long count;      /* the run's, as its result has it */
	int last;             /* rows the last ended run deleted; 0 after a failure */
	const char *what;     /* for the log line of a failure */
};
enum { STORE_PURGE_TOKENS, STORE_PURGE_SESSIONS, STORE_PURGE_EVENTS, STORE_PURGE__N };

struct store_backend;

struct store {
	/* The backend's table of operations (store_backend.h), set at open:
	 * the front's functions call through it. */
	const struct store_backend *be;
	sqlite3 *db;
	/* The PostgreSQL backend (store_pg.h) when [store] backend = postgres;
	 * then db is NULL, and each operation's first line hands it over. */
	struct pg_pool *pg;
	/* This node's name there (its host and listen address: the same after
	 * a restart, another node's differs): its outbox claims (pg_outbox.c). */
	char *pg_node;
	struct store_purge_run purges[STORE_PURGE__N];
	struct stmt_set core;
	struct stmt_set projects;
	struct stmt_set resources;
	struct stmt_set roles;
	struct stmt_set users;
	struct stmt_set users_list;
	struct stmt_set clients;
	struct stmt_set tokens;
	struct stmt_set grants;
	struct stmt_set keys;
	struct stmt_set outbox;
	struct stmt_set sessions;
	struct stmt_set events;
	/* The audit trail's sink and the records of events that wait for their
	 * commit, each ending in '\n' (store_events.h). */
	const struct event_origin *events_origin;   /* store_events_origin */
	void (*events_sink)(void *arg, const char *lines, size_t len);
	void *events_sink_arg;
	char *events_pending;
	size_t events_len, events_cap, events_mark;
	/* Caches of derived data, good at one store_stamp: our own commits and
	 * rollbacks bump generation (a savepoint's release moves no data
	 * version). */
	uint64_t generation;
	struct store_cache *client_rows;        /* client ID -> struct client_auth */
	struct store_cache *scopes;             /* client ID -> scope */
	struct store_cache *role_permissions;   /* role ID -> its token permissions, JSON text */
	/* Group commit (store_batch_enable): one transaction holds the writes of
	 * many requests; each store_begin .. store_commit is a savepoint in it. */
	bool batch_mode;
	bool batch_open;
	bool in_savepoint;
	bool batch_queued_logouts;   /* store_batch_queued_logouts */
	/* The statements whose programs insert into the back-channel outbox
	 * (as SQLite's authorizer saw at open): only their runs can queue a
	 * logout. */
	sqlite3_stmt **logout_writers;
	size_t logout_writer_count;
	/* The loop iteration's read transaction (store_read_stamp), ended with
	 * the batch or before a write begins, and its snapshot's data version. */
	bool read_open;
	unsigned read_version;   /* as SQLITE_FCNTL_DATA_VERSION writes it */
	void (*batch_opened)(void *arg);
	void *batch_arg;
	/* synchronous=full: with group commit the batch's sync is the caller's
	 * (store_batch_needs_sync), off the loop; wal_path is the file it syncs */
	bool synchronous_full;
	bool batch_needs_sync;
	struct store_files files;
	/* store_fail_writes: the store refuses every write until restart (the
	 * log said why, once) */
	bool failed;
	bool rescue_wal;   /* store_fail_writes: the checkpoint still to run */
	/* The WAL held frames when the store was opened: the last server
	 * stopped without checkpointing (a crash, a kill) */
	bool unclean_open;
	void (*batch_writing)(void *arg);   /* store_batch_on_write */
	/* store_outbox_on_queued's */
	void (*outbox_queued)(void *arg);
	void *outbox_queued_arg;
};

/* Opens (creating if needed) the database at path, applies pending
 * migrations, sets WAL, foreign_keys, busy_timeout and synchronous (full or
 * normal), prepares every statement. Returns NULL with a reason in errbuf. */
struct store *store_open(const char *path, bool synchronous_full, char *errbuf, size_t errlen);
void store_close(struct store *st);
/* Creates the directories of path that are missing (mode 0700, with their
 * parents: README's quick start lets [store] path name a new directory).
 * Returns 0, or -1 with the system's reason in errbuf. */
int store_make_parent_dir(const char *path, char *errbuf, size_t errlen);
/* The schema version this edgeauth migrates to (the migrations it holds). */
extern const size_t schema_migration_count;

/* Transactions (BEGIN IMMEDIATE). store_rollback is safe to call when no
 * transaction is open. Failures fill err with system_error. */
int store_begin(struct store *st, struct api_error *err);
int store_commit(struct store *st, struct api_error *err);
void store_rollback(struct store *st);

/* Group commit. After this, the first store_begin opens a batch transaction
 * and calls opened(arg), which must arrange for store_batch_commit to run
 * soon (after the loop has handled what is ready now). Until then nothing a
 * request wrote is durable, so its answer must wait (store_batch_open).
 * store_read_stamp's read transaction calls opened(arg) too. */
void store_batch_enable(struct store *st, void (*opened)(void *arg), void *arg);
bool store_batch_open(const struct store *st);
/* Commits the batch (and ends the read transaction of store_read_stamp); on
 * failure rolls it back and returns -1 with err. */
int store_batch_commit(struct store *st, struct api_error *err);
/* With synchronous=full, group commit does not wait for the disk: SQLite
 * commits a batch without a sync (its NORMAL), and the batch is durable
 * only once store_files_sync(store_sync_target()) has returned 0 after the
 * commit; until then its answers wait, and the loop goes on. True when the
 * batch store_batch_commit committed last wrote and so needs that sync. */
bool store_batch_needs_sync(const struct store *st);
/* The files whose sync makes committed batches durable; NULL when batches
 * need none (synchronous=normal, PostgreSQL). Good while st is. */
struct store_files *store_sync_target(struct store *st);
/* From now on every write is refused with 503 system_error (store_begin,
 * a write outside a transaction), and the close leaves the WAL alone:
 * what the store's files hold can no longer be trusted to survive, or a
 * checkpoint would carry a broken WAL into the store file. Logs why once.
 * Restart the server once the files are repaired. check is what
 * store_files_check (or _sync) returned: after STORE_FILES_WAL_UNLINKED
 * the next store_batch_commit (or the close) first checkpoints what the
 * unlinked WAL holds into the store file, which keeps every write
 * answered before. */
void store_fail_writes(struct store *st, int check, const char *why);
/* Whether store_fail_writes was called. */
bool store_writes_failed(const struct store *st);
/* Called (with the batch's arg) when a write transaction begins in a batch:
 * its request is one whose answer a failed batch commit must fail. */
void store_batch_on_write(struct store *st, void (*writing)(void *arg));
/* After a crash, a store that SQLite's recovery finds but cannot read (a
 * file replaced underneath the last server) is refused at start: when the
 * store was opened with a WAL full of frames, PRAGMA quick_check. 0, or -1
 * with the reason in errbuf. */
int store_check_after_crash(struct store *st, char *errbuf, size_t errlen);
/* Whether the batch store_batch_commit committed last may have queued
 * back-channel logouts: one of its statements inserts into the outbox
 * (store_outbox.h), itself or through a trigger or cascade. Without one
 * the outbox needs no read after the commit. */
bool store_batch_queued_logouts(const struct store *st);
/* Whether no operation is under way, so that the loop may end (a network
 * store's operations complete later; SQLite's never wait). */
bool store_idle(const struct store *st);

/* ---- the SQLite backend's idioms: one way each ----
 *
 * Every statement use ends in store_stmt_finish, on every path. Reading:
 * store_step says row, done or error. Writing: store_step_write maps a
 * UNIQUE failure to the spec's error by asking which rule the row breaks,
 * never by reading the message. A write is one transaction:
 * store_write_tx runs the checks and statements, reads the record back in
 * the same transaction, and commits, or rolls back on any failure. */

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
 * missing: its code and sentence (the area's *_not_found). 0, or -1 with
 * err. Finishes s. Also a write's read back (store_write_tx), where the row
 * is one the write has just made or kept. */
struct record_missing {
	enum api_code code;
	const char *sentence;
};
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

/* Binds key to ?1, steps s and joins column 0 of every row with spaces.
 * Returns a new string ("" for no rows) or NULL with err. */
char *store_join_column(struct store *st, sqlite3_stmt *s, const char *key, struct api_error *err);
/* Prepares set->count statements from set->sql into set->stmt. */
int store_prepare_set(struct store *st, struct stmt_set *set, char *errbuf, size_t errlen);

/* Each area's statements, defined in store_<area>.c. */
extern const struct stmt_set store_projects_sql;
extern const struct stmt_set store_resources_sql;
extern const struct stmt_set store_roles_sql;
extern const struct stmt_set store_users_sql;
extern const struct stmt_set store_users_list_sql;
extern const struct stmt_set store_clients_sql;
extern const struct stmt_set store_tokens_sql;
extern const struct stmt_set store_grants_sql;
extern const struct stmt_set store_keys_sql;
extern const struct stmt_set store_outbox_sql;
extern const struct stmt_set store_sessions_sql;
extern const struct stmt_set store_events_sql;

/* The stamp of the store as this request reads it (store_cache.h): call it
 * only after the request has stepped a statement. */
struct store_stamp store_stamp(struct store *st);
/* The stamp of the store as this request's reads see it, for a cache that
 * no statement precedes. With group commit and no transaction open, it
 * first opens the loop iteration's read transaction, which the batch's
 * commit (or a store_begin) ends: the reads of one iteration then share
 * one snapshot and its file locks (two fcntl a read, ~8 us here:
 * docs/BENCHMARKS.md), and a commit of another process is seen at the
 * next iteration. Without group commit, outside a transaction, the stamp
 * is unknown: a cache misses. */
struct store_stamp store_read_stamp(struct store *st);

#endif
