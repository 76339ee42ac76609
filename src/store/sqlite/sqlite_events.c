/*
 * The audit trail on SQLite (store_events_ops, store_backend.h). An event is one
 * INSERT inside the transaction of the change it records; its record waits
 * here for the commit, so that the sink (the audit file) never sees an event
 * whose transaction rolled back. Plain INSERT, SELECT and DELETE over ms
 * integers, so the statements port to PostgreSQL as they are. The API's
 * pages (store_event_page) read through one index per filter.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_events.h"
#include "util.h"

enum event_stmt {
	EV_INSERT,
	EV_RECORD,
	EV_LIST,
	EV_PURGE,
	EV_PAGE,   /* EV_PAGE + 2 * event_page_index + desc */
	EV__COUNT = EV_PAGE + 2 * EVENT_PAGE_BY__COUNT
};

/* An event's record: one definition, for the list and the sink. */
#define SQL_EVENT_RECORD \
	"json_object('id', id, 'time', iso_time(time), 'project_id', project_id," \
	" 'actor', actor, 'action', action, 'target', target, 'address', address," \
	" 'outcome', outcome)"

#define SQL_EVENT_INSERT \
	"INSERT INTO events (time, project_id, actor, action, target, address, outcome)" \
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"

/* A page's filter (store_event_page): ?1 the project, ?2 since, ?3 until,
 * ?4 action, ?5 actor, ?6 target, ?7 outcome (NULL: any); key the
 * equality of the index read through (enum event_page_index). */
#define EV_PAGE_FILTER(key) \
	" WHERE project_id = ?1" key " AND time >= ?2 AND time < ?3" \
	" AND (?4 IS NULL OR action = ?4) AND (?5 IS NULL OR actor = ?5)" \
	" AND (?6 IS NULL OR target = ?6) AND (?7 IS NULL OR outcome = ?7)"
/* The count (unless ?10 is 0: NULL, which reads as 0; the CASE runs the
 * subquery only when it is taken) and the page (LIMIT ?8 OFFSET ?9) in one
 * read; ties of time go by ID in the same direction, which the index holds
 * (the rowid ends each of its entries). */
#define EV_PAGE_SQL(key, dir) \
	"SELECT CASE WHEN ?10 THEN (SELECT count(*) FROM events" EV_PAGE_FILTER(key) ") END," \
	" (SELECT json_group_array(" SQL_EVENT_RECORD ") FROM (SELECT * FROM events" \
	EV_PAGE_FILTER(key) " ORDER BY time " dir ", id " dir " LIMIT ?8 OFFSET ?9))"
#define EV_PAGE_PAIR(index, key) \
	[EV_PAGE + 2 * (index)] = EV_PAGE_SQL(key, "ASC"), \
	[EV_PAGE + 2 * (index) + 1] = EV_PAGE_SQL(key, "DESC")

static const char *const sql[EV__COUNT] = {
	[EV_INSERT] = SQL_EVENT_INSERT,
	/* With a sink: the record of the row just inserted (?1 its ID), for
	 * after the commit. A look-up by rowid, not INSERT ... RETURNING, which
	 * stages its rows in a temporary table: 3x the cost (docs/BENCHMARKS.md). */
	[EV_RECORD] = "SELECT " SQL_EVENT_RECORD " FROM events WHERE id = ?1",
	[EV_LIST] =
		"SELECT " SQL_EVENT_RECORD " FROM events WHERE time >= ?2"
		" AND (?1 IS NULL OR project_id = ?1) AND (?3 IS NULL OR action = ?3)"
		" ORDER BY time, id",
	[EV_PURGE] = ("DELETE FROM events WHERE id IN"
	              " (SELECT id FROM events WHERE time < ?1 ORDER BY time LIMIT ?2)"),
	EV_PAGE_PAIR(EVENT_PAGE_BY_PROJECT, ""),
	EV_PAGE_PAIR(EVENT_PAGE_BY_ACTION, " AND action = ?4"),
	EV_PAGE_PAIR(EVENT_PAGE_BY_ACTOR, " AND actor = ?5"),
	EV_PAGE_PAIR(EVENT_PAGE_BY_TARGET, " AND target = ?6"),
};

const struct stmt_set store_events_sql = { EV__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum event_stmt which)
{
	return sqlite_of(st)->events.stmt[which];
}

/* The record of the event just inserted, kept for the sink. */
static int keep_record(struct store *st, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, EV_RECORD);
	int rc;

	sqlite3_bind_int64(s, 1, sqlite3_last_insert_rowid(sqlite_of(st)->db));
	rc = store_step(st, s, err);
	if (rc == 1)
		store_events_keep(st, store_column_text(s, 0));
	store_stmt_finish(s);
	if (rc == 0)   /* the row this transaction just wrote */
		return store_fail(st, err, "the event's record");
	return rc < 0 ? -1 : 0;
}

int store_event_insert(struct store *st, const struct event *ev, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, EV_INSERT);
	int rc;

	if (!ev->by)
		return 0;
	/* every origin names its actor, every caller one of the actions */
	assert(ev->by->actor && ev->action);
	sqlite3_bind_int64(s, 1, now_ms());
	store_bind_text(s, 2, ev->project_id);
	store_bind_text(s, 3, ev->by->actor);
	store_bind_text(s, 4, ev->action);
	store_bind_text(s, 5, ev->target);
	store_bind_text(s, 6, ev->by->address);
	store_bind_text(s, 7, ev->outcome ? ev->outcome : EVENT_SUCCESS);
	rc = store_step(st, s, err);
	store_stmt_finish(s);
	if (rc < 0)
		return -1;
	return st->events_sink ? keep_record(st, err) : 0;
}

/* What store_event_record works on, for store_write_tx. */
struct event_batch {
	const struct event *evs;
	size_t n;
};

static int record_write(struct store *st, void *arg, struct api_error *err)
{
	const struct event_batch *b = arg;

	for (size_t i = 0; i < b->n; i++)
		if (store_event_insert(st, &b->evs[i], err) < 0)
			return -1;
	return 0;
}

static void sqlite_event_record(struct store *st, const struct event *evs, size_t n,
                                struct completion done)
{
	struct event_batch b = { evs, n };
	struct api_error err;

	complete(done, store_write_tx(st, record_write, NULL, &b, &err), &err);
}

int store_event_insert_own(struct store *st, struct event ev, struct api_error *err)
{
	ev.by = st->events_origin;
	return store_event_insert(st, &ev, err);
}

static void sqlite_event_list(struct store *st, const struct event_filter *f,
                              void (*each)(void *arg, const char *record), void *arg,
                              struct completion done)
{
	sqlite3_stmt *s = stmt(st, EV_LIST);
	struct api_error err;
	int rc;

	store_bind_text(s, 1, f->project_id);
	sqlite3_bind_int64(s, 2, f->since);
	store_bind_text(s, 3, f->action);
	while ((rc = store_step(st, s, &err)) == 1)
		each(arg, store_column_text(s, 0));
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_event_page(struct store *st, const char *project_id,
                              const struct event_page_filter *f, const struct list_query *q,
                              struct page *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, EV_PAGE + 2 * (int)store_event_page_index(f) + (q->desc ? 1 : 0));
	struct api_error err;

	store_bind_text(s, 1, project_id);
	sqlite3_bind_int64(s, 2, f->since);
	sqlite3_bind_int64(s, 3, f->until);
	store_bind_text(s, 4, f->action);
	store_bind_text(s, 5, f->actor);
	store_bind_text(s, 6, f->target);
	store_bind_text(s, 7, f->outcome);
	sqlite3_bind_int64(s, 8, q->page_size);
	sqlite3_bind_int64(s, 9, list_offset(q));
	sqlite3_bind_int(s, 10, !q->no_total);
	complete(done, store_read_page(st, s, out, &err), &err);
}

static void sqlite_event_purge(struct store *st, int batch, int64_t before, int *deleted,
                               struct completion done)
{
	struct api_error err;

	*deleted = store_purge_batch(st, stmt(st, EV_PURGE), before, batch, &err);
	complete(done, *deleted < 0 ? -1 : 0, &err);
}

const struct store_events_ops sqlite_events_ops = {
	.record = sqlite_event_record,
	.list = sqlite_event_list,
	.page = sqlite_event_page,
	.purge = sqlite_event_purge,
};
