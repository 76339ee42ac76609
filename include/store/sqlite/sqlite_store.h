#ifndef EDGEAUTH_SQLITE_STORE_H
#define EDGEAUTH_SQLITE_STORE_H
/*
 * The SQLite backend's store: struct store (store.h, what callers see)
 * first, then what only the SQLite backend uses: the connection, its
 * statements, its read transaction and its files. store_open makes one;
 * the backend's functions reach it with sqlite_of. Only the SQLite
 * backend's files include this (and unit tests that look inside).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>

#include "sqlite_backend.h"
#include "store.h"
#include "store_files.h"

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

struct sqlite_store {
	struct store base;   /* first: a struct store * of this backend points here */
	sqlite3 *db;
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
	struct stmt_set factors;
	struct stmt_set forward;
	struct stmt_set passkeys;
	struct stmt_set device;
	struct stmt_set access;
	/* The statements whose programs insert into the back-channel outbox
	 * (as SQLite's authorizer saw at open): only their runs can queue a
	 * logout. */
	sqlite3_stmt **logout_writers;
	size_t logout_writer_count;
	/* The loop iteration's read transaction (store_read_stamp), ended with
	 * the batch or before a write begins, and its snapshot's data version. */
	bool read_open;
	unsigned read_version;   /* as SQLITE_FCNTL_DATA_VERSION writes it */
	/* synchronous=full: with group commit the batch's sync is the caller's
	 * (store_batch_needs_sync), off the loop; wal_path is the file it syncs */
	bool synchronous_full;
	struct store_files files;
	bool rescue_wal;   /* store_fail_writes: the checkpoint still to run */
	/* The WAL held frames when the store was opened: the last server
	 * stopped without checkpointing (a crash, a kill) */
	bool unclean_open;
};

/* The SQLite part of st, a store of this backend (the backend's own
 * functions are only ever called with one). */
static inline struct sqlite_store *sqlite_of(struct store *st)
{
	return (struct sqlite_store *)st;
}

/* The same for a function of store.h that either backend's store may be
 * handed: NULL when st is not SQLite's. */
static inline struct sqlite_store *sqlite_or_null(struct store *st)
{
	return st->be == &sqlite_backend ? (struct sqlite_store *)st : NULL;
}

/* Prepares set->count statements from set->sql into set->stmt. */
int store_prepare_set(struct store *st, struct stmt_set *set, char *errbuf, size_t errlen);

/* Each area's statements, defined in sqlite_<area>.c. */
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
extern const struct stmt_set store_factors_sql;
extern const struct stmt_set store_forward_sql;
extern const struct stmt_set store_passkeys_sql;
extern const struct stmt_set store_device_sql;
extern const struct stmt_set store_access_sql;

/* What the close (sqlite_store.c) asks of the transactions (sqlite_tx.c):
 * ends the loop iteration's read transaction and, after store_fail_writes
 * saw the WAL unlinked, copies what the WAL holds into the store file:
 * every write answered is kept. */
void sqlite_tx_close(struct sqlite_store *sq);

#endif
