/*
 * The store on PostgreSQL (store_pg.h): opening it (the start-up lock and
 * the migrations), its stamp, and the one way an operation runs (pg_run)
 * with the maps that turn a result into what the SQLite backend hands
 * back. Blocking calls only before store_serve.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "log.h"
#include "jbody.h"
#include "pg_backend.h"
#include "pg_url.h"
#include "store_events.h"
#include "store_grants.h"
#include "store_pg.h"
#include "util.h"

extern const char *const pg_schema_migrations[];
extern const size_t pg_schema_migration_count;

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* The session lock nodes take while they start ("edgeauth" in ASCII): one
 * migrates, and creates the default project, at a time. */
#define START_LOCK "7306916068411618408"

/* Every area's statements, prepared on each connection. */
static const struct pg_statement_set *const statement_sets[] = {
	&pg_projects_statements, &pg_clients_statements, &pg_tokens_statements,
	&pg_keys_statements, &pg_events_statements, &pg_resources_statements,
	&pg_roles_statements, &pg_users_statements, &pg_sessions_statements,
	&pg_outbox_statements, &pg_factors_statements, &pg_forward_statements,
	&pg_passkeys_statements, &pg_device_statements, &pg_access_statements,
};

/* ---- opening ---- */

/* Applies the migrations the database has not seen, each in one
 * transaction with its version, under the start-up lock. */
static int migrate(struct pg_pool *p, char *errbuf, size_t errlen)
{
	PGconn *c = pg_pool_blocking_conn(p);
	PGresult *r;
	struct api_error err;
	long version;

	if (pg_exec(p, "CREATE TABLE IF NOT EXISTS edgeauth_schema (version integer NOT NULL);"
	            " INSERT INTO edgeauth_schema SELECT 0"
	            " WHERE NOT EXISTS (SELECT 1 FROM edgeauth_schema)", &err) < 0)
		goto fail;
	r = PQexec(c, "SELECT version FROM edgeauth_schema");
	version = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? pg_int(r, 0, 0) : -1;
	PQclear(r);
	if (version < 0 || version > (long)pg_schema_migration_count) {
		snprintf(errbuf, errlen, "database schema version %ld is not one this edgeauth knows"
		         " (it has %zu)", version, pg_schema_migration_count);
		return -1;
	}
	for (size_t i = (size_t)version; i < pg_schema_migration_count; i++) {
		char bump[64];

		snprintf(bump, sizeof bump, "UPDATE edgeauth_schema SET version = %zu", i + 1);
		if (pg_exec(p, "BEGIN", &err) < 0)
			goto fail;
		if (pg_exec(p, pg_schema_migrations[i], &err) < 0 || pg_exec(p, bump, &err) < 0 ||
		    pg_exec(p, "COMMIT", &err) < 0) {
			pg_exec(p, "ROLLBACK", &err);
			snprintf(errbuf, errlen, "PostgreSQL migration %zu failed (see above)", i + 1);
			return -1;
		}
	}
	return 0;
fail:
	snprintf(errbuf, errlen, "PostgreSQL: %s", err.description);
	return -1;
}

/* docs/operations.md §"A fleet on PostgreSQL": single use, revocation and what was acknowledged survive
 * a failover only when the primary replicates synchronously. */
static void warn_async_replication(struct pg_pool *p, const struct config *cfg)
{
	struct pg_url_info info;
	char reason[200];
	PGresult *r;

	if (pg_url_check(cfg->store_url, true, &info, reason, sizeof reason) < 0 || info.hosts < 2)
		return;
	r = PQexec(pg_pool_blocking_conn(p), "SHOW synchronous_standby_names");
	if (PQresultStatus(r) == PGRES_TUPLES_OK && !*PQgetvalue(r, 0, 0))
		log_warn("[store] url names %d hosts, but the primary's"
		         " synchronous_standby_names is empty: after a failover, tokens used or"
		         " revoked in its last moments may work again (docs/operations.md \"Running a fleet\")",
		         info.hosts);
	PQclear(r);
}

/* Something the caches hold may have changed (pg.h): every entry retires. */
static void on_changed(void *arg)
{
	((struct store *)arg)->generation++;
}

static void on_outbox(void *arg)
{
	struct store *st = arg;

	if (st->outbox_queued)
		st->outbox_queued(st->outbox_queued_arg);
}

/* The statements of every set, as the pool takes them: the same for every
 * store, gathered once. */
#define STATEMENTS_MAX 1024

static const struct pg_statement *const *statements(size_t *n)
{
	static const struct pg_statement *all[STATEMENTS_MAX];
	static size_t count;

	if (!count)
		for (size_t i = 0; i < ARRAY_LEN(statement_sets); i++)
			for (size_t j = 0; j < statement_sets[i]->count; j++) {
				assert(count < STATEMENTS_MAX);   /* a new area outgrew it: raise it */
				all[count++] = &statement_sets[i]->statements[j];
			}
	*n = count;
	return all;
}

/* store->pg_node: host and listen address, which two live nodes never
 * share (one address, one listener). */
static char *node_name(const struct config *cfg)
{
	char host[256] = "";

	gethostname(host, sizeof host - 1);
	return xasprintf("%s [%s]:%d", host, cfg->listen_host, cfg->listen_port);
}

struct store *store_open_postgres(const struct config *cfg, char *errbuf, size_t errlen)
{
	struct pg_store *ps = xcalloc(1, sizeof *ps);
	struct store *st = &ps->base;
	struct pg_pool_config pc = {
		.conninfo = cfg->store_url, .size = cfg->pool_size, .timeout_ms = cfg->pg_timeout_ms,
		.changed = on_changed,
		.outbox = on_outbox, .arg = st,
	};
	struct api_error err;

	st->be = &pg_backend;
	pc.statements = statements(&pc.n_statements);
	ps->pg_node = node_name(cfg);
	ps->pg = pg_pool_open(&pc, errbuf, errlen);
	if (!ps->pg)
		goto fail;
	/* held by this session until store_serve closes it */
	if (pg_exec(ps->pg, "SELECT pg_advisory_lock(" START_LOCK ")", &err) < 0) {
		snprintf(errbuf, errlen, "PostgreSQL: %s", err.description);
		goto fail;
	}
	if (migrate(ps->pg, errbuf, errlen) < 0)
		goto fail;
	warn_async_replication(ps->pg, cfg);
	return st;
fail:
	store_close(st);
	return NULL;
}

void store_serve(struct store *st, struct event_base *base)
{
	if (st->be == &pg_backend)
		pg_pool_serve(pg_of(st)->pg, base);
}

void pg_store_close(struct store *st)
{
	struct pg_store *ps = pg_of(st);

	pg_pool_free(ps->pg);
	ps->pg = NULL;
	free(ps->pg_node);
	ps->pg_node = NULL;
}

struct store_stamp pg_store_stamp(struct store *st)
{
	return (struct store_stamp){ st->generation, 0, pg_pool_listening(pg_of(st)->pg) };
}

bool pg_store_idle(const struct store *st)
{
	return pg_pool_idle(((const struct pg_store *)st)->pg);
}

/* ---- running an operation ---- */

struct pg_call {
	struct store *st;
	pg_map_fn *map;
	void *out;
	const void *how;
	struct completion done;
};

/* The records of the events a statement recorded (its column named event,
 * any row: schema/postgres/014) go to the audit file once committed: at
 * once for a statement that was its own transaction, at pg_tx_end for one
 * of a CLI command's explicit transaction. */
static void events_committed(struct store *st, const PGresult *res)
{
	int col = st->events_sink ? PQfnumber(res, "event") : -1;
	PGconn *blocking = pg_pool_blocking_conn(pg_of(st)->pg);
	bool in_tx = blocking && PQtransactionStatus(blocking) == PQTRANS_INTRANS;

	for (int r = 0; col >= 0 && r < PQntuples(res); r++) {
		const char *record = pg_text(res, r, col);

		if (record) {
			/* as compact as SQLite's line (json_build_object writes " : ") */
			char *line = pg_json_compact(record);

			store_events_keep(st, line);
			free(line);
		}
	}
	/* outside a transaction nothing else waits: these are all committed */
	if (col >= 0 && !in_tx)
		store_events_committed(st);
}

int pg_tx_begin(struct store *st, const char *lock, struct api_error *err)
{
	char sql[200];

	store_events_drop(st);
	snprintf(sql, sizeof sql, "BEGIN%s%s", lock ? "; " : "", lock ? lock : "");
	return pg_exec(pg_of(st)->pg, sql, err);
}

int pg_tx_end(struct store *st, int rc, struct api_error *err)
{
	struct api_error ignored;

	if (rc < 0 || pg_exec(pg_of(st)->pg, "COMMIT", err) < 0) {
		pg_exec(pg_of(st)->pg, "ROLLBACK", &ignored);
		store_events_drop(st);
		return -1;
	}
	store_events_committed(st);
	return rc;
}

static void call_done(void *arg, const PGresult *res, const struct api_error *err)
{
	struct pg_call *c = arg;
	struct completion done = c->done;
	struct api_error e;
	int rc = -1;

	if (err)
		e = *err;
	else {
		events_committed(c->st, res);
		rc = c->map(res, c->out, c->how, &e);
	}
	free(c);
	complete(done, rc, &e);
}

void pg_run(struct store *st, const struct pg_statement *s, const char *const *params,
            pg_map_fn *map, void *out, const void *how, struct completion done)
{
	struct pg_call *c = xmalloc(sizeof *c);

	*c = (struct pg_call){ st, map, out, how, done };
	pg_query(pg_of(st)->pg, s, params, call_done, c);
}

int pg_run_sync(struct store *st, const struct pg_statement *s, const char *const *params,
                pg_map_fn *map, void *out, const void *how, struct api_error *err)
{
	struct sync_result r;

	pg_run(st, s, params, map, out, how, sync_completion(&r));
	return sync_wait(&r, err);
}

/* ---- maps ---- */

int pg_map_record(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	const struct record_missing *missing = how;
	const char *text = PQntuples(res) ? pg_text(res, 0, 0) : NULL;

	*(char **)out = text ? pg_json_compact(text) : NULL;
	return text ? 0 : api_fail(err, missing->code, "%s", missing->sentence);
}

int pg_map_exists(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	*(bool *)out = PQntuples(res) > 0;
	return 0;
}

int pg_map_text(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	const char *text = PQntuples(res) ? pg_text(res, 0, 0) : NULL;

	(void)how;
	(void)err;
	*(char **)out = xstrdup(text ? text : "");
	return 0;
}

int pg_map_page(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct page *p = out;
	const char *data = PQntuples(res) ? pg_text(res, 0, 1) : NULL;

	(void)how;
	(void)err;
	p->total = PQntuples(res) ? pg_int(res, 0, 0) : 0;
	p->data = pg_json_compact(data ? data : "[]");
	return 0;
}

int pg_map_bool(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	*(bool *)out = PQntuples(res) > 0 && pg_bool(res, 0, 0);
	return 0;
}

int pg_map_int(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	*(long long *)out = PQntuples(res) > 0 ? pg_int(res, 0, 0) : 0;
	return 0;
}

int pg_map_none(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)res;
	(void)out;
	(void)how;
	(void)err;
	return 0;
}

int pg_map_outcome(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	const struct pg_outcomes *o = how;
	const char *status, *detail, *record;

	if (PQntuples(res) != 1 || PQnfields(res) < 3) {
		log_error("store: a write answered %d rows of %d columns",
		          PQntuples(res), PQnfields(res));
		return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	}
	status = pg_text(res, 0, 0);
	detail = pg_text(res, 0, 1);
	record = pg_text(res, 0, 2);
	if (!status) {
		if (out)
			*(char **)out = record ? pg_json_compact(record) : NULL;
		return 0;
	}
	if (!strcmp(status, "not_found") && o->missing)
		return api_fail(err, o->missing->code, "%s", o->missing->sentence);
	if (!strncmp(status, "grant:", 6))
		return store_grant_refuse(status + 6, detail, err);
	for (size_t i = 0; i < o->n_conflicts; i++)
		if (!strcmp(status, o->conflicts[i].status))
			return api_fail(err, o->conflicts[i].code, "%s", o->conflicts[i].sentence);
	log_error("store: a write answered %s, which no rule explains", status);
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

static void logged_done(void *arg, const struct api_error *err)
{
	if (err)
		log_error("%s: %s", (const char *)arg, err->description);
}

struct completion pg_logged(const char *what)
{
	return (struct completion){ logged_done, (void *)what };
}

static void purge_done(void *arg, const struct api_error *err)
{
	struct store_purge_run *r = arg;

	if (err)
		log_error("%s: %s", r->what, err->description);
	r->last = err ? 0 : (int)r->count;
	r->busy = false;
}

int pg_purge_run(struct store *st, int which, const char *what, const struct pg_statement *s,
                 const char *const *params)
{
	struct store_purge_run *r = &pg_of(st)->purges[which];

	if (!r->busy) {
		r->busy = true;
		r->count = 0;
		r->what = what;
		pg_run(st, s, params, pg_map_int, &r->count, NULL, (struct completion){ purge_done, r });
	}
	return r->last;
}

/* ---- a cached read ---- */

struct cached_read {
	struct store_cache *cache;
	char *key;
	struct store_stamp at;
	char **out;
	struct completion done;
};

static void free_string(void *p)
{
	free(p);
}

static void cached_read_done(void *arg, const struct api_error *err)
{
	struct cached_read *r = arg;
	struct completion done = r->done;

	if (!err)
		store_cache_put(r->cache, r->key, r->at, xstrdup(*r->out));
	free(r->key);
	free(r);
	complete(done, err ? -1 : 0, err);
}

void pg_run_cached(struct store *st, struct store_cache **cache, enum metrics_cache metric,
                   const char *key, struct store_stamp at, const struct pg_statement *s,
                   char **out, struct completion done)
{
	struct cached_read *r;
	const char *hit;

	if (!*cache)
		*cache = store_cache_new(metric, free_string);
	hit = store_cache_get(*cache, key, at);
	if (hit) {
		*out = xstrdup(hit);
		complete(done, 0, NULL);
		return;
	}
	r = xmalloc(sizeof *r);
	*r = (struct cached_read){ *cache, xstrdup(key), at, out, done };
	pg_run(st, s, (const char *const[]){ key }, pg_map_text, out, NULL,
	       (struct completion){ cached_read_done, r });
}

/* ---- parameters and JSON ---- */

char *pg_json_compact(const char *json)
{
	char *out = xmalloc(strlen(json) + 1), *o = out;
	bool in_string = false;

	for (const char *p = json; *p; p++) {
		if (in_string) {
			*o++ = *p;
			if (*p == '\\' && p[1])
				*o++ = *++p;
			else if (*p == '"')
				in_string = false;
		} else if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') {
			*o++ = *p;
			in_string = *p == '"';
		}
	}
	*o = '\0';
	return out;
}

char *pg_json_ids(const struct jbody_id_list *ids)
{
	json_t *a;
	char *text;

	if (!ids)
		return NULL;
	a = json_array();
	for (size_t i = 0; i < ids->count; i++)
		json_array_append_new(a, json_string(ids->ids[i]));
	text = json_dumps(a, JSON_COMPACT);   /* jansson allocates with xmalloc */
	json_decref(a);
	return text;
}

json_t *pg_event_object(const struct event *ev)
{
	if (!ev || !ev->by)
		return NULL;
	return json_pack("{s:s?, s:s, s:s, s:s?, s:s?, s:s}", "project_id", ev->project_id,
	                 "actor", ev->by->actor, "action", ev->action, "target", ev->target,
	                 "address", ev->by->address,
	                 "outcome", ev->outcome ? ev->outcome : EVENT_SUCCESS);
}

char *pg_event_json(const struct event *ev)
{
	json_t *o = pg_event_object(ev);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;   /* jansson allocates with xmalloc */

	json_decref(o);
	return text;
}

const char *pg_bool_param(bool v)
{
	return v ? "true" : "false";
}

const char *pg_int_param(long long v, char buf[24])
{
	snprintf(buf, 24, "%lld", v);
	return buf;
}
