#ifndef EDGEAUTH_STORE_H
#define EDGEAUTH_STORE_H
/*
 * The store, whatever its backend: SQLite (one file in WAL mode, opened by
 * store_open, src/store/sqlite/) or PostgreSQL (src/store/pg/); the top
 * opens the configured one by store_open_config (store_config.h). Each
 * backend embeds struct store as the first member of its own (struct
 * sqlite_store: sqlite_store.h) and keeps what is its own there: callers
 * see only this part. Each API area's operations are in
 * store_<area>.h. Only the thread that opened the store uses it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "error.h"
#include "flow.h"
#include "store_cache.h"
#include "store_files.h"

/* Operations a request uses take a struct completion (flow.h) and call it
 * once: the SQLite backend before it returns; a backend that waits on a
 * network will call it later, from the loop. */
struct store_backend;
struct event_base;

struct store {
	/* The backend's table of operations (store_backend.h), set at open:
	 * the front's functions call through it. */
	const struct store_backend *be;
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
	struct store_cache *user_scopes;        /* user ID -> scope */
	struct store_cache *role_permissions;   /* role ID -> its token permissions, JSON text */
	/* Group commit (store_batch_enable): one transaction holds the writes of
	 * many requests; each store_begin .. store_commit is a savepoint in it. */
	bool batch_mode;
	bool batch_open;
	bool in_savepoint;
	bool batch_queued_logouts;   /* store_batch_queued_logouts */
	void (*batch_opened)(void *arg);
	void *batch_arg;
	bool batch_needs_sync;   /* store_batch_needs_sync */
	/* store_fail_writes: the store refuses every write until restart (the
	 * log said why, once) */
	bool failed;
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
/* The store starts serving from the loop: PostgreSQL's connections leave
 * blocking mode (and the start-up lock is released: store_pg.c). No-op on
 * SQLite. */
void store_serve(struct store *st, struct event_base *base);
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

/* What a read of one record answers when there is none: the area's
 * *_not_found code and sentence (store_role_missing and its like). */
struct record_missing {
	enum api_code code;
	const char *sentence;
};

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
