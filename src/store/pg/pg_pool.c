/*
 * The PostgreSQL pool on the loop (pg.h): queries queued in a tick go out
 * as one pipelined batch on one connection and end in one sync, which is
 * their commit; their callbacks run when the sync's answer arrives. Never
 * a blocking libpq call once pg_pool_serve ran; never a parameter in a log
 * line (they are hashes and IDs, but a log is no place for data). This
 * file: the queries, blocking mode, the pool's life and the results'
 * readers; each connection and the batches on it are pg_conn.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <event2/event.h>

#include "log.h"
#include "pg.h"
#include "pg_pool.h"
#include "pq_lib.h"
#include "util.h"

#define TICK_MS 250              /* deadlines, and the listener's ping */

/* ---- queries ---- */

struct pg_query *pg_query_new(enum query_kind kind, const struct pg_statement *stmt,
                              const char *sql, const char *const *params, int n,
                              pg_done_fn *fn, void *arg)
{
	struct pg_query *q = xcalloc(1, sizeof *q);

	q->kind = kind;
	q->stmt = stmt;
	q->sql = sql;
	q->n_params = n;
	q->params = xcalloc(n ? (size_t)n : 1, sizeof *q->params);
	for (int i = 0; i < n; i++)
		q->params[i] = params[i] ? xstrdup(params[i]) : NULL;
	q->fn = fn;
	q->arg = arg;
	return q;
}

void pg_query_free(struct pg_query *q)
{
	for (int i = 0; i < q->n_params; i++)
		free(q->params[i]);
	free(q->params);
	PQclear(q->res);
	free(q);
}

/* Ends q: its callback with res or err, then it is freed. */
void pg_query_deliver(struct pg_query *q, const PGresult *res, const struct api_error *err)
{
	if (q->fn)
		q->fn(q->arg, res, err);
	pg_query_free(q);
}

void pg_query_unavailable(struct pg_query *q, const char *why)
{
	struct api_error err;

	api_fail(&err, E_STORE_UNAVAILABLE, "%s", why);
	pg_query_deliver(q, NULL, &err);
}

/* ---- errors ---- */

/* The answer to an SQLSTATE: the store's unavailability (503) for what a
 * retry may cure (a timeout, a lost or read-only connection, no resources),
 * else system_error (500, a bug: logged where it arose). */
void pg_sqlstate_error(const char *state, struct api_error *err)
{
	static const char *const unavailable[] = { "08", "53", "57", "58", "25006", "40" };

	for (size_t i = 0; i < sizeof unavailable / sizeof unavailable[0]; i++)
		if (!strncmp(state, unavailable[i], strlen(unavailable[i]))) {
			api_fail(err, E_STORE_UNAVAILABLE, !strcmp(state, "57014")
			         ? "The store did not answer in time; try again."
			         : "The store is unavailable; try again.");
			return;
		}
	api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

/* The SQLSTATE of an error result ("" when it has none) into state. */
void pg_result_state(const PGresult *r, char state[6])
{
	const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);

	snprintf(state, 6, "%s", s ? s : "XX000");
}

void pg_log_result(const PGresult *r, const char *what)
{
	const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

	log_error("store: %s: %s %s", what, state ? state : "?",
	          msg ? msg : PQresultErrorMessage(r));
}

/* ---- blocking mode ---- */

static void blocking_run(struct pg_pool *p, struct pg_query *q)
{
	PGresult *r = PQexecParams(p->blocking, q->stmt->sql, q->n_params, NULL,
	                           (const char *const *)q->params, NULL, NULL, 0);
	ExecStatusType s = PQresultStatus(r);
	struct api_error err;
	char state[6];

	if (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) {
		pg_query_deliver(q, r, NULL);
	} else {
		pg_log_result(r, q->stmt->name);
		pg_result_state(r, state);
		pg_sqlstate_error(state, &err);
		pg_query_deliver(q, NULL, &err);
	}
	PQclear(r);
}

int pg_exec(struct pg_pool *p, const char *sql, struct api_error *err)
{
	PGresult *r = PQexec(p->blocking, sql);
	ExecStatusType s = PQresultStatus(r);
	char state[6];
	int rc = 0;

	if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
		pg_log_result(r, "start-up");
		pg_result_state(r, state);
		pg_sqlstate_error(state, err);
		rc = -1;
	}
	PQclear(r);
	return rc;
}

PGconn *pg_pool_blocking_conn(struct pg_pool *p)
{
	return p->blocking;
}
/* ---- the pool ---- */

struct pg_pool *pg_pool_open(const struct pg_pool_config *cfg, char *errbuf, size_t errlen)
{
	struct pg_pool *p;
	CONNECT_PARAMS(cfg->conninfo, "edgeauth");

	if (pq_lib_load(errbuf, errlen) < 0)
		return NULL;
	p = xcalloc(1, sizeof *p);
	STAILQ_INIT(&p->queue);
	p->cfg = *cfg;
	if (p->cfg.timeout_ms <= 0)
		p->cfg.timeout_ms = PG_TIMEOUT_MS_DEFAULT;
	snprintf(p->timeout_sql, sizeof p->timeout_sql,
	         "SELECT set_config('statement_timeout', '%d', false)", p->cfg.timeout_ms);
	p->conninfo = xstrdup(cfg->conninfo);
	p->cfg.conninfo = p->conninfo;
	p->blocking = PQconnectdbParams(keys, values, 1);
	if (PQstatus(p->blocking) != CONNECTION_OK) {
		snprintf(errbuf, errlen, "cannot connect to PostgreSQL: %s",
		         p->blocking ? PQerrorMessage(p->blocking) : "out of memory");
		errbuf[strcspn(errbuf, "\n")] = '\0';
		pg_pool_free(p);
		return NULL;
	}
	PQsetNoticeProcessor(p->blocking, pg_conn_ignore_notice, NULL);
	return p;
}

void pg_pool_serve(struct pg_pool *p, struct event_base *base)
{
	struct timeval tick = { 0, TICK_MS * 1000 };

	PQfinish(p->blocking);
	p->blocking = NULL;
	p->base = base;
	p->starting = true;
	p->flush = event_new(base, -1, 0, pg_pool_on_flush, p);
	p->tick = event_new(base, -1, EV_PERSIST, pg_conn_on_tick, p);
	event_add(p->tick, &tick);
	p->n_conns = (size_t)p->cfg.size + 1;
	p->conns = xcalloc(p->n_conns, sizeof *p->conns);
	for (size_t i = 0; i < p->n_conns; i++) {
		struct pg_conn *c = &p->conns[i];

		c->pool = p;
		STAILQ_INIT(&c->batches);
		c->listener = i == p->n_conns - 1;
		c->retry = evtimer_new(base, pg_conn_on_retry, c);
		pg_conn_connect(c);
	}
}

bool pg_pool_idle(const struct pg_pool *p)
{
	if (!STAILQ_EMPTY(&p->queue))
		return false;
	for (size_t i = 0; i < p->n_conns; i++)
		if (!STAILQ_EMPTY(&p->conns[i].batches))
			return false;
	return true;
}

void pg_pool_free(struct pg_pool *p)
{
	struct pg_query *q;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_conns; i++) {
		struct pg_conn *c = &p->conns[i];
		struct pg_batch *b;

		pg_conn_unwatch(c);
		if (c->retry)
			event_free(c->retry);
		PQfinish(c->pg);
		while ((b = STAILQ_FIRST(&c->batches))) {
			STAILQ_REMOVE_HEAD(&c->batches, next);
			while ((q = STAILQ_FIRST(&b->q))) {
				STAILQ_REMOVE_HEAD(&b->q, next);
				pg_query_free(q);
			}
			free(b);
		}
	}
	while ((q = STAILQ_FIRST(&p->queue))) {
		STAILQ_REMOVE_HEAD(&p->queue, next);
		pg_query_free(q);
	}
	if (p->flush)
		event_free(p->flush);
	if (p->tick)
		event_free(p->tick);
	PQfinish(p->blocking);
	free(p->conns);
	free(p->conninfo);
	free(p);
}

void pg_query(struct pg_pool *p, const struct pg_statement *s, const char *const *params,
              pg_done_fn *fn, void *arg)
{
	struct pg_query *q = pg_query_new(Q_EXEC, s, NULL, params, s->n_params, fn, arg);

	if (!p->base) {
		blocking_run(p, q);
		return;
	}
	if (!p->starting && !pg_pool_pick(p)) {
		pg_query_unavailable(q, "The store is unavailable; try again.");
		return;
	}
	STAILQ_INSERT_TAIL(&p->queue, q, next);
	pg_pool_flush_soon(p);
}

bool pg_pool_listening(const struct pg_pool *p)
{
	return p->listening;
}

/* ---- reading results ---- */

const char *pg_text(const PGresult *res, int r, int c)
{
	return PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
}

char *pg_text_dup(const PGresult *res, int r, int c)
{
	const char *v = pg_text(res, r, c);

	return v ? xstrdup(v) : NULL;
}

bool pg_bool(const PGresult *res, int r, int c)
{
	const char *v = pg_text(res, r, c);

	return v && (v[0] == 't' || v[0] == '1');
}

long long pg_int(const PGresult *res, int r, int c)
{
	const char *v = pg_text(res, r, c);

	return v ? strtoll(v, NULL, 10) : 0;
}
