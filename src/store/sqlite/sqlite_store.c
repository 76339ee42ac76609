/*
 * The store's SQLite connection: its opening, migrations and statement
 * sets, and its close (its transactions, batches and stamps are
 * sqlite_tx.c's; the statement helpers the areas share are sqlite_stmt.c's).
 * Every statement is prepared here at open; no code path prepares on a
 * request. Must never be used from any thread but the one that opened it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite_backend.h"
#include "sqlite_store.h"
#include "store.h"
#include "util.h"

extern const char *const schema_migrations[];

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define BUSY_TIMEOUT_MS 5000
/* A savepoint's journal stays in memory, whatever its size (store_open). */
#define STMT_JOURNAL_IN_MEMORY (-1)

static const char *const core_sql[SQ__COUNT] = {
	[SQ_BEGIN] = "BEGIN IMMEDIATE",
	[SQ_COMMIT] = "COMMIT",
	[SQ_ROLLBACK] = "ROLLBACK",
	[SQ_SAVEPOINT] = "SAVEPOINT request",
	[SQ_RELEASE] = "RELEASE request",
	[SQ_ROLLBACK_TO] = "ROLLBACK TO request",
	/* store_read_stamp: BEGIN takes no lock; the first read does */
	[SQ_READ_BEGIN] = "BEGIN",
	[SQ_READ_START] = "PRAGMA data_version",
};

static const struct stmt_set core_set = { SQ__COUNT, core_sql, NULL };

/* Every statement set of the store: where it lives in struct sqlite_store, and its
 * SQL, defined in its area's file. All are prepared at open. */
static const struct {
	size_t offset;
	const struct stmt_set *def;
} store_sets[] = {
	{ offsetof(struct sqlite_store, core), &core_set },
	{ offsetof(struct sqlite_store, projects), &store_projects_sql },
	{ offsetof(struct sqlite_store, resources), &store_resources_sql },
	{ offsetof(struct sqlite_store, roles), &store_roles_sql },
	{ offsetof(struct sqlite_store, users), &store_users_sql },
	{ offsetof(struct sqlite_store, users_list), &store_users_list_sql },
	{ offsetof(struct sqlite_store, clients), &store_clients_sql },
	{ offsetof(struct sqlite_store, tokens), &store_tokens_sql },
	{ offsetof(struct sqlite_store, grants), &store_grants_sql },
	{ offsetof(struct sqlite_store, keys), &store_keys_sql },
	{ offsetof(struct sqlite_store, outbox), &store_outbox_sql },
	{ offsetof(struct sqlite_store, sessions), &store_sessions_sql },
	{ offsetof(struct sqlite_store, events), &store_events_sql },
	{ offsetof(struct sqlite_store, factors), &store_factors_sql },
	{ offsetof(struct sqlite_store, forward), &store_forward_sql },
	{ offsetof(struct sqlite_store, passkeys), &store_passkeys_sql },
	{ offsetof(struct sqlite_store, device), &store_device_sql },
	{ offsetof(struct sqlite_store, access), &store_access_sql },
};

/* SQLite's authorizer, while store_open prepares: notes that the statement
 * being prepared inserts into the back-channel outbox (schema/008), itself
 * or through the triggers and cascades SQLite compiles into it. */
static int note_outbox_insert(void *arg, int action, const char *table, const char *column,
                              const char *db, const char *trigger)
{
	(void)column;
	(void)db;
	(void)trigger;
	if (action == SQLITE_INSERT && !strcmp(table, "backchannel_outbox"))
		*(bool *)arg = true;
	return SQLITE_OK;
}

int store_prepare_set(struct store *st, struct stmt_set *set, char *errbuf, size_t errlen)
{
	struct sqlite_store *sq = sqlite_of(st);

	set->stmt = xcalloc(set->count ? set->count : 1, sizeof *set->stmt);
	for (size_t i = 0; i < set->count; i++) {
		bool queues_logouts = false;

		if (!set->sql[i])
			continue;
		sqlite3_set_authorizer(sq->db, note_outbox_insert, &queues_logouts);
		if (sqlite3_prepare_v3(sq->db, set->sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                       &set->stmt[i], NULL) != SQLITE_OK) {
			snprintf(errbuf, errlen, "cannot prepare statement: %s: %s",
			         sqlite3_errmsg(sq->db), set->sql[i]);
			sqlite3_set_authorizer(sq->db, NULL, NULL);
			return -1;
		}
		sqlite3_set_authorizer(sq->db, NULL, NULL);
		if (queues_logouts) {
			sq->logout_writers = xrealloc(sq->logout_writers, (sq->logout_writer_count + 1) *
			                              sizeof *sq->logout_writers);
			sq->logout_writers[sq->logout_writer_count++] = set->stmt[i];
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
	/* A savepoint's journal past SQLite's 64 KiB went to a temp file for the
	 * rest of the batch: ~4x the pwrites a create. A larger spill fails: SQLite
	 * writes the journal out in pieces of the spill's size, and the unix VFS
	 * keeps a write's length to its low 17 bits, so a 512 KiB piece wrote
	 * nothing and came back SQLITE_FULL (docs/BENCHMARKS.md). */
	(void)sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, STMT_JOURNAL_IN_MEMORY);
}

/* A start that fails says which file and why: SQLite's message alone
 * ("disk I/O error") names neither. errbuf holds SQLite's message. */
static void describe_open_failure(sqlite3 *db, const char *path, char *errbuf, size_t errlen)
{
	char sqlite_msg[256];
	int code = sqlite3_extended_errcode(db), sys = sqlite3_system_errno(db);
	bool shm = code == SQLITE_IOERR_SHMOPEN || code == SQLITE_IOERR_SHMSIZE ||
	           code == SQLITE_IOERR_SHMMAP || code == SQLITE_IOERR_SHMLOCK;

	/* the unix VFS turns ENOSPC into SQLITE_FULL and keeps no errno */
	if (!sys && (code & 0xff) == SQLITE_FULL)
		sys = ENOSPC;
	snprintf(sqlite_msg, sizeof sqlite_msg, "%s", errbuf);
	snprintf(errbuf, errlen, "cannot open the store %s%s: %s%s%s", path,
	         shm ? " (its -shm file)" : " (or its -wal, -shm files)", sqlite_msg,
	         sys ? ": " : "", sys ? strerror(sys) : "");
}

struct store *store_open(const char *path, bool synchronous_full, char *errbuf, size_t errlen)
{
	struct sqlite_store *sq;
	struct store *st;
	const char *sync = synchronous_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";

	mode_t old_umask;
	int opened;
	struct stat wal;
	char *wal_path;

	if (store_files_make_parent_dir(path, errbuf, errlen) < 0)
		return NULL;
	sq = xcalloc(1, sizeof *sq);
	st = &sq->base;
	wal_path = xasprintf("%s-wal", path);

	st->be = &sqlite_backend;
	sq->files.wal_fd = -1;
	sqlite_single_thread();
	/* SQLite removes the WAL at a clean close; frames left in it mean the
	 * last connection stopped without one */
	sq->unclean_open = stat(wal_path, &wal) == 0 && wal.st_size > 0;
	free(wal_path);
	if (store_files_check_private(path, errbuf, errlen) < 0)
		goto fail;
	/* A new file is made 0600; SQLite gives its -wal and -shm the main
	 * file's mode. umask is the process's: nothing else runs yet. */
	old_umask = umask(077);
	opened = sqlite3_open_v2(path, &sq->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX, NULL);
	umask(old_umask);
	if (opened != SQLITE_OK) {
		snprintf(errbuf, errlen, "cannot open %s: %s", path,
		         sq->db ? sqlite3_errmsg(sq->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(sq->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(sq->db, 1);
	if (exec(sq->db, "PRAGMA journal_mode = WAL", errbuf, errlen) < 0 ||
	    exec(sq->db, "PRAGMA foreign_keys = ON", errbuf, errlen) < 0 ||
	    /* 8 MiB of pages (the default is 2): lists and search over 100k users
	     * stay in memory; the budget is 64 MiB with two 19 MiB hashes. */
	    exec(sq->db, "PRAGMA cache_size = -8192", errbuf, errlen) < 0 ||
	    /* Fewer, longer checkpoints (16 MiB of WAL, not 4): a page written
	     * again and again is copied back once per checkpoint
	     * (docs/BENCHMARKS.md, "Design notes"). */
	    exec(sq->db, "PRAGMA wal_autocheckpoint = 4000", errbuf, errlen) < 0 ||
	    /* the WAL never shrinks: a shorter one was cut by another
	     * (store_files_check) */
	    exec(sq->db, "PRAGMA journal_size_limit = -1", errbuf, errlen) < 0 ||
	    exec(sq->db, sync, errbuf, errlen) < 0 ||
	    migrate(sq->db, errbuf, errlen) < 0) {
		describe_open_failure(sq->db, path, errbuf, errlen);
		goto fail;
	}
	sq->synchronous_full = synchronous_full;
	if (store_files_open(&sq->files, path, errbuf, errlen) < 0)
		goto fail;
	if (sqlite3_create_function(sq->db, "iso_time", 1,
	                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
	                            sql_iso_time, NULL, NULL) != SQLITE_OK) {
		snprintf(errbuf, errlen, "%s", sqlite3_errmsg(sq->db));
		goto fail;
	}

	for (size_t i = 0; i < ARRAY_LEN(store_sets); i++) {
		struct stmt_set *set = (struct stmt_set *)((char *)sq + store_sets[i].offset);
		*set = *store_sets[i].def;
		if (store_prepare_set(st, set, errbuf, errlen) < 0)
			goto fail;
	}
	return st;
fail:
	store_close(st);
	return NULL;
}

void sqlite_store_close(struct store *st)
{
	struct sqlite_store *sq = sqlite_of(st);

	if (sq->db)
		sqlite_tx_close(sq);
	for (size_t i = 0; i < ARRAY_LEN(store_sets); i++)
		finalize_set((struct stmt_set *)((char *)sq + store_sets[i].offset));
	free(sq->logout_writers);
	store_files_close(&sq->files);
	if (sq->db)
		sqlite3_close(sq->db);
}

int store_check_after_crash(struct store *st, char *errbuf, size_t errlen)
{
	struct sqlite_store *sq = sqlite_or_null(st);
	sqlite3_stmt *s;
	const char *verdict;
	int rc = 0;

	if (!sq || !sq->db || !sq->unclean_open)
		return 0;
	if (sqlite3_prepare_v2(sq->db, "PRAGMA quick_check(1)", -1, &s, NULL) != SQLITE_OK) {
		snprintf(errbuf, errlen, "cannot check the store %s: %s", sq->files.db_path,
		         sqlite3_errmsg(sq->db));
		return -1;
	}
	verdict = sqlite3_step(s) == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	if (!verdict || strcmp(verdict, "ok") != 0) {
		snprintf(errbuf, errlen, "the store %s is damaged (PRAGMA quick_check after an"
		         " unclean stop: %s); restore a backup (edgeauth restore)", sq->files.db_path,
		         verdict ? verdict : sqlite3_errmsg(sq->db));
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc;
}
