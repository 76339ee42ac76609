#ifndef EDGEAUTH_PG_H
#define EDGEAUTH_PG_H
/*
 * A small pool of PostgreSQL connections driven by the libevent loop
 * (docs/operations.md §"A fleet on PostgreSQL"): the loop never waits on the database. Connections are
 * made with PQconnectStart/PQconnectPoll on sockets the loop watches,
 * each prepares every statement when it connects (again after a
 * reconnect), and runs in pipeline mode: the queries submitted in one loop
 * tick go out together on one connection and end in one sync, which
 * commits them as one transaction (group commit). A callback runs only
 * once that commit is known, so no answer reports a write that is not
 * durable yet.
 *
 * One query failing with an error aborts its batch: the others are sent
 * again in the next tick (nothing of theirs was committed), the one that
 * failed gets its error. Statements are written so that an expected outcome
 * (not found, a conflict, a lost race) never raises, so this is for the
 * unexpected only. A deadlock or serialization failure sends the whole
 * batch again. A lost connection fails what was in flight on it with
 * E_STORE_UNAVAILABLE (its commit may or may not have happened: no answer
 * claims either), and reconnects with backoff; while no connection is
 * usable, queries fail at once with E_STORE_UNAVAILABLE (503, Retry-After).
 * A connection whose oldest batch has no answer within the pool's timeout
 * (a server stopped, or cut off by a partition) counts as lost, and the
 * same timeout is each statement's statement_timeout: no query waits much
 * longer than it, whatever the network does.
 *
 * A dedicated connection LISTENs on the channel the schema's triggers
 * NOTIFY on every write that changes what a cache holds; the owner learns
 * of each notification, of its own writes' commits, and of (re)listening,
 * through one "changed" callback, and asks pg_pool_listening whether a
 * cache may be trusted at all.
 *
 * Before pg_pool_serve, and in the CLI, the pool is one blocking
 * connection: queries run at once and their callbacks run before
 * pg_query returns. Blocking calls are allowed only then (start-up,
 * separate short-lived processes). Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <libpq-fe.h>

#include "error.h"

struct event_base;

/* What a statement's commit is to the node's caches (false and true in a
 * statement's initializer read as the first two). */
enum pg_writes {
	PG_READS,             /* no commit to count, nothing the caches hold */
	PG_WRITES,            /* a commit, which may change what they hold: the
	                         changed callback runs before the results */
	PG_WRITES_UNCACHED,   /* a commit of rows no cache holds (a create's,
	                         under IDs it makes): it leaves them be */
};

/* A statement every connection prepares under its name; n_params texts
 * are bound. */
struct pg_statement {
	const char *name;
	const char *sql;
	int n_params;
	enum pg_writes writes;
};

/* A query's end: res (PGRES_TUPLES_OK or PGRES_COMMAND_OK) when it ran and
 * its transaction committed, else err. res is the callback's to read only
 * during the call. Called exactly once. */
typedef void pg_done_fn(void *arg, const PGresult *res, const struct api_error *err);

/* The timeout of a pool whose config gives none ([store] pg_timeout_ms). */
#define PG_TIMEOUT_MS_DEFAULT 3000
/* The channel of the schema's NOTIFYs. */
#define PG_CHANNEL "edgeauth"

struct pg_pool_config {
	const char *conninfo;
	int size;                                   /* connections for queries */
	/* How long a batch may go unanswered before its connection counts as
	 * lost, and each statement's statement_timeout; 0: the default. */
	int timeout_ms;
	const struct pg_statement *const *statements;   /* prepared on each */
	size_t n_statements;
	/* Something the caches depend on may have changed: a notification, a
	 * commit of a batch with PG_WRITES, or listening (again). */
	void (*changed)(void *arg);
	/* A back-channel logout was queued (the notification 'outbox' of
	 * schema/postgres/018), or listening began: the outbox may hold rows. */
	void (*outbox)(void *arg);
	void *arg;
};

/* Connects one blocking connection (start-up, the CLI). NULL with the
 * reason in errbuf. The config is copied; its arrays must outlive the
 * pool. */
struct pg_pool *pg_pool_open(const struct pg_pool_config *cfg, char *errbuf, size_t errlen);
/* Hands the pool to the loop: the blocking connection closes (releasing
 * its session's advisory locks) and size connections plus the listening
 * one are made without blocking. Queries submitted before the first is
 * ready wait for it. */
void pg_pool_serve(struct pg_pool *p, struct event_base *base);
/* Closes every connection. Queries still waiting are dropped without their
 * callbacks (the loop has ended). */
void pg_pool_free(struct pg_pool *p);

/* Runs s with params (n = s->n_params texts, NULL for SQL NULL; copied)
 * and calls fn(arg, ...) once: later from the loop, or at once when the
 * store is unusable or the pool is blocking. */
void pg_query(struct pg_pool *p, const struct pg_statement *s, const char *const *params,
              pg_done_fn *fn, void *arg);

/* Whether no query waits or is under way (the loop may end without
 * dropping a callback: pg_pool_free drops those still waiting). */
bool pg_pool_idle(const struct pg_pool *p);

/* Whether a notification now would reach this node: the LISTEN connection
 * is up and listening. While not, no cache may be used. */
bool pg_pool_listening(const struct pg_pool *p);

/* ---- blocking mode only (before pg_pool_serve) ---- */

/* Runs sql (no parameters, several statements allowed) on the blocking
 * connection. 0, or -1 with err (the reason logged). */
int pg_exec(struct pg_pool *p, const char *sql, struct api_error *err);
/* The blocking connection, for start-up work that reads settings. */
PGconn *pg_pool_blocking_conn(struct pg_pool *p);

/* ---- reading results ---- */

/* The text of row r, column c, or NULL for SQL NULL. */
const char *pg_text(const PGresult *res, int r, int c);
/* A copy of it (the caller frees), or NULL for SQL NULL. */
char *pg_text_dup(const PGresult *res, int r, int c);
/* Column c of row r as a boolean ('t'), or as an integer (0 for NULL). */
bool pg_bool(const PGresult *res, int r, int c);
long long pg_int(const PGresult *res, int r, int c);

#endif
