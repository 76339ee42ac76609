/*
 * The SQLite store's transactions: a request's (store_begin .. store_commit),
 * group commit's batches, the loop iteration's read transaction and the
 * stamps caches are good at, and the refusal of writes once the store's
 * files cannot be trusted (store_fail_writes). sqlite_store.c opens and
 * closes the connection. Must never be used from any thread but the one that
 * opened it.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store.h"
#include "store_events.h"
#include "store_files.h"
#include "util.h"

static void read_end(struct store *st);
static void rescue_unlinked_wal(struct store *st);

/* A write while store_fail_writes holds. */
static int refuse_write(struct api_error *err)
{
	return api_fail(err, E_STORE_UNAVAILABLE, "The store refuses writes; see the server's log.");
}

int store_step_write(struct store *st, sqlite3_stmt *s, const struct unique_rule *rules,
                     size_t n_rules, void *arg, struct api_error *err)
{
	int rc;

	/* a write outside store_begin (a purge) commits on its own, as it did
	 * before store_read_stamp's read transaction */
	read_end(st);
	/* (BEGIN, COMMIT and the like count as read-only: a read goes on) */
	if (st->failed && sqlite3_get_autocommit(sqlite_of(st)->db) && !sqlite3_stmt_readonly(s)) {
		store_stmt_finish(s);
		return refuse_write(err);
	}
	rc = sqlite3_step(s);
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
	log_error("store: a UNIQUE failure no rule explains");
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

int store_purge_batch(struct store *st, sqlite3_stmt *s, int64_t before, int batch,
                      struct api_error *err)
{
	sqlite3_bind_int64(s, 1, before);
	sqlite3_bind_int(s, 2, batch);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return sqlite3_changes(sqlite_of(st)->db);
}

/* Whether a statement that can queue a back-channel logout ran since the
 * last call (SQLite counts a statement's runs; reading resets the count). */
static bool logout_writers_ran(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);
	bool ran = false;

	for (size_t i = 0; i < sq->logout_writer_count; i++)
		ran |= sqlite3_stmt_status(sq->logout_writers[i], SQLITE_STMTSTATUS_RUN, 1) > 0;
	return ran;
}

static int run_simple(struct store *st, enum store_core_stmt which, struct api_error *err)
{
	return store_step_write(st, sqlite_of(st)->core.stmt[which], NULL, 0, NULL, err);
}

/* Ends the read transaction of store_read_stamp, if open: it wrote nothing,
 * so its end cannot lose anything. */
static void read_end(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);
	struct api_error ignored;

	if (!sq->read_open)
		return;
	sq->read_open = false;
	if (run_simple(st, SQ_COMMIT, &ignored) < 0 && !sqlite3_get_autocommit(sq->db))
		run_simple(st, SQ_ROLLBACK, &ignored);
}

/* Opens the iteration's read transaction and starts its snapshot. */
static int read_begin(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);
	sqlite3_stmt *start = sq->core.stmt[SQ_READ_START];
	struct api_error err;
	int rc;

	if (run_simple(st, SQ_READ_BEGIN, &err) < 0)
		return -1;
	sq->read_open = true;
	rc = store_step(st, start, &err);
	store_stmt_finish(start);
	if (rc < 0 || sqlite3_file_control(sq->db, "main", SQLITE_FCNTL_DATA_VERSION,
	                                   &sq->read_version) != SQLITE_OK) {
		read_end(st);
		return -1;
	}
	st->batch_opened(st->batch_arg);
	return 0;
}

struct store_stamp sqlite_store_read_stamp(struct store *st)
{
	if (!sqlite3_get_autocommit(sqlite_of(st)->db))
		return sqlite_store_stamp(st);
	if (!st->batch_mode || read_begin(st) < 0)
		return (struct store_stamp){ .known = false };
	return sqlite_store_stamp(st);
}

int store_begin(struct store *st, struct api_error *err)
{
	store_events_mark(st);
	read_end(st);   /* a write sees the latest state, as BEGIN IMMEDIATE takes it */
	if (st->failed)
		return refuse_write(err);
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
	if (st->batch_writing)
		st->batch_writing(st->batch_arg);
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
		store_events_committed(st);
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
	store_events_rolled_back(st);
	if (!st->batch_mode) {
		if (!sqlite3_get_autocommit(sqlite_of(st)->db))
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
	struct sqlite_store *sq = sqlite_or_null(st);

	st->batch_mode = true;
	st->batch_opened = opened;
	st->batch_arg = arg;
	/* The batch's sync leaves the loop (store_batch_needs_sync): SQLite's
	 * NORMAL still syncs the WAL's header and around checkpoints, only not
	 * at each commit. */
	if (sq && sq->db && sq->synchronous_full)   /* a failure keeps FULL: SQLite then syncs too */
		(void)sqlite3_exec(sq->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
}

bool store_batch_needs_sync(const struct store *st)
{
	return st->batch_needs_sync;
}

struct store_files *store_sync_target(struct store *st)
{
	struct sqlite_store *sq = sqlite_or_null(st);

	return sq && sq->db && sq->synchronous_full && st->batch_mode ? &sq->files : NULL;
}

/* After the WAL's name was unlinked with the store file intact, SQLite
 * still reads and writes the WAL through its descriptor: a checkpoint
 * copies its frames into the store file and syncs it, so that what was
 * answered survives the restart that finds no WAL. Only outside a
 * transaction (a checkpoint waits for none of its own connection). */
static void rescue_unlinked_wal(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);
	int frames = -1, copied = -1, rc;

	if (!sq->rescue_wal || !sqlite3_get_autocommit(sq->db))
		return;
	sq->rescue_wal = false;
	rc = sqlite3_wal_checkpoint_v2(sq->db, "main", SQLITE_CHECKPOINT_FULL, &frames, &copied);
	if (rc == SQLITE_OK && frames == copied)
		log_error("store: the unlinked WAL's %d frames are copied into %s: every write"
		          " answered is kept", frames, sq->files.db_path);
	else
		log_error("store: the unlinked WAL could not be copied into %s (%s, %d of %d"
		          " frames): writes answered may be lost at the restart", sq->files.db_path,
		          sqlite3_errmsg(sq->db), copied, frames);
}

void store_fail_writes(struct store *st, int check, const char *why)
{
	struct sqlite_store *sq = sqlite_or_null(st);

	if (st->failed)
		return;
	st->failed = true;
	if (sq)
		sq->rescue_wal = check == STORE_FILES_WAL_UNLINKED;
	log_error("store: %s; every write is refused (503) until the server is restarted on"
	          " repaired files", why);
	metrics_store_failed();
	/* whatever the WAL holds now must not be copied into the store file */
	if (sq && sq->db)
		(void)sqlite3_db_config(sq->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
}

bool store_writes_failed(const struct store *st)
{
	return st->failed;
}

void store_batch_on_write(struct store *st, void (*writing)(void *arg))
{
	st->batch_writing = writing;
}

bool store_batch_open(const struct store *st)
{
	return st->batch_open;
}

bool store_batch_queued_logouts(const struct store *st)
{
	return st->batch_queued_logouts;
}

/* Before a batch commits: a WAL or store file that is no longer the one
 * SQLite writes would take the batch where no restart finds it (or carry
 * it into a broken file); the batch is refused instead, and the store
 * fails its writes from now on. 0, or -1 with 503 system_error. */
static int files_still_ours(struct store *st, struct api_error *err)
{
	char why[STORE_FILES_WHY_MAX];
	int check;

	if (st->failed)
		return refuse_write(err);
	check = store_files_check(&sqlite_of(st)->files, why, sizeof why);
	if (check == 0)
		return 0;
	store_fail_writes(st, check, why);
	return refuse_write(err);
}

int store_batch_commit(struct store *st, struct api_error *err)
{
	struct sqlite_store *sq = sqlite_of(st);
	struct api_error ignored;
	int64_t start_us;
	int rc;

	st->batch_needs_sync = false;
	if (!sqlite_or_null(st))
		return 0;   /* another backend's store: no batch of SQLite's to commit */
	read_end(st);
	if (!st->batch_open) {
		rescue_unlinked_wal(st);
		return 0;
	}
	start_us = mono_us();
	st->generation++;
	st->batch_open = false;
	st->in_savepoint = false;
	st->batch_queued_logouts = logout_writers_ran(st);
	rc = files_still_ours(st, err);
	if (rc == 0)
		rc = run_simple(st, SQ_COMMIT, err);
	metrics_store_commit(start_us, rc == 0);
	if (rc < 0) {
		if (!sqlite3_get_autocommit(sq->db))
			run_simple(st, SQ_ROLLBACK, &ignored);
		store_events_drop(st);
		rescue_unlinked_wal(st);
		return -1;
	}
	st->batch_needs_sync = sq->synchronous_full;
	store_events_committed(st);
	return 0;
}

struct store_stamp sqlite_store_stamp(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);
	struct store_stamp now = { st->generation, 0, true };
	unsigned v = 0;

	/* a snapshot's version cannot move: asked once (read_begin), not on
	 * each of a grant's three looks */
	if (sq->read_open) {
		now.data_version = sq->read_version;
		return now;
	}
	/* Not expected to fail for "main"; if it did, nothing may be cached. */
	if (sqlite3_file_control(sq->db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK)
		now.known = false;
	now.data_version = v;
	return now;
}

void sqlite_tx_close(struct sqlite_store *sq)
{
	read_end(&sq->base);
	rescue_unlinked_wal(&sq->base);
}
