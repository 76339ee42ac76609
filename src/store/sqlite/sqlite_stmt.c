/*
 * The statement helpers every SQLite area uses (sqlite_stmt.h): binding,
 * stepping, a write's transaction, a record's read, delete and page, a
 * column joined into a scope. The connection is sqlite_store.c's, its
 * transactions and batches sqlite_tx.c's; each area's statements are its
 * own.
 */
#include <stdlib.h>
#include <string.h>

#include "listing.h"
#include "log.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store.h"
#include "store_cache.h"
#include "store_events.h"
#include "util.h"

int store_fail(struct store *st, struct api_error *err, const char *what)
{
	log_error("store: %s: %s", what, sqlite3_errmsg(sqlite_of(st)->db));
	/* its files changed underneath (store_fail_writes): not a bug, the
	 * store is unavailable until repaired */
	if (st->failed)
		return api_fail(err, E_STORE_UNAVAILABLE, "The store is unavailable.");
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

int store_bind_text(sqlite3_stmt *s, int idx, const char *v)
{
	if (!v)
		return sqlite3_bind_null(s, idx);
	return sqlite3_bind_text(s, idx, v, -1, SQLITE_STATIC);
}

const char *store_column_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

char *store_column_dup(sqlite3_stmt *s, int col)
{
	const char *v = store_column_text(s, col);

	return v ? xstrdup(v) : NULL;
}

int store_step_done(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(st, err, sqlite3_sql(s));
	return 0;
}

void store_stmt_finish(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

int store_step(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(st, err, sqlite3_sql(s));
}

int store_write_tx(struct store *st, int (*write)(struct store *st, void *arg, struct api_error *err),
                   int (*read_back)(struct store *st, void *arg, struct api_error *err),
                   void *arg, struct api_error *err)
{
	return store_write_tx_event(st, write, read_back, arg, NULL, err);
}

int store_write_tx_event(struct store *st,
                         int (*write)(struct store *st, void *arg, struct api_error *err),
                         int (*read_back)(struct store *st, void *arg, struct api_error *err),
                         void *arg, const struct event *ev, struct api_error *err)
{
	if (store_begin(st, err) < 0)
		return -1;
	if (write(st, arg, err) < 0 || (ev && store_event_insert(st, ev, err) < 0) ||
	    (read_back && read_back(st, arg, err) < 0)) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, err);   /* rolls back itself when it fails */
}

int store_exists(struct store *st, sqlite3_stmt *s, const char *a, const char *b, const char *c,
                 struct api_error *err)
{
	const char *v[3] = { a, b, c };
	int n = sqlite3_bind_parameter_count(s), rc;

	for (int i = 0; i < n && i < 3; i++)
		store_bind_text(s, i + 1, v[i]);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = 1;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = store_fail(st, err, sqlite3_sql(s));
	store_stmt_finish(s);
	return rc;
}

int store_read_record(struct store *st, sqlite3_stmt *s, const char *id, const char *project_id,
                      const struct record_missing *missing, char **out, struct api_error *err)
{
	int rc;

	*out = NULL;
	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	rc = store_step(st, s, err);
	if (rc == 1)
		*out = xstrdup(store_column_text(s, 0));
	else if (rc == 0)
		rc = api_fail(err, missing->code, "%s", missing->sentence);
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

void store_get_record(struct store *st, sqlite3_stmt *s, const char *id, const char *project_id,
                      const struct record_missing *missing, char **out, struct completion done)
{
	struct api_error err;

	complete(done, store_read_record(st, s, id, project_id, missing, out, &err), &err);
}

/* A delete in progress, for store_write_tx. */
struct delete_run {
	const struct record_delete *d;
	const char *id;
	const char *project_id;
};

static int delete_write(struct store *st, void *arg, struct api_error *err)
{
	const struct delete_run *r = arg;
	const struct record_delete *d = r->d;
	int found = store_exists(st, d->find, r->id, r->project_id, NULL, err);

	if (found <= 0)
		return found < 0 ? -1 : api_fail(err, d->missing.code, "%s", d->missing.sentence);
	if (d->check && d->check(st, r->id, d->check_arg, err) < 0)
		return -1;
	store_bind_text(d->remove, 1, r->id);
	return store_step_write(st, d->remove, NULL, 0, NULL, err);
}

void store_delete_record(struct store *st, const struct record_delete *d, const char *id,
                         const char *project_id, struct completion done)
{
	struct delete_run r = { d, id, project_id };
	struct api_error err;

	complete(done, store_write_tx_event(st, delete_write, NULL, &r, d->event, &err), &err);
}

int store_read_page(struct store *st, sqlite3_stmt *s, struct page *out, struct api_error *err)
{
	int rc = store_step(st, s, err);

	if (rc == 1) {
		out->total = sqlite3_column_int64(s, 0);
		out->data = xstrdup(store_column_text(s, 1));
	} else if (rc == 0) {   /* an aggregate answers one row, always */
		rc = store_fail(st, err, "page");
	}
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

char *store_join_column(struct store *st, sqlite3_stmt *s, const char *key, struct api_error *err)
{
	size_t len = 0, cap = 256;
	char *out = xmalloc(cap);
	int rc;

	out[0] = '\0';
	store_bind_text(s, 1, key);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *v = store_column_text(s, 0);
		size_t n = v ? strlen(v) : 0;
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			out = xrealloc(out, cap);
		}
		if (len)
			out[len++] = ' ';
		memcpy(out + len, v ? v : "", n + 1);
		len += n;
	}
	store_stmt_finish(s);
	if (rc != SQLITE_DONE) {
		free(out);
		store_fail(st, err, sqlite3_sql(s));
		return NULL;
	}
	return out;
}

static void free_string(void *p)
{
	free(p);
}

char *store_join_column_cached(struct store *st, struct store_cache **cache,
                               enum metrics_cache metric, sqlite3_stmt *s, const char *key,
                               struct store_stamp at, struct api_error *err)
{
	const char *hit;
	char *out;

	if (!*cache)
		*cache = store_cache_new(metric, free_string);
	hit = store_cache_get(*cache, key, at);
	if (hit)
		return xstrdup(hit);
	out = store_join_column(st, s, key, err);
	if (out)
		store_cache_put(*cache, key, at, xstrdup(out));
	return out;
}
