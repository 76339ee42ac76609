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
	SQ_PROJECT_INSERT,
	SQ_PROJECT_GET,
	SQ_PROJECT_LIST,
	SQ_PROJECT_COUNT,
	SQ_PROJECT_SET_ACTIVE,
	SQ_RESOURCE_INSERT,
	SQ_PERMISSION_INSERT,
	SQ_CLIENT_INSERT,
	SQ_CLIENT_PERMISSION_INSERT,
	SQ_CLIENT_AUTH,
	SQ_CLIENT_SCOPE,
	SQ_USER_ACTIVE,
	SQ_TOKEN_REVOKED,
	SQ_TOKEN_HOLDERS,
	SQ_PERMISSION_IN_PROJECT,
	SQ_SAVEPOINT,
	SQ_RELEASE,
	SQ_ROLLBACK_TO,
	SQ__COUNT
};

struct store {
	sqlite3 *db;
	struct stmt_set core;
	struct stmt_set resources;
	struct stmt_set roles;
	struct stmt_set users;
	struct stmt_set clients;
	struct stmt_set tokens;
	struct stmt_set grants;
	struct stmt_set keys;
	/* Caches of derived data, good at one store_stamp: our own commits and
	 * rollbacks bump generation (a savepoint's release moves no data
	 * version). */
	uint64_t generation;
	struct derived_cache *scopes;             /* client ID -> scope */
	struct derived_cache *role_permissions;   /* role ID -> JSON array of names */
	/* Group commit (store_batch_enable): one transaction holds the writes of
	 * many requests; each store_begin .. store_commit is a savepoint in it. */
	bool batch_mode;
	bool batch_open;
	bool in_savepoint;
	void (*batch_opened)(void *arg);
	void *batch_arg;
};

/* Opens (creating if needed) the database at path, applies pending
 * migrations, sets WAL, foreign_keys, busy_timeout and synchronous (full or
 * normal), prepares every statement. Returns NULL with a reason in errbuf. */
struct store *store_open(const char *path, bool synchronous_full, char *errbuf, size_t errlen);
void store_close(struct store *st);

/* Transactions (BEGIN IMMEDIATE). store_rollback is safe to call when no
 * transaction is open. Failures fill err with system_error. */
int store_begin(struct store *st, struct api_error *err);
int store_commit(struct store *st, struct api_error *err);
void store_rollback(struct store *st);

/* Group commit. After this, the first store_begin opens a batch transaction
 * and calls opened(arg), which must arrange for store_batch_commit to run
 * soon (after the loop has handled what is ready now). Until then nothing a
 * request wrote is durable, so its answer must wait (store_batch_open). */
void store_batch_enable(struct store *st, void (*opened)(void *arg), void *arg);
bool store_batch_open(const struct store *st);
/* Commits the batch; on failure rolls it back and returns -1 with err. */
int store_batch_commit(struct store *st, struct api_error *err);

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
/* The scope statements' condition on the resource r and the permission pm:
 * both codes are ones a create accepts (validate_code). An update may store
 * any resource code of 50 characters (SPEC.md), and "x users" + ":read"
 * would read as the scope tokens "x" and "users:read"; such a permission is
 * left out of every token. The API checks every permission code, but the
 * store is data: a row written by another tool is held to it too, so that
 * a scope never needs a JSON escape (api_tokens.c writes it as it is). */
#define SQL_SCOPE_CODES_OK \
	" AND r.code <> '' AND r.code NOT GLOB '*[^A-Za-z0-9_-]*'" \
	" AND pm.code <> '' AND pm.code NOT GLOB '*[^A-Za-z0-9_-]*'"
/* A permission's named form (CONTRACT.md §2: "users:read") over a
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

/* Binds key to ?1, steps s and joins column 0 of every row with spaces.
 * Returns a new string ("" for no rows) or NULL with err. */
char *store_join_column(struct store *st, sqlite3_stmt *s, const char *key, struct api_error *err);
/* Prepares set->count statements from set->sql into set->stmt. */
int store_prepare_set(struct store *st, struct stmt_set *set, char *errbuf, size_t errlen);

/* Each area's statements, defined in store_<area>.c. */
extern const struct stmt_set store_resources_sql;
extern const struct stmt_set store_roles_sql;
extern const struct stmt_set store_users_sql;
extern const struct stmt_set store_clients_sql;
extern const struct stmt_set store_tokens_sql;
extern const struct stmt_set store_grants_sql;
extern const struct stmt_set store_keys_sql;

/* ---- projects ---- */

/* Credentials of a new project's admin client; strings owned, release with
 * store_new_project_release (which wipes the secret). */
struct new_project {
	char *project_id;
	char *client_id;
	char *client_secret;
};
/* Creates an active project with the four default resources (CONTRACT.md §2)
 * and an active admin client holding all twelve named permissions. */
int store_project_create(struct store *st, const char *name, struct new_project *out,
                         struct api_error *err);
void store_new_project_release(struct new_project *np);
/* Whether the project exists, and is active. */
struct project_state {
	bool found;
	bool is_active;
};
void store_project_get(struct store *st, const char *id, struct project_state *out,
                       struct completion done);
/* JSON array of {id, name, is_active, created_at, updated_at}, oldest first. */
json_t *store_project_list(struct store *st, struct api_error *err);
long store_project_count(struct store *st, struct api_error *err);
/* 1 changed, 0 no such project, -1 error. */
int store_project_set_active(struct store *st, const char *id, bool active, struct api_error *err);

/* ---- what token issue and checks read ---- */

/* A client as a grant or token check reads it. */
struct client_auth {
	bool found;
	char project_id[80];
	char secret_hash[64];
	bool is_active;
	bool project_active;
	struct store_stamp stamp;   /* the store as this read saw it */
};
/* The client (out->found false: none such). */
void store_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                         struct completion done);
/* Authenticates a client: with a secret (Basic) it must be the client's,
 * else invalid_client_credentials; without one (a public client naming
 * itself) the client must exist, else invalid_client. Fills *out. The
 * active flags are the caller's to judge. */
void store_client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct completion done);
/* The client's named permissions ("users:read"), sorted, space-separated,
 * into *out (caller frees). at: the stamp of the read that found the client
 * (a scope is cached for it). */
void store_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                        char **out, struct completion done);
/* The stamp of the store as this request reads it (store_cache.h): call it
 * only after the request has stepped a statement. */
struct store_stamp store_stamp(struct store *st);
/* Whether the holders of an access token still stand behind it (CONTRACT.md
 * §5): the client exists in the project, the client and project are active,
 * a user token's user (user_id non-NULL) exists in the project and is
 * active, and none of them was deactivated in or after the second iat_s
 * (schema/006). */
void store_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                            const char *user_id, long long iat_s, bool *ok,
                            struct completion done);
/* Whether the user exists in the project and is active. */
void store_user_is_active(struct store *st, const char *project_id, const char *user_id,
                          bool *active, struct completion done);
/* Fails with some_permissions_not_found unless every ID names a permission
 * of the project. Returns 0 or -1. */
struct id_list;
int store_permissions_check(struct store *st, const char *project_id,
                            const struct id_list *ids, struct api_error *err);

/* Whether the access token jti is revoked, and the stamp of that read. */
void store_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                            struct store_stamp *stamp, struct completion done);

#endif
