/*
 * Signing keys on PostgreSQL (store_keys_ops, store_backend.h). What a request reads is one
 * statement: the key version and, when it moved, the published keys. The
 * writes (CLI, start) are blocking transactions under the table's lock.
 * Private keys stay sealed; bytea travels as hex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_keys.h"
#include "store_events.h"
#include "store_pg.h"
#include "util.h"

/* Every read of keys answers these columns: the key version (0 when not
 * read), then KEY_COLUMNS of store_keys.c (NULL kid: no row). */
#define KEY_COLUMNS "kid, alg, private_key, created_at, activates_at, publish_until, retired_at"

enum { PK_CHANGED, PK_ALL, PK_OF_ALG, PK_INSERT, PK_SET_BOUND, PK_RETIRE, PK_EVENT, PK__COUNT };

static const struct pg_statement statements[PK__COUNT] = {
	/* the version; the published keys at $1 only when it is not $2 */
	[PK_CHANGED] = { "keys_changed",
		"SELECT v.version, k.kid, k.alg, k.private_key, k.created_at, k.activates_at,"
		" k.publish_until, k.retired_at FROM signing_keys_version v LEFT JOIN signing_keys k"
		" ON v.version <> $2::bigint AND k.retired_at IS NULL"
		" AND (k.publish_until IS NULL OR k.publish_until > $1::bigint)"
		" WHERE v.id = 1 ORDER BY k.activates_at, k.created_at, k.alg, k.kid", 2, false },
	[PK_ALL] = { "keys_all", "SELECT 0, " KEY_COLUMNS " FROM signing_keys"
		" ORDER BY created_at, alg, kid", 0, false },
	[PK_OF_ALG] = { "keys_of_alg", "SELECT 0, " KEY_COLUMNS " FROM signing_keys WHERE alg = $1",
		1, false },
	[PK_INSERT] = { "keys_insert", "INSERT INTO signing_keys (kid, alg, private_key, created_at,"
		" activates_at) VALUES ($1, $2, $3, $4, $5)", 5, true },
	[PK_SET_BOUND] = { "keys_set_bound", "UPDATE signing_keys SET publish_until = $2::bigint"
		" WHERE kid = $1 AND publish_until IS DISTINCT FROM $2::bigint", 2, true },
	[PK_RETIRE] = { "keys_retire", "UPDATE signing_keys SET retired_at = $2"
		" WHERE kid = $1 AND retired_at IS NULL", 2, true },
	[PK_EVENT] = { "keys_event", "SELECT edgeauth_event($1) AS event", 1, true },
};

const struct pg_statement_set pg_keys_statements = { statements, PK__COUNT };

/* Every row of res into the struct key_rows out, its version too. */
static int rows_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct key_rows *rows = out;

	(void)how;
	(void)err;
	rows->version = PQntuples(res) ? pg_int(res, 0, 0) : -1;
	for (int i = 0; i < PQntuples(res); i++) {
		size_t len = 0;
		unsigned char *sealed;

		if (!pg_text(res, i, 1))
			continue;
		sealed = PQunescapeBytea((const unsigned char *)PQgetvalue(res, i, 3), &len);
		store_keys_rows_append(rows, pg_text(res, i, 1), pg_text(res, i, 2), sealed, len,
		                       pg_int(res, i, 4), pg_int(res, i, 5),
		                       pg_text(res, i, 6) ? pg_int(res, i, 6) : KEY_NO_BOUND,
		                       pg_text(res, i, 7) != NULL, pg_int(res, i, 7));
		if (sealed) {
			memset(sealed, 0, len);
			PQfreemem(sealed);
		}
	}
	return 0;
}

/* ---- what a request reads ---- */

struct keys_read {
	struct key_rows rows;
	int64_t known;
	struct key_rows *out;
	bool *changed;
	struct completion done;
};

static void keys_read_done(void *arg, const struct api_error *err)
{
	struct keys_read *r = arg;
	struct completion done = r->done;

	if (!err && r->rows.version != r->known) {
		store_keys_rows_release(r->out);
		*r->out = r->rows;
		*r->changed = true;
	} else {
		store_keys_rows_release(&r->rows);
	}
	free(r);
	complete(done, err ? -1 : 0, err);
}

static void pg_keys_changed(struct store *st, int64_t known_version, int64_t now,
                            struct key_rows *out, bool *changed, struct completion done)
{
	struct keys_read *r = xcalloc(1, sizeof *r);
	char at[24], known[24];

	*changed = false;
	r->known = known_version;
	r->out = out;
	r->changed = changed;
	r->done = done;
	pg_run(st, &statements[PK_CHANGED], (const char *const[]){ pg_int_param(now, at),
	       pg_int_param(known_version, known) }, rows_read, &r->rows, NULL,
	       (struct completion){ keys_read_done, r });
}

/* ---- the CLI's and the start's ---- */

static int keys_list(struct store *st, struct key_rows *out, struct api_error *err)
{
	memset(out, 0, sizeof *out);
	if (pg_run_sync(st, &statements[PK_ALL], NULL, rows_read, out, NULL, err) < 0) {
		store_keys_rows_release(out);
		return -1;
	}
	return 0;
}

/* Runs a write statement of the transaction. */
static int write(struct store *st, int which, const char *const *params, struct api_error *err)
{
	bool ignored;

	return pg_run_sync(st, &statements[which], params, pg_map_exists, &ignored, NULL, err);
}

/* The keys of alg, all of them, into out. */
static int rows_of_alg(struct store *st, enum jwt_alg alg, struct key_rows *out,
                       struct api_error *err)
{
	memset(out, 0, sizeof *out);
	return pg_run_sync(st, &statements[PK_OF_ALG], (const char *const[]){ jwt_alg_name(alg) },
	                   rows_read, out, NULL, err);
}

/* Sets the bounds of alg's keys by the schedule and writes those that moved. */
static int bounds_write(struct store *st, enum jwt_alg alg, int64_t now, int64_t lifetime_ms,
                        struct api_error *err)
{
	struct key_rows all;
	int rc = rows_of_alg(st, alg, &all, err);

	if (rc == 0)
		key_schedule_bounds(all.rows, all.count, alg, now, lifetime_ms);
	for (size_t i = 0; i < all.count && rc == 0; i++) {
		char bound[24];
		const struct key_row *k = &all.rows[i];

		rc = write(st, PK_SET_BOUND, (const char *const[]){ k->kid,
		           k->publish_until == KEY_NO_BOUND ? NULL
		                                            : pg_int_param(k->publish_until, bound) },
		           err);
	}
	store_keys_rows_release(&all);
	return rc;
}

static int key_insert(struct store *st, const struct key_row *k, struct api_error *err)
{
	char created[24], activates[24];
	size_t len = 0;
	char *hex = (char *)PQescapeByteaConn(pg_pool_blocking_conn(pg_of(st)->pg), k->sealed,
	                                      k->sealed_len, &len);
	int rc;

	if (!hex)
		return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	rc = write(st, PK_INSERT, (const char *const[]){ k->kid, jwt_alg_name(k->alg), hex,
	           pg_int_param(k->created_at, created), pg_int_param(k->activates_at, activates) },
	           err);
	PQfreemem(hex);
	return rc;
}

/* A key write's transaction: the table's lock makes two CLI commands, or
 * a command and a node's start, take turns. */
static int begin(struct store *st, struct api_error *err)
{
	return pg_tx_begin(st, "LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE", err);
}

/* The event of a key write, by the store's own origin (the CLI's; none at
 * a node's start), in the write's transaction. */
static int key_event(struct store *st, const char *action, const char *kid, struct api_error *err)
{
	char *ev = pg_event_json(&(struct event){ st->events_origin, NULL, action, kid, NULL });
	int rc = ev ? write(st, PK_EVENT, (const char *const[]){ ev }, err) : 0;

	free(ev);
	return rc;
}

/* Whether alg has a key published at now. */
static int has_published(struct store *st, enum jwt_alg alg, int64_t now, struct api_error *err)
{
	struct key_rows all;
	int rc = rows_of_alg(st, alg, &all, err);

	if (rc == 0)
		rc = key_schedule_count(all.rows, all.count, alg, now) > 0;
	store_keys_rows_release(&all);
	return rc;
}

static int keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                    int64_t lifetime_ms, struct api_error *err)
{
	int64_t now = now_ms();
	bool touched[JWT_ALG_COUNT] = { false };
	int added = 0, rc = begin(st, err);

	for (size_t i = 0; i < n && rc == 0; i++) {
		int have = if_alg_missing ? has_published(st, rows[i].alg, now, err) : 0;

		if (have != 0) {
			rc = have < 0 ? -1 : 0;
			continue;
		}
		rc = key_insert(st, &rows[i], err);
		if (rc == 0)
			rc = key_event(st, EVENT_KEY_ROTATE, rows[i].kid, err);
		touched[rows[i].alg] = true;
		added++;
	}
	for (int a = 0; a < JWT_ALG_COUNT && rc == 0; a++)
		if (touched[a])
			rc = bounds_write(st, (enum jwt_alg)a, now, lifetime_ms, err);
	return pg_tx_end(st, rc < 0 ? -1 : added, err);
}

static int retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                  struct api_error *err)
{
	struct key_rows all;
	const struct key_row *k;
	char at[24];
	int rc;

	if (keys_list(st, &all, err) < 0)
		return -1;
	rc = store_keys_retirement(&all, kid, now, &k, err);
	if (k && (write(st, PK_RETIRE, (const char *const[]){ kid, pg_int_param(now, at) },
	                err) < 0 || bounds_write(st, k->alg, now, lifetime_ms, err) < 0 ||
	                key_event(st, EVENT_KEY_RETIRE, kid, err) < 0))
		rc = -1;
	store_keys_rows_release(&all);
	return rc;
}

static int key_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                      struct api_error *err)
{
	int rc = begin(st, err);

	return pg_tx_end(st, rc < 0 ? -1 : retire(st, kid, now, lifetime_ms, err), err);
}

static void pg_keys_list(struct store *st, struct key_rows *out, struct completion done)
{
	struct api_error err;

	complete(done, keys_list(st, out, &err), &err);
}

/* The writes are blocking transactions (pg_tx_begin): each completes
 * before it returns. */
static void pg_keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                        int64_t lifetime_ms, int *added, struct completion done)
{
	struct api_error err;

	*added = keys_add(st, rows, n, if_alg_missing, lifetime_ms, &err);
	complete(done, *added, &err);
}

static void pg_keys_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                           bool *found, struct completion done)
{
	struct api_error err;
	int rc = key_retire(st, kid, now, lifetime_ms, &err);

	*found = rc == 1;
	complete(done, rc, &err);
}

const struct store_keys_ops pg_keys_ops = {
	.changed = pg_keys_changed,
	.list = pg_keys_list,
	.add = pg_keys_add,
	.retire = pg_keys_retire,
};
