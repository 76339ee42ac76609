/*
 * One connection of the PostgreSQL pool (pg_pool.h): its socket on the
 * loop, the batches sent on it in pipeline mode and their results, the
 * notifications of the listening one, and its connect, failure and
 * reconnect with backoff. Never a blocking libpq call; never a parameter
 * in a log line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <event2/event.h>

#include "log.h"
#include "metrics.h"
#include "pg.h"
#include "pg_pool.h"
#include "pq_lib.h"
#include "util.h"

#define BATCH_MAX 256            /* queries of one batch: its transaction stays short */
#define ATTEMPTS_MAX 3           /* sends of a query whose batch others aborted */
#define BACKOFF_FIRST_MS 50
#define BACKOFF_MAX_MS 2000
#define CONNECT_TIMEOUT_MS 5000  /* PQconnectPoll has no timeout of its own */
#define LISTEN_DEADLINE_MS 2000  /* a listener that does not answer its ping is lost */

static void conn_fail(struct pg_conn *c, const char *why);

/* ---- connections: the socket ---- */

/* Watches the connection's socket for what (EV_READ, EV_WRITE or both),
 * on the socket libpq has now: it may change while connecting. */
static void on_socket(evutil_socket_t fd, short what, void *arg);

static void watch(struct pg_conn *c, short what)
{
	if (c->ev && c->watching == what && event_get_fd(c->ev) == PQsocket(c->pg))
		return;
	if (c->ev)
		event_free(c->ev);
	c->ev = event_new(c->pool->base, PQsocket(c->pg), what | EV_PERSIST, on_socket, c);
	c->watching = what;
	event_add(c->ev, NULL);
}

void pg_conn_unwatch(struct pg_conn *c)
{
	if (c->ev)
		event_free(c->ev);
	c->ev = NULL;
}

/* Sends what libpq holds; watches for writability while some is left. */
static int conn_flush(struct pg_conn *c)
{
	int rc = PQflush(c->pg);

	if (rc < 0) {
		conn_fail(c, PQerrorMessage(c->pg));
		return -1;
	}
	watch(c, rc ? EV_READ | EV_WRITE : EV_READ);
	return 0;
}

/* ---- batches ---- */

static int send_one(struct pg_conn *c, const struct pg_query *q)
{
	const char *const *params = (const char *const *)q->params;

	switch (q->kind) {
	case Q_EXEC:
		return PQsendQueryPrepared(c->pg, q->stmt->name, q->n_params, params, NULL, NULL, 0);
	case Q_PREPARE:
		return PQsendPrepare(c->pg, q->stmt->name, q->stmt->sql, q->stmt->n_params, NULL);
	case Q_SQL:
		return PQsendQueryParams(c->pg, q->sql, 0, NULL, NULL, NULL, NULL, 0);
	}
	return 0;
}

/* Sends the queries of l and a sync on c, as one batch in flight; l is
 * left empty. */
static void send_batch(struct pg_conn *c, struct query_list *l)
{
	struct pg_batch *b = xcalloc(1, sizeof *b);
	struct pg_query *q;
	bool ok = true;

	STAILQ_INIT(&b->q);
	STAILQ_CONCAT(&b->q, l);
	b->cur = STAILQ_FIRST(&b->q);
	b->sent_us = mono_us();
	STAILQ_FOREACH(q, &b->q, next) {
		b->writes = b->writes || (q->kind == Q_EXEC && q->stmt->writes != PG_READS);
		b->changes = b->changes || (q->kind == Q_EXEC && q->stmt->writes == PG_WRITES);
		ok = ok && send_one(c, q) == 1;
	}
	ok = ok && PQpipelineSync(c->pg) == 1;
	STAILQ_INSERT_TAIL(&c->batches, b, next);
	c->in_flight++;
	if (!ok)
		conn_fail(c, PQerrorMessage(c->pg));
	else
		conn_flush(c);
}

/* The query connection with the fewest batches in flight, NULL if none is
 * ready. */
struct pg_conn *pg_pool_pick(struct pg_pool *p)
{
	struct pg_conn *best = NULL;

	for (size_t i = 0; i < p->n_conns; i++) {
		struct pg_conn *c = &p->conns[i];

		if (!c->listener && c->state == C_READY && (!best || c->in_flight < best->in_flight))
			best = c;
	}
	return best;
}

static void fail_queue(struct pg_pool *p)
{
	struct pg_query *q;

	while ((q = STAILQ_FIRST(&p->queue))) {
		STAILQ_REMOVE_HEAD(&p->queue, next);
		pg_query_unavailable(q, "The store is unavailable; try again.");
	}
}

/* The tick's queries go out, BATCH_MAX at a time. */
void pg_pool_on_flush(evutil_socket_t fd, short what, void *arg)
{
	struct pg_pool *p = arg;

	(void)fd;
	(void)what;
	while (!STAILQ_EMPTY(&p->queue)) {
		struct pg_conn *c = pg_pool_pick(p);
		struct query_list l = STAILQ_HEAD_INITIALIZER(l);
		struct pg_query *q;

		if (!c) {
			if (!p->starting)
				fail_queue(p);
			return;
		}
		for (int n = 0; n < BATCH_MAX && (q = STAILQ_FIRST(&p->queue)); n++) {
			STAILQ_REMOVE_HEAD(&p->queue, next);
			STAILQ_INSERT_TAIL(&l, q, next);
		}
		send_batch(c, &l);
	}
}

void pg_pool_flush_soon(struct pg_pool *p)
{
	if (p->flush)
		event_active(p->flush, EV_TIMEOUT, 0);
}

/* A batch that failed: the query that raised gets its error (all of them
 * when the commit failed); the others go out again in the next tick (their
 * transaction rolled back), up to ATTEMPTS_MAX sends, and all of them on a
 * deadlock or serialization failure. */
static void batch_failed(struct pg_pool *p, struct pg_batch *b)
{
	struct query_list again = STAILQ_HEAD_INITIALIZER(again);
	bool retry_all = !strncmp(b->sqlstate, "40", 2);
	struct api_error err;
	struct pg_query *q;

	pg_sqlstate_error(b->sqlstate, &err);
	while ((q = STAILQ_FIRST(&b->q))) {
		STAILQ_REMOVE_HEAD(&b->q, next);
		if (!q->fn)
			pg_query_free(q);
		else if (!retry_all && (q == b->culprit || !b->culprit))
			pg_query_deliver(q, NULL, &err);
		else if (++q->attempts >= ATTEMPTS_MAX)
			pg_query_unavailable(q, "The store is busy; try again.");
		else
			STAILQ_INSERT_TAIL(&again, q, next);
	}
	if (!STAILQ_EMPTY(&again)) {   /* before what was queued since: their order holds */
		STAILQ_CONCAT(&again, &p->queue);
		STAILQ_CONCAT(&p->queue, &again);
		pg_pool_flush_soon(p);
	}
}

/* A batch's sync arrived: its transaction committed, or (failed) rolled
 * back. */
static void batch_done(struct pg_pool *p, struct pg_batch *b)
{
	struct pg_query *q;

	if (b->writes)   /* a batch with writes is a commit, as SQLite's group commit */
		metrics_store_commit(b->sent_us, !b->failed);
	if (b->failed) {
		batch_failed(p, b);
	} else {
		if (b->changes && p->cfg.changed)
			p->cfg.changed(p->cfg.arg);
		while ((q = STAILQ_FIRST(&b->q))) {
			STAILQ_REMOVE_HEAD(&b->q, next);
			if (q->res)
				pg_query_deliver(q, q->res, NULL);
			else
				pg_query_unavailable(q, "The store gave no answer; try again.");
		}
	}
	free(b);
}

/* Every batch in flight on c fails: its commit may or may not have
 * happened, so no answer may claim either. */
static void fail_in_flight(struct pg_conn *c, const char *why)
{
	struct pg_batch *b;
	struct pg_query *q;

	while ((b = STAILQ_FIRST(&c->batches))) {
		STAILQ_REMOVE_HEAD(&c->batches, next);
		while ((q = STAILQ_FIRST(&b->q))) {
			STAILQ_REMOVE_HEAD(&b->q, next);
			pg_query_unavailable(q, why);
		}
		free(b);
	}
	c->in_flight = 0;
}

/* ---- connections: results ---- */

/* Notes an error result of b: the first one decides. */
static void note_error(struct pg_batch *b, const PGresult *r)
{
	if (b->failed)
		return;
	b->failed = true;
	b->culprit = b->cur;
	pg_result_state(r, b->sqlstate);
	if (strncmp(b->sqlstate, "40", 2) != 0)
		pg_log_result(r, b->cur && b->cur->stmt ? b->cur->stmt->name : "commit");
}

static void conn_ready(struct pg_conn *c);

/* The head batch of c ended with its sync. */
static void head_done(struct pg_conn *c)
{
	struct pg_batch *b = STAILQ_FIRST(&c->batches);
	bool setup = c->state == C_SETUP;
	bool read_only = b->failed && !strcmp(b->sqlstate, "25006");

	STAILQ_REMOVE_HEAD(&c->batches, next);
	c->in_flight--;
	if (setup && b->failed) {   /* its queries are the pool's own */
		batch_done(c->pool, b);
		conn_fail(c, "setting the connection up failed");
		return;
	}
	batch_done(c->pool, b);
	if (setup)
		conn_ready(c);
	else if (read_only)   /* a standby, or a demoted primary: find the primary again */
		conn_fail(c, "the server is read-only");
}

/* Reads every result that has arrived, in order. */
static void drain(struct pg_conn *c)
{
	while (c->state >= C_SETUP && !STAILQ_EMPTY(&c->batches) && !PQisBusy(c->pg)) {
		struct pg_batch *b = STAILQ_FIRST(&c->batches);
		PGresult *r = PQgetResult(c->pg);

		if (!r) {   /* the end of the current query's results */
			if (!b->cur || !b->cur->answered)
				return;   /* nothing more has arrived */
			b->cur = STAILQ_NEXT(b->cur, next);
			continue;
		}
		switch (PQresultStatus(r)) {
		case PGRES_PIPELINE_SYNC:
			PQclear(r);
			head_done(c);
			continue;
		case PGRES_TUPLES_OK:
		case PGRES_COMMAND_OK:
			if (b->cur && !b->cur->res) {
				b->cur->res = r;
				r = NULL;
			}
			break;
		case PGRES_PIPELINE_ABORTED:
			break;
		default:
			note_error(b, r);
			break;
		}
		if (b->cur)
			b->cur->answered = true;
		PQclear(r);
	}
}

/* The payload 'outbox' is news for the back-channel; any other for the
 * caches. */
static void notifications(struct pg_conn *c)
{
	const struct pg_pool_config *cfg = &c->pool->cfg;
	PGnotify *n;
	bool changed = false, outbox = false;

	while ((n = PQnotifies(c->pg))) {
		if (strcmp(n->extra, "outbox") == 0)
			outbox = true;
		else
			changed = true;
		PQfreemem(n);
	}
	if (changed && cfg->changed)
		cfg->changed(cfg->arg);
	if (outbox && cfg->outbox)
		cfg->outbox(cfg->arg);
}

/* ---- connections: their life ---- */

/* The server's notices ("already exists, skipping") are no news. */
void pg_conn_ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static void conn_setup(struct pg_conn *c)
{
	struct pg_pool *p = c->pool;
	struct query_list l = STAILQ_HEAD_INITIALIZER(l);
	struct pg_query *q;

	if (PQsetnonblocking(c->pg, 1) != 0 || PQenterPipelineMode(c->pg) != 1) {
		conn_fail(c, PQerrorMessage(c->pg));
		return;
	}
	c->state = C_SETUP;
	/* STAILQ_INSERT_TAIL reads its element three times: never give it a call */
	if (c->listener) {
		q = pg_query_new(Q_SQL, NULL, "LISTEN " PG_CHANNEL, NULL, 0, NULL, NULL);
		STAILQ_INSERT_TAIL(&l, q, next);
	} else {
		q = pg_query_new(Q_SQL, NULL, p->timeout_sql, NULL, 0, NULL, NULL);
		STAILQ_INSERT_TAIL(&l, q, next);
		for (size_t i = 0; i < p->cfg.n_statements; i++) {
			q = pg_query_new(Q_PREPARE, p->cfg.statements[i], NULL, NULL, 0, NULL, NULL);
			STAILQ_INSERT_TAIL(&l, q, next);
		}
	}
	send_batch(c, &l);
}

static void conn_ready(struct pg_conn *c)
{
	struct pg_pool *p = c->pool;

	c->state = C_READY;
	c->backoff_ms = 0;
	if (c->listener) {
		/* what was written while no one listened: every cache goes, and
		 * the outbox is read */
		p->listening = true;
		if (p->cfg.changed)
			p->cfg.changed(p->cfg.arg);
		if (p->cfg.outbox)
			p->cfg.outbox(p->cfg.arg);
		return;
	}
	p->starting = false;
	pg_pool_flush_soon(p);
}

static void conn_poll(struct pg_conn *c)
{
	switch (PQconnectPoll(c->pg)) {
	case PGRES_POLLING_READING:
		watch(c, EV_READ);
		break;
	case PGRES_POLLING_WRITING:
		watch(c, EV_WRITE);
		break;
	case PGRES_POLLING_OK:
		conn_setup(c);
		break;
	default:
		conn_fail(c, PQerrorMessage(c->pg));
		break;
	}
}

static void on_socket(evutil_socket_t fd, short what, void *arg)
{
	struct pg_conn *c = arg;

	(void)fd;
	if (c->state == C_CONNECTING) {
		/* libpq may close this socket and open another: stop watching it first */
		pg_conn_unwatch(c);
		conn_poll(c);
		return;
	}
	if ((what & EV_WRITE) && conn_flush(c) < 0)
		return;
	if (what & EV_READ) {
		if (!PQconsumeInput(c->pg)) {
			conn_fail(c, PQerrorMessage(c->pg));
			return;
		}
		notifications(c);
		drain(c);
		if (c->state >= C_SETUP && PQstatus(c->pg) == CONNECTION_BAD)
			conn_fail(c, PQerrorMessage(c->pg));
	}
}

void pg_conn_on_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	pg_conn_connect(arg);
}

/* The connection's end: what was in flight fails, and it reconnects after
 * a backoff that doubles up to BACKOFF_MAX_MS. */
static void conn_fail(struct pg_conn *c, const char *why)
{
	struct pg_pool *p = c->pool;
	char line[256];
	struct timeval tv;

	snprintf(line, sizeof line, "%s", why && *why ? why : "connection lost");
	line[strcspn(line, "\n")] = '\0';
	log_warn("store: %s connection: %s; reconnecting",
	         c->listener ? "listening" : "query", line);
	pg_conn_unwatch(c);
	PQfinish(c->pg);
	c->pg = NULL;
	c->state = C_DOWN;
	fail_in_flight(c, "The store is unavailable; try again.");
	if (c->listener) {
		p->listening = false;
	} else if (!pg_pool_pick(p)) {
		p->starting = false;
		pg_pool_flush_soon(p);   /* what waits fails now */
	}
	c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_FIRST_MS;
	if (c->backoff_ms > BACKOFF_MAX_MS)
		c->backoff_ms = BACKOFF_MAX_MS;
	tv.tv_sec = c->backoff_ms / 1000;
	tv.tv_usec = (c->backoff_ms % 1000) * 1000;
	evtimer_add(c->retry, &tv);
}

void pg_conn_connect(struct pg_conn *c)
{
	CONNECT_PARAMS(c->pool->conninfo, c->listener ? "edgeauth listener" : "edgeauth");

	c->pg = PQconnectStartParams(keys, values, 1);
	c->since_us = mono_us();
	if (!c->pg || PQstatus(c->pg) == CONNECTION_BAD) {
		conn_fail(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
		return;
	}
	PQsetNoticeProcessor(c->pg, pg_conn_ignore_notice, NULL);
	c->state = C_CONNECTING;
	watch(c, EV_WRITE);   /* libpq: poll first when the socket is writable */
}

/* Deadlines (libpq keeps none while polling), and the listener's ping. */
void pg_conn_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct pg_pool *p = arg;
	int64_t now = mono_us();

	(void)fd;
	(void)what;
	for (size_t i = 0; i < p->n_conns; i++) {
		struct pg_conn *c = &p->conns[i];
		int64_t deadline_ms = c->listener ? LISTEN_DEADLINE_MS : p->cfg.timeout_ms;

		if ((c->state == C_CONNECTING || c->state == C_SETUP) &&
		    now - c->since_us > CONNECT_TIMEOUT_MS * 1000LL) {
			conn_fail(c, "no connection within the time allowed");
		} else if (c->state == C_READY && !STAILQ_EMPTY(&c->batches) &&
		           now - STAILQ_FIRST(&c->batches)->sent_us > deadline_ms * 1000LL) {
			char why[64];

			snprintf(why, sizeof why, "no answer within %lld ms", (long long)deadline_ms);
			conn_fail(c, why);
		} else if (c->state == C_READY && c->listener && STAILQ_EMPTY(&c->batches)) {
			struct query_list l = STAILQ_HEAD_INITIALIZER(l);
			struct pg_query *q = pg_query_new(Q_SQL, NULL, "SELECT 1", NULL, 0, NULL, NULL);

			STAILQ_INSERT_TAIL(&l, q, next);
			send_batch(c, &l);
		}
	}
}
