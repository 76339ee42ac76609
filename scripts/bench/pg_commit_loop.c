/*
 * PostgreSQL's own commit rate on this machine, the limit of edgeauth's
 * creates on it: one connection, and a loop of one small INSERT a commit
 * (autocommit: the statement is its transaction; a random text key and a
 * row the size of a client's), prepared once, as commit_loop.c does for
 * SQLite. Usage: pg_commit_loop CONNINFO SECONDS; prints commits per second.
 * The table is made afresh and dropped at the end.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* r must have succeeded; it is cleared. */
static void must(PGconn *c, PGresult *r, const char *what)
{
	ExecStatusType s = PQresultStatus(r);

	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		fprintf(stderr, "pg_commit_loop: %s: %s", what, PQerrorMessage(c));
		exit(1);
	}
	PQclear(r);
}

int main(int argc, char **argv)
{
	PGconn *c;
	char key[64], num[24];
	double seconds, start, elapsed;
	long n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: pg_commit_loop CONNINFO SECONDS\n");
		return 2;
	}
	seconds = atof(argv[2]);
	c = PQconnectdb(argv[1]);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "pg_commit_loop: %s", PQerrorMessage(c));
		return 1;
	}
	must(c, PQexec(c, "DROP TABLE IF EXISTS commit_loop; CREATE TABLE commit_loop"
	                  " (id text PRIMARY KEY, name text NOT NULL, ext text,"
	                  " created_at bigint NOT NULL)"), "create");
	must(c, PQprepare(c, "ins", "INSERT INTO commit_loop VALUES ($1, 'Firstname Surname', $1,"
	                            " $2::bigint)", 2, NULL), "prepare");
	srandom(1);
	start = now_s();
	do {
		snprintf(key, sizeof key, "%08lx%08lx-%ld", random(), random(), n);
		snprintf(num, sizeof num, "%ld", n);
		must(c, PQexecPrepared(c, "ins", 2, (const char *const[]){ key, num }, NULL, NULL, 0),
		     "insert");
		n++;
		elapsed = now_s() - start;
	} while (elapsed < seconds);
	must(c, PQexec(c, "DROP TABLE commit_loop"), "drop");
	PQfinish(c);
	printf("%.0f\n", (double)n / elapsed);
	return 0;
}
