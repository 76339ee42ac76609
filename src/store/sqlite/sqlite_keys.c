/* Signing keys on SQLite (store_keys_ops, store_backend.h). Every write is
 * one transaction that also sets the publication bounds, so that the rows
 * always follow the schedule, whichever process wrote them. */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_events.h"
#include "store_keys.h"
#include "util.h"

/* One column list for every read of a key. */
#define KEY_COLUMNS "kid, alg, private_key, created_at, activates_at, publish_until, retired_at"

enum {
	K_VERSION,
	K_PUBLISHED,
	K_ALL,
	K_OF_ALG,
	K_INSERT,
	K_SET_BOUND,
	K_RETIRE,
	K__COUNT
};

static const char *const sql[K__COUNT] = {
	[K_VERSION] = "SELECT version FROM signing_keys_version WHERE id = 1",
	[K_PUBLISHED] =
		"SELECT " KEY_COLUMNS " FROM signing_keys WHERE retired_at IS NULL"
		" AND (publish_until IS NULL OR publish_until > ?1)"
		" ORDER BY activates_at, created_at, alg, kid",
	[K_ALL] = "SELECT " KEY_COLUMNS " FROM signing_keys ORDER BY created_at, alg, kid",
	[K_OF_ALG] = "SELECT " KEY_COLUMNS " FROM signing_keys WHERE alg = ?1",
	[K_INSERT] =
		"INSERT INTO signing_keys (kid, alg, private_key, created_at, activates_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[K_SET_BOUND] = "UPDATE signing_keys SET publish_until = ?2 WHERE kid = ?1"
		" AND publish_until IS NOT ?2",
	[K_RETIRE] = "UPDATE signing_keys SET retired_at = ?2 WHERE kid = ?1 AND retired_at IS NULL",
};

const struct stmt_set store_keys_sql = { K__COUNT, sql, NULL };

#define STMT(st, i) (sqlite_of(st)->keys.stmt[i])

/* The row s is on (KEY_COLUMNS), appended to out. */
static void row_read(sqlite3_stmt *s, struct key_rows *out)
{
	store_keys_rows_append(out, store_column_text(s, 0), store_column_text(s, 1),
	                       sqlite3_column_blob(s, 2), (size_t)sqlite3_column_bytes(s, 2),
	                       sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4),
	                       sqlite3_column_type(s, 5) == SQLITE_NULL ? KEY_NO_BOUND
	                                                                : sqlite3_column_int64(s, 5),
	                       sqlite3_column_type(s, 6) != SQLITE_NULL, sqlite3_column_int64(s, 6));
}

/* Every row of s (bound already) into *out. 0, or -1 with err. */
static int rows_read(struct store *st, sqlite3_stmt *s, struct key_rows *out, struct api_error *err)
{
	int rc;

	while ((rc = store_step(st, s, err)) == 1)
		row_read(s, out);
	store_stmt_finish(s);
	return rc;
}

static int version_read(struct store *st, int64_t *version, struct api_error *err)
{
	sqlite3_stmt *s = STMT(st, K_VERSION);
	int rc = store_step(st, s, err);

	*version = rc == 1 ? sqlite3_column_int64(s, 0) : -1;
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

static int keys_changed(struct store *st, int64_t known_version, int64_t now, struct key_rows *out,
                        bool *changed, struct api_error *err)
{
	int64_t version;

	*changed = false;
	if (version_read(st, &version, err) < 0)
		return -1;
	if (version == known_version)
		return 0;
	store_keys_rows_release(out);
	out->version = version;
	sqlite3_bind_int64(STMT(st, K_PUBLISHED), 1, now);
	if (rows_read(st, STMT(st, K_PUBLISHED), out, err) < 0) {
		store_keys_rows_release(out);
		return -1;
	}
	*changed = true;
	return 0;
}

static void sqlite_keys_changed(struct store *st, int64_t known_version, int64_t now,
                                struct key_rows *out, bool *changed, struct completion done)
{
	struct api_error err;

	complete(done, keys_changed(st, known_version, now, out, changed, &err), &err);
}

static int keys_list(struct store *st, struct key_rows *out, struct api_error *err)
{
	memset(out, 0, sizeof *out);
	if (rows_read(st, STMT(st, K_ALL), out, err) < 0) {
		store_keys_rows_release(out);
		return -1;
	}
	return 0;
}

/* Sets the bounds of alg's keys by the schedule and writes those that moved. */
static int bounds_write(struct store *st, enum jwt_alg alg, int64_t now, int64_t lifetime_ms,
                        struct api_error *err)
{
	struct key_rows all = { 0 };
	int rc = 0;

	store_bind_text(STMT(st, K_OF_ALG), 1, jwt_alg_name(alg));
	if (rows_read(st, STMT(st, K_OF_ALG), &all, err) < 0)
		return -1;
	key_schedule_bounds(all.rows, all.count, alg, now, lifetime_ms);
	for (size_t i = 0; i < all.count && rc == 0; i++) {
		sqlite3_stmt *s = STMT(st, K_SET_BOUND);

		store_bind_text(s, 1, all.rows[i].kid);
		if (all.rows[i].publish_until == KEY_NO_BOUND)
			sqlite3_bind_null(s, 2);
		else
			sqlite3_bind_int64(s, 2, all.rows[i].publish_until);
		rc = store_step_done(st, s, err);
		store_stmt_finish(s);
	}
	store_keys_rows_release(&all);
	return rc;
}

static int key_insert(struct store *st, const struct key_row *k, struct api_error *err)
{
	sqlite3_stmt *s = STMT(st, K_INSERT);
	int rc;

	store_bind_text(s, 1, k->kid);
	store_bind_text(s, 2, jwt_alg_name(k->alg));
	sqlite3_bind_blob(s, 3, k->sealed, (int)k->sealed_len, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, k->created_at);
	sqlite3_bind_int64(s, 5, k->activates_at);
	rc = store_step_done(st, s, err);
	store_stmt_finish(s);
	return rc;
}

/* How many keys of alg are published at now, by the schedule. -1 on error. */
static long published_count(struct store *st, enum jwt_alg alg, int64_t now, struct api_error *err)
{
	struct key_rows all = { 0 };
	long n;

	store_bind_text(STMT(st, K_OF_ALG), 1, jwt_alg_name(alg));
	if (rows_read(st, STMT(st, K_OF_ALG), &all, err) < 0)
		return -1;
	n = (long)key_schedule_count(all.rows, all.count, alg, now);
	store_keys_rows_release(&all);
	return n;
}

/* How many were added, or -1. */
static int keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                    int64_t lifetime_ms, struct api_error *err)
{
	int64_t now = now_ms();
	bool touched[JWT_ALG_COUNT] = { false };
	int added = 0;

	if (store_begin(st, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (if_alg_missing) {
			long have = published_count(st, rows[i].alg, now, err);

			if (have < 0)
				goto fail;
			if (have > 0)
				continue;
		}
		if (key_insert(st, &rows[i], err) < 0 ||
		    store_event_insert_own(st, (struct event){ NULL, NULL, EVENT_KEY_ROTATE, rows[i].kid,
		                                               NULL }, err) < 0)
			goto fail;
		touched[rows[i].alg] = true;
		added++;
	}
	for (int a = 0; a < JWT_ALG_COUNT; a++)
		if (touched[a] && bounds_write(st, (enum jwt_alg)a, now, lifetime_ms, err) < 0)
			goto fail;
	if (store_commit(st, err) < 0)
		return -1;
	return added;
fail:
	store_rollback(st);
	return -1;
}

static int key_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                      struct api_error *err)
{
	struct key_rows all;
	const struct key_row *k;
	sqlite3_stmt *s = STMT(st, K_RETIRE);
	int rc;

	if (keys_list(st, &all, err) < 0)
		return -1;
	rc = store_keys_retirement(&all, kid, now, &k, err);
	if (k) {
		store_bind_text(s, 1, kid);
		sqlite3_bind_int64(s, 2, now);
		rc = store_step_done(st, s, err);
		store_stmt_finish(s);
		if (rc == 0)
			rc = bounds_write(st, k->alg, now, lifetime_ms, err) < 0 ||
			     store_event_insert_own(st, (struct event){ NULL, NULL, EVENT_KEY_RETIRE, kid,
			                                                NULL }, err) < 0 ? -1 : 1;
	}
	store_keys_rows_release(&all);
	return rc;
}

/* 1 retired (or already was), 0 no such key, -1. */
static int key_retire_tx(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                         struct api_error *err)
{
	int rc;

	if (store_begin(st, err) < 0)
		return -1;
	rc = key_retire(st, kid, now, lifetime_ms, err);
	if (rc < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, err) < 0 ? -1 : rc;
}

static void sqlite_keys_list(struct store *st, struct key_rows *out, struct completion done)
{
	struct api_error err;

	complete(done, keys_list(st, out, &err), &err);
}

static void sqlite_keys_add(struct store *st, const struct key_row *rows, size_t n,
                            bool if_alg_missing, int64_t lifetime_ms, int *added,
                            struct completion done)
{
	struct api_error err;

	*added = keys_add(st, rows, n, if_alg_missing, lifetime_ms, &err);
	complete(done, *added, &err);
}

static void sqlite_keys_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                               bool *found, struct completion done)
{
	struct api_error err;
	int rc = key_retire_tx(st, kid, now, lifetime_ms, &err);

	*found = rc == 1;
	complete(done, rc, &err);
}

const struct store_keys_ops sqlite_keys_ops = {
	.changed = sqlite_keys_changed,
	.list = sqlite_keys_list,
	.add = sqlite_keys_add,
	.retire = sqlite_keys_retire,
};
