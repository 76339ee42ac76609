/*
 * Device authorizations on PostgreSQL (store_device_ops, store_device.h):
 * each operation one statement; a poll and a decision are conditional
 * updates, so that of two nodes' writes only one wins. Times are the node's
 * (the caller's now), as on SQLite.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_device.h"
#include "store_pg.h"
#include "util.h"

enum {
	PD_INSERT,
	PD_POLL,
	PD_FIND,
	PD_DECIDE,
	PD_ISSUED,
	PD__COUNT
};

/* The columns a row is read from, in device_read's order. */
#define DEVICE_COLUMNS \
	" device_hash, project_id, client_id, scope, created_at, expires_at, interval_s, slowed," \
	" address, state, user_id, session_id"

static const struct pg_statement statements[PD__COUNT] = {
	/* the row and its event (edgeauth_event) */
	[PD_INSERT] = { "device_insert", "WITH d AS (INSERT INTO device_authorizations (device_hash,"
		" user_code_hash, project_id, client_id, scope, created_at, expires_at, interval_s,"
		" address) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING 1)"
		" SELECT edgeauth_event($10::json) AS event FROM d", 10, PG_WRITES_UNCACHED },
	/* RFC 8628 §3.5, as sqlite_device.c's: the right-hand sides read the
	 * row as it was */
	[PD_POLL] = { "device_poll", "UPDATE device_authorizations SET last_poll_at = $2::bigint,"
		" slowed = (state = 'pending' AND last_poll_at IS NOT NULL"
		"           AND $2::bigint - last_poll_at < interval_s * 1000::bigint),"
		" interval_s = interval_s + CASE WHEN state = 'pending' AND last_poll_at IS NOT NULL"
		"           AND $2::bigint - last_poll_at < interval_s * 1000::bigint THEN 5 ELSE 0 END"
		" WHERE device_hash = $1 RETURNING" DEVICE_COLUMNS, 2, PG_WRITES_UNCACHED },
	[PD_FIND] = { "device_find", "SELECT" DEVICE_COLUMNS " FROM device_authorizations"
		" WHERE user_code_hash = $1 AND expires_at > $2::bigint", 2, PG_READS },
	/* the event (edgeauth_event) only when the decision won */
	[PD_DECIDE] = { "device_decide", "WITH d AS (UPDATE device_authorizations"
		" SET state = CASE WHEN $2::boolean THEN 'approved' ELSE 'denied' END, user_id = $3,"
		" session_id = $4, decided_at = $5::bigint"
		" WHERE user_code_hash = $1 AND state = 'pending' AND expires_at > $5::bigint"
		" RETURNING 1)"
		" SELECT EXISTS (SELECT 1 FROM d),"
		" CASE WHEN EXISTS (SELECT 1 FROM d) THEN edgeauth_event($6::json) END AS event",
		6, PG_WRITES_UNCACHED },
	/* the event only when the row was approved */
	[PD_ISSUED] = { "device_issued", "WITH d AS (UPDATE device_authorizations"
		" SET state = 'issued' WHERE device_hash = $1 AND state = 'approved' RETURNING 1)"
		" SELECT edgeauth_event($2::json) AS event FROM d", 2, PG_WRITES_UNCACHED },
};

const struct pg_statement_set pg_device_statements = { statements, PD__COUNT };

static char *text_dup(const PGresult *res, int c)
{
	const char *v = pg_text(res, 0, c);

	return v ? xstrdup(v) : NULL;
}

static int device_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct device_row *r = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	r->found = true;
	r->device_hash = text_dup(res, 0);
	r->project_id = text_dup(res, 1);
	r->client_id = text_dup(res, 2);
	r->scope = text_dup(res, 3);
	r->created_at = pg_int(res, 0, 4);
	r->expires_at = pg_int(res, 0, 5);
	r->interval_s = (int)pg_int(res, 0, 6);
	r->slowed = pg_bool(res, 0, 7);
	r->address = text_dup(res, 8);
	r->state = store_device_state_of(pg_text(res, 0, 9));
	r->user_id = text_dup(res, 10);
	r->session_id = text_dup(res, 11);
	return 0;
}

static void pg_device_insert(struct store *st, const struct new_device *d,
                             struct completion done)
{
	char created[24], expires[24], interval[24], *e = pg_event_json(d->ev);

	pg_run(st, &statements[PD_INSERT], (const char *const[]){ d->device_hash,
	       d->user_code_hash, d->project_id, d->client_id, d->scope,
	       pg_int_param(d->created_at, created), pg_int_param(d->expires_at, expires),
	       pg_int_param(d->interval_s, interval), d->address, e }, pg_map_none, NULL, NULL,
	       done);
	free(e);
}

static void pg_device_poll(struct store *st, const char *device_hash, int64_t now,
                           struct device_row *out, struct completion done)
{
	char at[24];

	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PD_POLL], (const char *const[]){ device_hash,
	       pg_int_param(now, at) }, device_read, out, NULL, done);
}

static void pg_device_find(struct store *st, const char *user_code_hash, int64_t now,
                           struct device_row *out, struct completion done)
{
	char at[24];

	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PD_FIND], (const char *const[]){ user_code_hash,
	       pg_int_param(now, at) }, device_read, out, NULL, done);
}

static void pg_device_decide(struct store *st, const char *user_code_hash, bool approve,
                             const char *user_id, const char *session_id, int64_t now,
                             const struct event *ev, bool *won, struct completion done)
{
	char at[24], *e = pg_event_json(ev);

	*won = false;
	pg_run(st, &statements[PD_DECIDE], (const char *const[]){ user_code_hash,
	       pg_bool_param(approve), user_id, session_id, pg_int_param(now, at), e },
	       pg_map_bool, won, NULL, done);
	free(e);
}

static void pg_device_issued(struct store *st, const char *device_hash, const struct event *ev,
                             struct completion done)
{
	char *e = pg_event_json(ev);

	pg_run(st, &statements[PD_ISSUED], (const char *const[]){ device_hash, e }, pg_map_none,
	       NULL, NULL, done);
	free(e);
}

const struct store_device_ops pg_device_ops = {
	.insert = pg_device_insert,
	.poll = pg_device_poll,
	.find = pg_device_find,
	.decide = pg_device_decide,
	.issued = pg_device_issued,
};
