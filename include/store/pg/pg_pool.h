#ifndef EDGEAUTH_PG_POOL_H
#define EDGEAUTH_PG_POOL_H
/*
 * The PostgreSQL pool's insides (pg.h is what its callers see), shared by
 * its two files: pg_pool.c (queries, blocking mode, the pool's life, the
 * results' readers) and pg_conn.c (each connection: its socket, the
 * batches sent on it, their results, its connect and reconnect). Only
 * those two files include this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <event2/util.h>

#include "error.h"
#include "pg.h"
#include "pq_lib.h"

struct event;
struct event_base;

/* libpq's parameters: TCP keepalives (a peer that vanished is noticed),
 * then the operator's url, then what edgeauth needs; the listening
 * connection names itself apart (pg_stat_activity). */
#define CONNECT_PARAMS(url, name) \
	const char *const keys[] = { "keepalives", "keepalives_idle", "keepalives_interval", \
		"keepalives_count", "dbname", "client_encoding", "fallback_application_name", NULL }; \
	const char *const values[] = { "1", "5", "2", "3", (url), "UTF8", (name), NULL }

enum query_kind { Q_EXEC, Q_PREPARE, Q_SQL };

struct pg_query {
	enum query_kind kind;
	const struct pg_statement *stmt;   /* Q_EXEC, Q_PREPARE */
	const char *sql;                   /* Q_SQL: static text, or the pool's */
	char **params;
	int n_params;
	pg_done_fn *fn;                    /* NULL: the pool's own (set-up, ping) */
	void *arg;
	PGresult *res;
	bool answered;                     /* a result of it has arrived */
	int attempts;
	STAILQ_ENTRY(pg_query) next;
};

STAILQ_HEAD(query_list, pg_query);

struct pg_batch {
	struct query_list q;
	struct pg_query *cur;        /* whose results come next; NULL: the sync's */
	bool writes;                 /* a commit */
	bool changes;                /* ... that may change what the caches hold */
	bool failed;
	struct pg_query *culprit;    /* the query that raised; NULL: the commit */
	char sqlstate[6];
	int64_t sent_us;
	STAILQ_ENTRY(pg_batch) next;
};

STAILQ_HEAD(batch_list, pg_batch);

enum conn_state { C_DOWN, C_CONNECTING, C_SETUP, C_READY };

struct pg_conn {
	struct pg_pool *pool;
	PGconn *pg;
	enum conn_state state;
	bool listener;
	struct event *ev;            /* the socket PQsocket gives now */
	short watching;              /* what ev waits for */
	struct event *retry;         /* the backoff's timer */
	int backoff_ms;
	int64_t since_us;            /* when the connect started */
	struct batch_list batches;   /* in flight, oldest first */
	size_t in_flight;
};

struct pg_pool {
	struct pg_pool_config cfg;
	char *conninfo;
	PGconn *blocking;            /* before pg_pool_serve */
	struct event_base *base;
	struct pg_conn *conns;       /* cfg.size for queries, then the listener */
	size_t n_conns;
	struct query_list queue;     /* waiting for the tick's flush */
	struct event *flush;
	struct event *tick;
	char timeout_sql[80];        /* sets statement_timeout to cfg.timeout_ms */
	bool starting;               /* no query connection was ready or failed yet */
	bool listening;
};

/* ---- pg_pool.c ---- */

/* A query of kind to run: copies params (n of them); fn(arg) is its
 * callback (NULL: the pool's own: set-up, ping). */
struct pg_query *pg_query_new(enum query_kind kind, const struct pg_statement *stmt,
                              const char *sql, const char *const *params, int n, pg_done_fn *fn,
                              void *arg);
void pg_query_free(struct pg_query *q);
/* Ends q: its callback with res or err, then it is freed. */
void pg_query_deliver(struct pg_query *q, const PGresult *res, const struct api_error *err);
/* Ends q with E_STORE_UNAVAILABLE and why. */
void pg_query_unavailable(struct pg_query *q, const char *why);
/* The answer to an SQLSTATE: the store's unavailability (503) for what a
 * retry may cure (a timeout, a lost or read-only connection, no resources),
 * else system_error (500, a bug: logged where it arose). */
void pg_sqlstate_error(const char *state, struct api_error *err);
/* The SQLSTATE of an error result ("" when it has none) into state. */
void pg_result_state(const PGresult *r, char state[6]);
/* Logs an error result: what failed, its SQLSTATE and primary message. */
void pg_log_result(const PGresult *r, const char *what);

/* ---- pg_conn.c ---- */

/* Starts (or restarts) c's connect; its socket's events drive the rest. */
void pg_conn_connect(struct pg_conn *c);
/* Stops watching c's socket. */
void pg_conn_unwatch(struct pg_conn *c);
/* The timers' callbacks: a connection's backoff ended (arg: the
 * connection); the pool's tick (arg: the pool): deadlines and the
 * listener's ping. */
void pg_conn_on_retry(evutil_socket_t fd, short what, void *arg);
void pg_conn_on_tick(evutil_socket_t fd, short what, void *arg);
/* libpq's notice processor: the server's notices ("already exists,
 * skipping") are no news. */
void pg_conn_ignore_notice(void *arg, const char *message);
/* Sends the queued queries as batches after this tick (pg_pool_on_flush,
 * the flush event's callback). */
void pg_pool_flush_soon(struct pg_pool *p);
void pg_pool_on_flush(evutil_socket_t fd, short what, void *arg);
/* The query connection with the fewest batches in flight, NULL if none
 * is ready. */
struct pg_conn *pg_pool_pick(struct pg_pool *p);

#endif
