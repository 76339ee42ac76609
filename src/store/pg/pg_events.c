/*
 * The audit trail on PostgreSQL (store_events_ops, store_backend.h): the events a change of its own
 * records (a refused sign-in), the list the CLI reads, the retention purge.
 * The record is built by the database (edgeauth_event_json), so the list and
 * the audit file read alike on both backends.
 */
#include <stdlib.h>
#include <jansson.h>

#include "pg_backend.h"
#include "store_events.h"
#include "store_pg.h"
#include "util.h"

enum {
	PE_RECORD,
	PE_LIST,
	PE_PURGE,
	PE__COUNT
};

static const struct pg_statement statements[PE__COUNT] = {
	[PE_RECORD] = { "events_record", "SELECT event FROM edgeauth_events_record($1)", 1, true },
	[PE_LIST] = { "events_list", "SELECT edgeauth_event_json(e)::text FROM events e"
		" WHERE time >= $2 AND ($1::ctext IS NULL OR project_id = $1::ctext)"
		" AND ($3::ctext IS NULL OR action = $3::ctext) ORDER BY time, id", 3, false },
	[PE_PURGE] = { "events_purge", "WITH d AS (DELETE FROM events WHERE id IN"
		" (SELECT id FROM events WHERE time < $1 ORDER BY time LIMIT $2) RETURNING 1)"
		" SELECT count(*) FROM d", 2, true },
};

const struct pg_statement_set pg_events_statements = { statements, PE__COUNT };

static void pg_event_record(struct store *st, const struct event *evs, size_t n,
                            struct completion done)
{
	json_t *a = json_array();
	char *text;

	for (size_t i = 0; i < n; i++) {
		json_t *one = pg_event_object(&evs[i]);

		if (one)
			json_array_append_new(a, one);
	}
	text = json_dumps(a, JSON_COMPACT);   /* jansson allocates with xmalloc */
	json_decref(a);
	pg_run(st, &statements[PE_RECORD], (const char *const[]){ text }, pg_map_none, NULL, NULL,
	       done);
	free(text);
}

/* What the list's map hands each row to. */
struct each_row {
	void (*each)(void *arg, const char *record);
	void *arg;
};

static int list_map(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	const struct each_row *e = how;

	(void)out;
	(void)err;
	for (int r = 0; r < PQntuples(res); r++) {
		char *record = pg_json_compact(pg_text(res, r, 0));

		e->each(e->arg, record);
		free(record);
	}
	return 0;
}

/* The CLI's: a blocking caller, so e lives until done has run. */
static void pg_event_list(struct store *st, const struct event_filter *f,
                          void (*each)(void *arg, const char *record), void *arg,
                          struct completion done)
{
	struct each_row e = { each, arg };
	char since[24];

	pg_run(st, &statements[PE_LIST], (const char *const[]){ f->project_id,
	       pg_int_param(f->since, since), f->action }, list_map, NULL, &e, done);
}

/* Runs on the loop, so it does not wait for its count: *deleted is the
 * count of the last run that ended (pg_purge_run); a failure is logged. */
static void pg_event_purge(struct store *st, int batch, int64_t before, int *deleted,
                           struct completion done)
{
	char b[24], n[24];

	*deleted = pg_purge_run(st, STORE_PURGE_EVENTS, "purge of old audit events",
	                        &statements[PE_PURGE], (const char *const[]){ pg_int_param(before, b),
	                        pg_int_param(batch, n) });
	complete(done, 0, NULL);
}

const struct store_events_ops pg_events_ops = {
	.record = pg_event_record,
	.list = pg_event_list,
	.purge = pg_event_purge,
};
