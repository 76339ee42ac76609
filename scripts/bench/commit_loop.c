/*
 * The disk's own commit rate, as edgeauth's store sees it: one connection,
 * WAL, the given synchronous setting, and a loop of BEGIN IMMEDIATE; one
 * small INSERT (a random text key and a row the size of a user's); COMMIT.
 * Usage: commit_loop DB_PATH full|normal SECONDS; prints commits per second.
 * The file is created afresh and removed at the end.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void must(sqlite3 *db, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "commit_loop: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static void exec(sqlite3 *db, const char *sql)
{
	must(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql);
}

/* Runs a prepared statement once and resets it. */
static void run(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	must(db, sqlite3_step(s), what);
	sqlite3_reset(s);
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *begin, *insert, *commit;
	char wal[4096], shm[4096], key[64];
	double seconds, start, elapsed;
	long n = 0;

	if (argc != 4 || (strcmp(argv[2], "full") && strcmp(argv[2], "normal"))) {
		fprintf(stderr, "usage: commit_loop DB_PATH full|normal SECONDS\n");
		return 2;
	}
	seconds = atof(argv[3]);
	snprintf(wal, sizeof wal, "%s-wal", argv[1]);
	snprintf(shm, sizeof shm, "%s-shm", argv[1]);
	unlink(argv[1]);
	must(NULL, sqlite3_open(argv[1], &db), "open");
	exec(db, "PRAGMA journal_mode = WAL");
	exec(db, strcmp(argv[2], "full") ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL");
	exec(db, "CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT NOT NULL, ext TEXT,"
	         " created_at INTEGER NOT NULL)");
	must(db, sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), "prepare");
	must(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), "prepare");
	must(db, sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, 'Firstname Surname', ?1, ?2)",
	                            -1, &insert, NULL), "prepare");
	srandom(1);
	start = now_s();
	do {
		snprintf(key, sizeof key, "%08lx%08lx-%ld", random(), random(), n);
		run(db, begin, "begin");
		sqlite3_bind_text(insert, 1, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(insert, 2, n);
		run(db, insert, "insert");
		run(db, commit, "commit");
		n++;
		elapsed = now_s() - start;
	} while (elapsed < seconds);
	sqlite3_finalize(begin);
	sqlite3_finalize(insert);
	sqlite3_finalize(commit);
	sqlite3_close(db);
	unlink(argv[1]);
	unlink(wal);
	unlink(shm);
	printf("%.1f\n", (double)n / elapsed);
	return 0;
}
