#ifndef EDGEAUTH_STORE_PG_H
#define EDGEAUTH_STORE_PG_H
/*
 * The store on PostgreSQL (docs/operations.md §"A fleet on PostgreSQL"): the same public API
 * (store_<area>.h), chosen by [store] backend: the open sets st->be to
 * pg_backend (pg_backend.h), and the PostgreSQL side of an area lives in
 * pg_<area>.c, its operations static in the area's struct store_<area>_ops.
 *
 * The pattern (docs/ARCHITECTURE.md, "The store on PostgreSQL"): each
 * operation is one prepared statement, one round trip, that does the
 * operation's checks and writes and hands back a result code and the
 * record (a plpgsql function of schema/postgres/ for the writes), and that
 * never raises on an expected outcome; pg_run runs it and maps its result
 * into the same out-parameters and struct api_error as the SQLite backend.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "error.h"
#include "flow.h"
#include "jbody.h"
#include "listing.h"
#include "metrics.h"
#include "pg.h"
#include "store.h"

struct event;

/* Opens the store on [store] url: connects (blocking: start-up or the
 * CLI), takes the start-up advisory lock, which it holds until
 * store_serve (nodes starting together migrate once, and only the first on
 * an empty database creates the default project), applies the
 * migrations of schema/postgres/, warns when url names several hosts and
 * the primary replicates asynchronously. NULL with the reason in errbuf. */
struct store *store_open_postgres(const struct config *cfg, char *errbuf, size_t errlen);

/* ---- what pg_<area>.c use ---- */

/* Maps a statement's result into out (how: the map's own data). 0, or -1
 * with err. */
typedef int pg_map_fn(const PGresult *res, void *out, const void *how, struct api_error *err);

/* Runs s with params and completes done with what map makes of the
 * result (or with the store's error). out and how must live until done
 * ran. */
void pg_run(struct store *st, const struct pg_statement *s, const char *const *params,
            pg_map_fn *map, void *out, const void *how, struct completion done);
/* pg_run for a caller that blocks (the CLI, start-up): 0 or -1 with err. */
int pg_run_sync(struct store *st, const struct pg_statement *s, const char *const *params,
                pg_map_fn *map, void *out, const void *how, struct api_error *err);

/* An explicit transaction of a caller that blocks (the CLI): BEGIN, then
 * lock (an SQL statement, or NULL); pg_tx_end commits when rc >= 0 (and
 * hands the events it recorded to the audit file) or rolls back. Both
 * answer rc, or -1 with err. */
int pg_tx_begin(struct store *st, const char *lock, struct api_error *err);
int pg_tx_end(struct store *st, int rc, struct api_error *err);

/* Maps: out is a char ** that gets a copy of column 0 of the one row (the
 * record, as compact JSON text); no row: how (a struct record_missing)
 * is the error. */
pg_map_fn pg_map_record;
/* out is a bool *: whether there is a row. */
pg_map_fn pg_map_exists;
/* out is a char ** that gets column 0 of the first row, "" for none or
 * NULL (a scope). */
pg_map_fn pg_map_text;
/* out is a struct page *: the row (total, records as a JSON array). */
pg_map_fn pg_map_page;
/* out is a bool * (a long long *): column 0 of the first row, false (0)
 * for none or NULL. */
pg_map_fn pg_map_bool;
pg_map_fn pg_map_int;
/* Nothing to read: the statement ran and committed. */
pg_map_fn pg_map_none;

/* The completion of an operation started from the loop that no one waits
 * for (a purge tick): a failure is logged as "edgeauth: what: ...". what
 * must be a string literal. */
struct completion pg_logged(const char *what);
/* A purge tick's statement s (its one column: the rows it deleted) as the
 * run which (STORE_PURGE_*, what names it in the log): started unless one
 * is in flight. Returns the rows the last ended run deleted, so that the
 * tick after a full batch comes soon on PostgreSQL too. */
int pg_purge_run(struct store *st, int which, const char *what, const struct pg_statement *s,
                 const char *const *params);

/* What a write function of schema/postgres/ answers: one row (status,
 * detail, record). status NULL: done, and record is the record (or NULL);
 * 'not_found': the area's missing; 'grant:<kind>': refused by no
 * escalation (store_grant_refuse; detail: the named permission); else one
 * of the area's conflicts. */
struct pg_conflict {
	const char *status;
	enum api_code code;
	const char *sentence;
};
struct pg_outcomes {
	const struct record_missing *missing;
	const struct pg_conflict *conflicts;
	size_t n_conflicts;
};
/* out is a char ** for the record (may be NULL: none wanted); how is a
 * struct pg_outcomes. */
pg_map_fn pg_map_outcome;

/* A copy of JSON text without the whitespace between its tokens, so that
 * records read alike from both backends (PostgreSQL's json writes
 * "a" : 1, SQLite's json_object "a":1). */
char *pg_json_compact(const char *json);
/* ids as a JSON array of strings, the way statements take a list (NULL:
 * SQL NULL). Caller frees. */
char *pg_json_ids(const struct jbody_id_list *ids);
/* The event a write records, as the parameter p_event of its function
 * (schema/postgres/014: edgeauth_event(p_event, target)): a JSON object,
 * or NULL when nothing is to be recorded (ev NULL or ev->by NULL). Caller
 * frees. Any statement's column named event, in any row, is the record of
 * an event it recorded: once committed, it goes to the audit file. */
char *pg_event_json(const struct event *ev);
/* The same as a JSON object (a new reference), NULL when nothing is to be
 * recorded. */
json_t *pg_event_object(const struct event *ev);
/* A list's search condition (docs/api.md §"Lists"; docs/operations.md §"A fleet on PostgreSQL"): whether the text of
 * column col holds the parameter term, ignoring ASCII case as SQLite's
 * LIKE does; strpos takes % and _ literally. NULL col: no. */
#define PG_SQL_CONTAINS(col, term) " strpos(lower(" col "), lower(" term ")) > 0"

/* A list page's statement: the number of all rows r of table that filter
 * (" WHERE ...") keeps, and the records json (an expression of the row r) of
 * those in order, LIMIT limit OFFSET offset (parameters), as a JSON array
 * (pg_map_page). The page is chosen first, so only its rows are made
 * records. PG_SQL_PAGE_COUNT_IF counts only when count_if (an SQL boolean)
 * is true, else the number is NULL (pg_map_page's 0): the count's subquery
 * is an init plan, run when the CASE first needs it. */
#define PG_SQL_PAGE(table, filter, json, order, limit, offset) \
	PG_SQL_PAGE_COUNT_IF("true", table, filter, json, order, limit, offset)
#define PG_SQL_PAGE_COUNT_IF(count_if, table, filter, json, order, limit, offset) \
	"SELECT CASE WHEN " count_if " THEN (SELECT count(*) FROM " table " r" filter ") END," \
	" (SELECT coalesce(json_agg(" json " ORDER BY " order "), '[]')" \
	" FROM (SELECT * FROM " table " r" filter " ORDER BY " order \
	" LIMIT " limit " OFFSET " offset ") r)"

/* "true" / "false", for a boolean parameter. */
const char *pg_bool_param(bool v);
/* A number as a parameter, into buf. */
const char *pg_int_param(long long v, char buf[24]);


/* A read whose text is cached at a stamp (a scope): from *cache (made on
 * first use, its lookups counted under metric) when it holds key at at,
 * else s's column 0 (pg_map_text), which is then kept at at. */
void pg_run_cached(struct store *st, struct store_cache **cache, enum metrics_cache metric,
                   const char *key, struct store_stamp at, const struct pg_statement *s,
                   char **out, struct completion done);

/* The statements of each ported area, prepared on every connection. */
struct pg_statement_set {
	const struct pg_statement *statements;
	size_t count;
};
extern const struct pg_statement_set pg_projects_statements;
extern const struct pg_statement_set pg_clients_statements;
extern const struct pg_statement_set pg_tokens_statements;
extern const struct pg_statement_set pg_keys_statements;
extern const struct pg_statement_set pg_events_statements;
extern const struct pg_statement_set pg_resources_statements;
extern const struct pg_statement_set pg_roles_statements;
extern const struct pg_statement_set pg_users_statements;
extern const struct pg_statement_set pg_sessions_statements;
extern const struct pg_statement_set pg_device_statements;
extern const struct pg_statement_set pg_outbox_statements;
extern const struct pg_statement_set pg_factors_statements;
extern const struct pg_statement_set pg_forward_statements;
extern const struct pg_statement_set pg_passkeys_statements;
extern const struct pg_statement_set pg_access_statements;

#endif
