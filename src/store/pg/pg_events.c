/*
 * The audit trail on PostgreSQL (store_events_ops, store_backend.h): the events a change of its own
 * records (a refused sign-in), the list the CLI reads, the API's pages, the
 * retention purge.
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
	PE_PAGE,   /* PE_PAGE + 2 * event_page_index + desc */
	PE__COUNT = PE_PAGE + 2 * EVENT_PAGE_BY__COUNT
};

/* A page's filter (store_event_page): $1 the project, $2 since, $3 until,
 * $4 action, $5 actor, $6 target, $7 outcome (NULL: any); key the equality
 * of the index read through (enum event_page_index), which a generic plan
 * keeps. */
#define PAGE_FILTER(key) \
	" WHERE project_id = $1" key " AND time >= $2::bigint AND time < $3::bigint" \
	" AND ($4::ctext IS NULL OR action = $4::ctext) AND ($5::ctext IS NULL OR actor = $5::ctext)" \
	" AND ($6::ctext IS NULL OR target = $6::ctext)" \
	" AND ($7::ctext IS NULL OR outcome = $7::ctext)"
/* The number of all matches (unless $10 is false) and the page's records,
 * ties of time by ID in the same direction (EV_PAGE's order, sqlite_events.c). */
#define PAGE(name, key, dir) \
	{ "events_page_" name, PG_SQL_PAGE_COUNT_IF("$10::boolean", "events", PAGE_FILTER(key), \
	  "edgeauth_event_json(r)", "time " dir ", id " dir, "$8", "$9"), 10, false }
#define PAGE_PAIR(index, name, key) \
	[PE_PAGE + 2 * (index)] = PAGE(name, key, "ASC"), \
	[PE_PAGE + 2 * (index) + 1] = PAGE(name "_desc", key, "DESC")

static const struct pg_statement statements[PE__COUNT] = {
	/* events recorded alone (a refused sign-in, a device poll, a denial):
	 * rows no cache holds, so the node's caches stay */
	[PE_RECORD] = { "events_record", "SELECT event FROM edgeauth_events_record($1)", 1,
		PG_WRITES_UNCACHED },
	[PE_LIST] = { "events_list", "SELECT edgeauth_event_json(e)::text FROM events e"
		" WHERE time >= $2 AND ($1::ctext IS NULL OR project_id = $1::ctext)"
		" AND ($3::ctext IS NULL OR action = $3::ctext) ORDER BY time, id", 3, false },
	/* no cache holds an event: a purge tick leaves the caches be */
	[PE_PURGE] = { "events_purge", "WITH d AS (DELETE FROM events WHERE id IN"
		" (SELECT id FROM events WHERE time < $1 ORDER BY time LIMIT $2) RETURNING 1)"
		" SELECT count(*) FROM d", 2, PG_WRITES_UNCACHED },
	PAGE_PAIR(EVENT_PAGE_BY_PROJECT, "project", ""),
	PAGE_PAIR(EVENT_PAGE_BY_ACTION, "action", " AND action = $4::ctext"),
	PAGE_PAIR(EVENT_PAGE_BY_ACTOR, "actor", " AND actor = $5::ctext"),
	PAGE_PAIR(EVENT_PAGE_BY_TARGET, "target", " AND target = $6::ctext"),
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

static void pg_event_page(struct store *st, const char *project_id,
                          const struct event_page_filter *f, const struct list_query *q,
                          struct page *out, struct completion done)
{
	char since[24], until[24], size[24], offset[24];

	pg_run(st, &statements[PE_PAGE + 2 * (int)store_event_page_index(f) + (q->desc ? 1 : 0)],
	       (const char *const[]){ project_id, pg_int_param(f->since, since),
	       pg_int_param(f->until, until), f->action, f->actor, f->target, f->outcome,
	       pg_int_param(q->page_size, size), pg_int_param(list_offset(q), offset),
	       pg_bool_param(!q->no_total) },
	       pg_map_page, out, NULL, done);
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
	.page = pg_event_page,
	.purge = pg_event_purge,
};
