/*
 * SQLite's online backup and the check of a copy (sqlite_backup.h). A
 * backup reads the store inside one read transaction, so in WAL mode it
 * copies the snapshot of its start while the server's writes go on into
 * the WAL; SQLite's online backup copies it in steps.
 */
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite_backup.h"
#include "store.h"
#include "timestamp.h"

#define BUSY_TIMEOUT_MS 5000

static int db_fail(sqlite3 *db, const char *what, char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

static int exec(sqlite3 *db, const char *sql, char *errbuf, size_t errlen)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
	       : db_fail(db, sql, errbuf, errlen);
}

/* PRAGMA integrity_check of db says "ok", and its schema version is one
 * this edgeauth can open (1 .. its own). 0, or -1 with the reason. */
static int check_copy(sqlite3 *db, const char *name, char *errbuf, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	const char *first;
	int rc = -1, version = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, name, errbuf, errlen);
	first = sqlite3_step(s) == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	if (first && !strcmp(first, "ok"))
		rc = 0;
	else
		snprintf(errbuf, errlen, "%s fails PRAGMA integrity_check: %s", name,
		         first ? first : sqlite3_errmsg(db));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (version < 1 || version > (int)schema_migration_count) {
		snprintf(errbuf, errlen, "%s is not an edgeauth store this version can open "
		         "(schema version %d)", name, version);
		return -1;
	}
	return 0;
}

/* The online backup of src into dst, BACKUP_STEP_PAGES at a time. */
static int copy_pages(sqlite3 *src, sqlite3 *dst, char *errbuf, size_t errlen)
{
	sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
	int rc;

	if (!b)
		return db_fail(dst, "backup", errbuf, errlen);
	do {
		rc = sqlite3_backup_step(b, BACKUP_STEP_PAGES);
		if (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
			pause_ms(BACKUP_STEP_PAUSE_MS);
	} while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	return rc == SQLITE_DONE ? 0 : db_fail(dst, "backup", errbuf, errlen);
}

int sqlite_backup_into(const char *store_path, const char *tmp, const char *dest, char *errbuf,
                       size_t errlen)
{
	sqlite3 *src = NULL, *dst = NULL;
	int rc = -1;

	if (sqlite3_open_v2(store_path, &src, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		db_fail(src, store_path, errbuf, errlen);
		goto out;
	}
	sqlite3_busy_timeout(src, BUSY_TIMEOUT_MS);
	/* the snapshot: a read transaction held until the copy is done */
	if (exec(src, "BEGIN", errbuf, errlen) < 0 ||
	    exec(src, "SELECT count(*) FROM sqlite_master", errbuf, errlen) < 0)
		goto out;
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		db_fail(dst, dest, errbuf, errlen);
		goto out;
	}
	/* a copy that fails is removed whole: it needs no journal to roll
	 * back, and leaves none; one self-contained file: no WAL of its own */
	if (exec(dst, "PRAGMA journal_mode = OFF", errbuf, errlen) < 0 ||
	    copy_pages(src, dst, errbuf, errlen) < 0 ||
	    exec(dst, "PRAGMA journal_mode = DELETE", errbuf, errlen) < 0 ||
	    check_copy(dst, dest, errbuf, errlen) < 0)
		goto out;
	rc = 0;
out:
	if (src)
		sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(src);
	sqlite3_close(dst);
	return rc;
}

int sqlite_backup_check(const char *path, const char *name, char *errbuf, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		rc = db_fail(db, name, errbuf, errlen);
	else
		rc = check_copy(db, name, errbuf, errlen);
	sqlite3_close(db);
	return rc;
}
