/*
 * The PostgreSQL pool on the loop (pg.h): queries queued in a tick go out
 * as one pipelined batch on one connection and end in one sync, which is
 * their commit; their callbacks run when the sync's answer arrives. Never
 * a blocking libpq call once pg_pool_serve ran; never a parameter in a log
 * line (they are hashes and IDs, but a log is no place for data).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <event2/event.h>

#include "log.h"
#include "metrics.h"
#include "pg.h"
#include "pq_lib.h"
#include "util.h"

#define BATCH_MAX 256            /* queries of one batch: its transaction stays short */
#define ATTEMPTS_MAX 3           /* sends of a query whose batch others aborted */
#define BACKOFF_FIRST_MS 50
#define BACKOFF_MAX_MS 2000
#define CONNECT_TIMEOUT_MS 5000  /* PQconnectPoll has no timeout of its own */
#define TICK_MS 250              /* deadlines, and the listener's ping */
#define LISTEN_DEADLINE_MS 2000  /* a listener that does not answer its ping is lost */

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

static void conn_connect(struct pg_conn *c);
static void conn_fail(struct pg_conn *c, const char *why);

/* ---- queries ---- */

static struct pg_query *query_new(enum query_kind kind, const struct pg_statement *stmt,
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

static void query_free(struct pg_query *q)
{
	for (int i = 0; i < q->n_params; i++)
		free(q->params[i]);
	free(q->params);
	PQclear(q->res);
	free(q);
}

/* Ends q: its callback with res or err, then it is freed. */
static void deliver(struct pg_query *q, const PGresult *res, const struct api_error *err)
{
	if (q->fn)
		q->fn(q->arg, res, err);
	query_free(q);
}

static void deliver_unavailable(struct pg_query *q, const char *why)
{
	struct api_error err;

	api_fail(&err, E_STORE_UNAVAILABLE, "%s", why);
	deliver(q, NULL, &err);
}

/* ---- errors ---- */

/* The answer to an SQLSTATE: the store's unavailability (503) for what a
 * retry may cure (a timeout, a lost or read-only connection, no resources),
 * else system_error (500, a bug: logged where it arose). */
static void sqlstate_error(const char *state, struct api_error *err)
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
static void result_state(const PGresult *r, char state[6])
{
	const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);

	snprintf(state, 6, "%s", s ? s : "XX000");
}

static void log_result(const PGresult *r, const char *what)
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
		deliver(q, r, NULL);
	} else {
		log_result(r, q->stmt->name);
		result_state(r, state);
		sqlstate_error(state, &err);
		deliver(q, NULL, &err);
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
		log_result(r, "start-up");
		result_state(r, state);
		sqlstate_error(state, err);
		rc = -1;
	}
	PQclear(r);
	return rc;
}

PGconn *pg_pool_blocking_conn(struct pg_pool *p)
{
	return p->blocking;
}

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

static void unwatch(struct pg_conn *c)
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
static struct pg_conn *pick(struct pg_pool *p)
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
		deliver_unavailable(q, "The store is unavailable; try again.");
	}
}

/* The tick's queries go out, BATCH_MAX at a time. */
static void on_flush(evutil_socket_t fd, short what, void *arg)
{
	struct pg_pool *p = arg;

	(void)fd;
	(void)what;
	while (!STAILQ_EMPTY(&p->queue)) {
		struct pg_conn *c = pick(p);
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

static void flush_soon(struct pg_pool *p)
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

	sqlstate_error(b->sqlstate, &err);
	while ((q = STAILQ_FIRST(&b->q))) {
		STAILQ_REMOVE_HEAD(&b->q, next);
		if (!q->fn)
			query_free(q);
		else if (!retry_all && (q == b->culprit || !b->culprit))
			deliver(q, NULL, &err);
		else if (++q->attempts >= ATTEMPTS_MAX)
			deliver_unavailable(q, "The store is busy; try again.");
		else
			STAILQ_INSERT_TAIL(&again, q, next);
	}
	if (!STAILQ_EMPTY(&again)) {   /* before what was queued since: their order holds */
		STAILQ_CONCAT(&again, &p->queue);
		STAILQ_CONCAT(&p->queue, &again);
		flush_soon(p);
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
				deliver(q, q->res, NULL);
			else
				deliver_unavailable(q, "The store gave no answer; try again.");
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
			deliver_unavailable(q, why);
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
	result_state(r, b->sqlstate);
	if (strncmp(b->sqlstate, "40", 2) != 0)
		log_result(r, b->cur && b->cur->stmt ? b->cur->stmt->name : "commit");
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
static void ignore_notice(void *arg, const char *message)
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
		q = query_new(Q_SQL, NULL, "LISTEN " PG_CHANNEL, NULL, 0, NULL, NULL);
		STAILQ_INSERT_TAIL(&l, q, next);
	} else {
		q = query_new(Q_SQL, NULL, p->timeout_sql, NULL, 0, NULL, NULL);
		STAILQ_INSERT_TAIL(&l, q, next);
		for (size_t i = 0; i < p->cfg.n_statements; i++) {
			q = query_new(Q_PREPARE, p->cfg.statements[i], NULL, NULL, 0, NULL, NULL);
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
	flush_soon(p);
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
		unwatch(c);
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

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_connect(arg);
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
	unwatch(c);
	PQfinish(c->pg);
	c->pg = NULL;
	c->state = C_DOWN;
	fail_in_flight(c, "The store is unavailable; try again.");
	if (c->listener) {
		p->listening = false;
	} else if (!pick(p)) {
		p->starting = false;
		flush_soon(p);   /* what waits fails now */
	}
	c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_FIRST_MS;
	if (c->backoff_ms > BACKOFF_MAX_MS)
		c->backoff_ms = BACKOFF_MAX_MS;
	tv.tv_sec = c->backoff_ms / 1000;
	tv.tv_usec = (c->backoff_ms % 1000) * 1000;
	evtimer_add(c->retry, &tv);
}

/* libpq's parameters: TCP keepalives (a peer that vanished is noticed),
 * then the operator's url, then what edgeauth needs; the listening
 * connection names itself apart (pg_stat_activity). */
#define CONNECT_PARAMS(url, name) \
	const char *const keys[] = { "keepalives", "keepalives_idle", "keepalives_interval", \
		"keepalives_count", "dbname", "client_encoding", "fallback_application_name", NULL }; \
	const char *const values[] = { "1", "5", "2", "3", (url), "UTF8", (name), NULL }

static void conn_connect(struct pg_conn *c)
{
	CONNECT_PARAMS(c->pool->conninfo, c->listener ? "edgeauth listener" : "edgeauth");

	c->pg = PQconnectStartParams(keys, values, 1);
	c->since_us = mono_us();
	if (!c->pg || PQstatus(c->pg) == CONNECTION_BAD) {
		conn_fail(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
		return;
	}
	PQsetNoticeProcessor(c->pg, ignore_notice, NULL);
	c->state = C_CONNECTING;
	watch(c, EV_WRITE);   /* libpq: poll first when the socket is writable */
}

/* Deadlines (libpq keeps none while polling), and the listener's ping. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
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
			struct pg_query *q = query_new(Q_SQL, NULL, "SELECT 1", NULL, 0, NULL, NULL);

			STAILQ_INSERT_TAIL(&l, q, next);
			send_batch(c, &l);
		}
	}
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
	PQsetNoticeProcessor(p->blocking, ignore_notice, NULL);
	return p;
}

void pg_pool_serve(struct pg_pool *p, struct event_base *base)
{
	struct timeval tick = { 0, TICK_MS * 1000 };

	PQfinish(p->blocking);
	p->blocking = NULL;
	p->base = base;
	p->starting = true;
	p->flush = event_new(base, -1, 0, on_flush, p);
	p->tick = event_new(base, -1, EV_PERSIST, on_tick, p);
	event_add(p->tick, &tick);
	p->n_conns = (size_t)p->cfg.size + 1;
	p->conns = xcalloc(p->n_conns, sizeof *p->conns);
	for (size_t i = 0; i < p->n_conns; i++) {
		struct pg_conn *c = &p->conns[i];

		c->pool = p;
		STAILQ_INIT(&c->batches);
		c->listener = i == p->n_conns - 1;
		c->retry = evtimer_new(base, on_retry, c);
		conn_connect(c);
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

		unwatch(c);
		if (c->retry)
			event_free(c->retry);
		PQfinish(c->pg);
		while ((b = STAILQ_FIRST(&c->batches))) {
			STAILQ_REMOVE_HEAD(&c->batches, next);
			while ((q = STAILQ_FIRST(&b->q))) {
				STAILQ_REMOVE_HEAD(&b->q, next);
				query_free(q);
			}
			free(b);
		}
	}
	while ((q = STAILQ_FIRST(&p->queue))) {
		STAILQ_REMOVE_HEAD(&p->queue, next);
		query_free(q);
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
	struct pg_query *q = query_new(Q_EXEC, s, NULL, params, s->n_params, fn, arg);

	if (!p->base) {
		blocking_run(p, q);
		return;
	}
	if (!p->starting && !pick(p)) {
		deliver_unavailable(q, "The store is unavailable; try again.");
		return;
	}
	STAILQ_INSERT_TAIL(&p->queue, q, next);
	flush_soon(p);
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
