/*
 * Device authorizations on SQLite (store_device_ops, store_device.h). A
 * poll and a decision are each one conditional statement, so that two
 * nodes' or two requests' writes never both win.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_device.h"
#include "util.h"

enum device_stmt {
	DS_INSERT,
	DS_POLL,
	DS_FIND,
	DS_DECIDE,
	DS_ISSUED,
	DS__COUNT
};

/* The columns a row is read from, in device_read's order. */
#define DEVICE_COLUMNS \
	" device_hash, project_id, client_id, scope, created_at, expires_at, interval_s, slowed," \
	" address, state, user_id, session_id"

static const char *const sql[DS__COUNT] = {
	[DS_INSERT] =
		"INSERT INTO device_authorizations (device_hash, user_code_hash, project_id, client_id,"
		" scope, created_at, expires_at, interval_s, address)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	/* RFC 8628 §3.5: while pending, a poll sooner than the interval after
	 * the last is slow_down and adds 5 s; the right-hand sides read the
	 * row as it was */
	[DS_POLL] =
		"UPDATE device_authorizations SET last_poll_at = ?2,"
		" slowed = (state = 'pending' AND last_poll_at IS NOT NULL"
		"           AND ?2 - last_poll_at < interval_s * 1000),"
		" interval_s = interval_s + CASE WHEN state = 'pending' AND last_poll_at IS NOT NULL"
		"           AND ?2 - last_poll_at < interval_s * 1000 THEN 5 ELSE 0 END"
		" WHERE device_hash = ?1 RETURNING" DEVICE_COLUMNS,
	[DS_FIND] =
		"SELECT" DEVICE_COLUMNS " FROM device_authorizations"
		" WHERE user_code_hash = ?1 AND expires_at > ?2",
	[DS_DECIDE] =
		"UPDATE device_authorizations SET state = iif(?2, 'approved', 'denied'), user_id = ?3,"
		" session_id = ?4, decided_at = ?5"
		" WHERE user_code_hash = ?1 AND state = 'pending' AND expires_at > ?5",
	[DS_ISSUED] =
		("UPDATE device_authorizations SET state = 'issued'"
		 " WHERE device_hash = ?1 AND state = 'approved'"),
};

const struct stmt_set store_device_sql = { DS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum device_stmt which)
{
	return sqlite_of(st)->device.stmt[which];
}

/* Steps s (bound) into *out. 0, or -1 with err. */
static int device_read(struct store *st, sqlite3_stmt *s, struct device_row *out,
                       struct api_error *err)
{
	int rc;

	memset(out, 0, sizeof *out);
	rc = store_step(st, s, err);
	if (rc == 1) {
		out->found = true;
		out->device_hash = store_column_dup(s, 0);
		out->project_id = store_column_dup(s, 1);
		out->client_id = store_column_dup(s, 2);
		out->scope = store_column_dup(s, 3);
		out->created_at = sqlite3_column_int64(s, 4);
		out->expires_at = sqlite3_column_int64(s, 5);
		out->interval_s = sqlite3_column_int(s, 6);
		out->slowed = sqlite3_column_int(s, 7) != 0;
		out->address = store_column_dup(s, 8);
		out->state = store_device_state_of(store_column_text(s, 9));
		out->user_id = store_column_dup(s, 10);
		out->session_id = store_column_dup(s, 11);
	}
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

static int insert_write(struct store *st, void *arg, struct api_error *err)
{
	const struct new_device *d = arg;
	sqlite3_stmt *s = stmt(st, DS_INSERT);

	store_bind_text(s, 1, d->device_hash);
	store_bind_text(s, 2, d->user_code_hash);
	store_bind_text(s, 3, d->project_id);
	store_bind_text(s, 4, d->client_id);
	store_bind_text(s, 5, d->scope);
	sqlite3_bind_int64(s, 6, d->created_at);
	sqlite3_bind_int64(s, 7, d->expires_at);
	sqlite3_bind_int(s, 8, d->interval_s);
	store_bind_text(s, 9, d->address);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return store_event_insert(st, d->ev, err);
}

static void sqlite_device_insert(struct store *st, const struct new_device *d,
                                 struct completion done)
{
	struct api_error err;

	complete(done, store_write_tx(st, insert_write, NULL, (void *)d, &err), &err);
}

/* What a poll works on, for store_write_tx. */
struct device_poll {
	const char *device_hash;
	int64_t now;
	struct device_row *out;
};

static int poll_write(struct store *st, void *arg, struct api_error *err)
{
	struct device_poll *p = arg;
	sqlite3_stmt *s = stmt(st, DS_POLL);

	store_bind_text(s, 1, p->device_hash);
	sqlite3_bind_int64(s, 2, p->now);
	return device_read(st, s, p->out, err);
}

static void sqlite_device_poll(struct store *st, const char *device_hash, int64_t now,
                               struct device_row *out, struct completion done)
{
	struct device_poll p = { device_hash, now, out };
	struct api_error err;
	int rc = store_write_tx(st, poll_write, NULL, &p, &err);

	if (rc < 0)
		device_row_release(out);   /* rolled back */
	complete(done, rc, &err);
}

static void sqlite_device_find(struct store *st, const char *user_code_hash, int64_t now,
                               struct device_row *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, DS_FIND);
	struct api_error err;

	store_bind_text(s, 1, user_code_hash);
	sqlite3_bind_int64(s, 2, now);
	complete(done, device_read(st, s, out, &err), &err);
}

/* What a decision works on, for store_write_tx. */
struct device_decision {
	const char *user_code_hash;
	bool approve;
	const char *user_id;
	const char *session_id;
	int64_t now;
	const struct event *ev;
	bool *won;
};

static int decide_write(struct store *st, void *arg, struct api_error *err)
{
	struct device_decision *d = arg;
	sqlite3_stmt *s = stmt(st, DS_DECIDE);

	store_bind_text(s, 1, d->user_code_hash);
	sqlite3_bind_int(s, 2, d->approve);
	store_bind_text(s, 3, d->user_id);
	store_bind_text(s, 4, d->session_id);
	sqlite3_bind_int64(s, 5, d->now);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*d->won = sqlite3_changes(sqlite_of(st)->db) > 0;
	return *d->won && d->ev ? store_event_insert(st, d->ev, err) : 0;
}

static void sqlite_device_decide(struct store *st, const char *user_code_hash, bool approve,
                                 const char *user_id, const char *session_id, int64_t now,
                                 const struct event *ev, bool *won, struct completion done)
{
	struct device_decision d = { user_code_hash, approve, user_id, session_id, now, ev, won };
	struct api_error err;
	int rc;

	*won = false;
	rc = store_write_tx(st, decide_write, NULL, &d, &err);
	if (rc < 0)
		*won = false;   /* rolled back */
	complete(done, rc, &err);
}

/* What an issue works on, for store_write_tx. */
struct device_issue {
	const char *device_hash;
	const struct event *ev;
};

static int issued_write(struct store *st, void *arg, struct api_error *err)
{
	struct device_issue *d = arg;
	sqlite3_stmt *s = stmt(st, DS_ISSUED);

	store_bind_text(s, 1, d->device_hash);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return sqlite3_changes(sqlite_of(st)->db) > 0 ? store_event_insert(st, d->ev, err) : 0;
}

static void sqlite_device_issued(struct store *st, const char *device_hash,
                                 const struct event *ev, struct completion done)
{
	struct device_issue d = { device_hash, ev };
	struct api_error err;

	complete(done, store_write_tx(st, issued_write, NULL, &d, &err), &err);
}

const struct store_device_ops sqlite_device_ops = {
	.insert = sqlite_device_insert,
	.poll = sqlite_device_poll,
	.find = sqlite_device_find,
	.decide = sqlite_device_decide,
	.issued = sqlite_device_issued,
};
