/*
 * Second factors on SQLite (store_factors_ops, store_backend.h). A code is
 * accepted by an UPDATE that moves last_step forward, so that of two uses
 * of one code only one changes the row. Never reads or writes a secret in
 * the clear: the caller seals it.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_factors.h"
#include "store_users.h"
#include "util.h"

enum factor_stmt {
	SF_TOTP_GET,
	SF_TOTP_BEGIN,
	SF_TOTP_USE,
	SF_TOTP_REMOVE,
	SF_USER_IN_PROJECT,
	SF_REMOVE_ALL,
	SF_REMOVE_PASSKEYS,
	SF_END_SESSIONS,
	SF_RC_CLEAR,
	SF_RC_INSERT,
	SF_RC_USE,
	SF_RC_COUNT,
	SF__COUNT
};

static const char *const sql[SF__COUNT] = {
	[SF_TOTP_GET] =
		"SELECT secret, last_step, confirmed_at IS NOT NULL FROM user_factors"
		" WHERE user_id = ?1 AND kind = 'totp'",
	/* a confirmed factor stays: the account page removes it first */
	[SF_TOTP_BEGIN] =
		"INSERT INTO user_factors (user_id, kind, secret, created_at) VALUES (?1, 'totp', ?2, ?3)"
		" ON CONFLICT (user_id, kind) DO UPDATE SET secret = excluded.secret, last_step = 0,"
		" created_at = excluded.created_at WHERE confirmed_at IS NULL",
	[SF_TOTP_USE] =
		"UPDATE user_factors SET last_step = ?2,"
		" confirmed_at = CASE WHEN ?3 THEN ?4 ELSE confirmed_at END"
		" WHERE user_id = ?1 AND kind = 'totp' AND last_step < ?2"
		" AND (confirmed_at IS NULL) = (?3 <> 0)",
	[SF_TOTP_REMOVE] = "DELETE FROM user_factors WHERE user_id = ?1 AND kind = 'totp'",
	[SF_USER_IN_PROJECT] = "SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2",
	[SF_REMOVE_ALL] = "DELETE FROM user_factors WHERE user_id = ?1",
	[SF_REMOVE_PASSKEYS] = "DELETE FROM user_passkeys WHERE user_id = ?1",
	/* schema/008's triggers revoke what was signed in through them */
	[SF_END_SESSIONS] =
		"UPDATE sessions SET ended_at = ?2 WHERE user_id = ?1 AND ended_at IS NULL",
	/* recovery codes: new ones void the old; a use spends one once */
	[SF_RC_CLEAR] = "DELETE FROM recovery_codes WHERE user_id = ?1",
	[SF_RC_INSERT] =
		"INSERT OR IGNORE INTO recovery_codes (user_id, code_hash, created_at) VALUES (?1, ?2, ?3)",
	/* while as many are left as the sign-in's first step saw (one write at
	 * a time: of two codes used with one first step one wins) */
	[SF_RC_USE] =
		"UPDATE recovery_codes SET used_at = ?3"
		" WHERE user_id = ?1 AND code_hash = ?2 AND used_at IS NULL"
		" AND (SELECT count(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL) = ?4",
	[SF_RC_COUNT] = "SELECT count(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL",
};

const struct stmt_set store_factors_sql = { SF__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum factor_stmt which)
{
	return sqlite_of(st)->factors.stmt[which];
}

static int changed(struct store *st)
{
	return sqlite3_changes(sqlite_of(st)->db) > 0;
}

static void sqlite_totp_get(struct store *st, const char *user_id, struct store_totp_row *out,
                            struct completion done)
{
	sqlite3_stmt *s = stmt(st, SF_TOTP_GET);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, user_id);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->found = true;
		out->sealed = store_column_dup(s, 0);
		out->last_step = sqlite3_column_int64(s, 1);
		out->confirmed = sqlite3_column_int(s, 2) != 0;
	}
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

/* What a write of one user's factor works on, for store_write_tx. */
struct factor_write {
	const char *user_id;
	const char *sealed;
	int64_t step;
	bool confirm;
	bool *changed;
};

static int begin_write(struct store *st, void *arg, struct api_error *err)
{
	struct factor_write *w = arg;
	sqlite3_stmt *s = stmt(st, SF_TOTP_BEGIN);

	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->sealed);
	sqlite3_bind_int64(s, 3, now_ms());
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*w->changed = changed(st);
	return 0;
}

static void sqlite_totp_begin(struct store *st, const char *user_id, const char *sealed,
                              bool *begun, struct completion done)
{
	struct factor_write w = { .user_id = user_id, .sealed = sealed, .changed = begun };
	struct api_error err;
	int rc = store_write_tx(st, begin_write, NULL, &w, &err);

	if (rc < 0)
		*begun = false;
	complete(done, rc, &err);
}

/* The write of a use or a removal, then its event when it changed the row
 * (the event is this transaction's, or none). */
static int event_if_changed(struct store *st, const struct event *ev, bool changed_row,
                            struct api_error *err)
{
	return changed_row && ev ? store_event_insert(st, ev, err) : 0;
}

struct factor_change {
	struct factor_write w;
	const struct event *ev;
};

static int use_write(struct store *st, void *arg, struct api_error *err)
{
	struct factor_change *c = arg;
	sqlite3_stmt *s = stmt(st, SF_TOTP_USE);

	store_bind_text(s, 1, c->w.user_id);
	sqlite3_bind_int64(s, 2, c->w.step);
	sqlite3_bind_int(s, 3, c->w.confirm);
	sqlite3_bind_int64(s, 4, now_ms());
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*c->w.changed = changed(st);
	return event_if_changed(st, c->ev, *c->w.changed, err);
}

static int remove_write(struct store *st, void *arg, struct api_error *err)
{
	struct factor_change *c = arg;
	sqlite3_stmt *s = stmt(st, SF_TOTP_REMOVE);

	store_bind_text(s, 1, c->w.user_id);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*c->w.changed = changed(st);
	return event_if_changed(st, c->ev, *c->w.changed, err);
}

static void change_run(struct store *st, int (*write)(struct store *, void *, struct api_error *),
                       struct factor_change *c, struct completion done)
{
	struct api_error err;
	int rc;

	*c->w.changed = false;
	rc = store_write_tx(st, write, NULL, c, &err);
	if (rc < 0)
		*c->w.changed = false;   /* rolled back */
	complete(done, rc, &err);
}

static void sqlite_totp_use(struct store *st, const char *user_id, int64_t step, bool confirm,
                            const struct event *ev, bool *won, struct completion done)
{
	struct factor_change c = {
		{ .user_id = user_id, .step = step, .confirm = confirm, .changed = won }, ev,
	};

	change_run(st, use_write, &c, done);
}

static void sqlite_totp_remove(struct store *st, const char *user_id, const struct event *ev,
                               bool *removed, struct completion done)
{
	struct factor_change c = { { .user_id = user_id, .changed = removed }, ev };

	change_run(st, remove_write, &c, done);
}

/* What a reset works on, for store_write_tx_event. */
struct factor_reset {
	const char *project_id;
	const char *user_id;
	const char *scope;
};

static int reset_write(struct store *st, void *arg, struct api_error *err)
{
	const struct factor_reset *r = arg;
	sqlite3_stmt *s;
	int found = store_exists(st, stmt(st, SF_USER_IN_PROJECT), r->user_id, r->project_id, NULL,
	                         err);

	if (found <= 0)
		return found < 0 ? -1 : api_fail(err, store_user_missing->code, "%s",
		                                  store_user_missing->sentence);
	if (sqlite_grant_check_holder(st, r->scope, GRANT_HOLDER_USER, r->user_id, err) < 0)
		return -1;
	for (int which = SF_REMOVE_ALL; which <= SF_REMOVE_PASSKEYS; which++) {
		s = stmt(st, which);
		store_bind_text(s, 1, r->user_id);
		if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
			return -1;
	}
	s = stmt(st, SF_END_SESSIONS);
	store_bind_text(s, 1, r->user_id);
	sqlite3_bind_int64(s, 2, now_ms());
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static void sqlite_factors_reset(struct store *st, const struct event_origin *by,
                                 const char *project_id, const char *user_id, const char *scope,
                                 struct completion done)
{
	const struct factor_reset r = { project_id, user_id, scope };
	const struct event ev = { by, project_id, EVENT_USER_RESET_FACTORS, user_id, NULL };
	struct api_error err;

	complete(done, store_write_tx_event(st, reset_write, NULL, (void *)&r, &ev, &err), &err);
}

/* What a write of recovery codes works on, for store_write_tx. */
struct recovery_write {
	const char *user_id;
	const char *hashes;   /* set: space-separated; use: one */
	long long left;       /* use: the unused codes the first step saw */
	const struct event *ev;
	bool *won;
};

static int recovery_insert(struct store *st, const char *user_id, const char *hash, size_t len,
                           struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SF_RC_INSERT);

	store_bind_text(s, 1, user_id);
	sqlite3_bind_text(s, 2, hash, (int)len, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, now_ms());
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static int recovery_set_write(struct store *st, void *arg, struct api_error *err)
{
	const struct recovery_write *w = arg;
	sqlite3_stmt *s = stmt(st, SF_RC_CLEAR);
	const char *h = w->hashes;

	store_bind_text(s, 1, w->user_id);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	while (*h) {
		size_t len = strcspn(h, " ");
		if (len && recovery_insert(st, w->user_id, h, len, err) < 0)
			return -1;
		h += len + (h[len] == ' ');
	}
	return w->ev ? store_event_insert(st, w->ev, err) : 0;
}

static void sqlite_recovery_set(struct store *st, const char *user_id, const char *hashes,
                                const struct event *ev, struct completion done)
{
	struct recovery_write w = { user_id, hashes, 0, ev, NULL };
	struct api_error err;

	complete(done, store_write_tx(st, recovery_set_write, NULL, &w, &err), &err);
}

static int recovery_use_write(struct store *st, void *arg, struct api_error *err)
{
	const struct recovery_write *w = arg;
	sqlite3_stmt *s = stmt(st, SF_RC_USE);

	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->hashes);
	sqlite3_bind_int64(s, 3, now_ms());
	sqlite3_bind_int64(s, 4, w->left);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*w->won = changed(st);
	return event_if_changed(st, w->ev, *w->won, err);
}

static void sqlite_recovery_use(struct store *st, const char *user_id, const char *hash,
                                long long left, const struct event *ev, bool *won,
                                struct completion done)
{
	struct recovery_write w = { user_id, hash, left, ev, won };
	struct api_error err;
	int rc = store_write_tx(st, recovery_use_write, NULL, &w, &err);

	if (rc < 0)
		*won = false;   /* rolled back */
	complete(done, rc, &err);
}

static void sqlite_recovery_count(struct store *st, const char *user_id, long long *n,
                                  struct completion done)
{
	sqlite3_stmt *s = stmt(st, SF_RC_COUNT);
	struct api_error err;
	int rc;

	store_bind_text(s, 1, user_id);
	rc = store_step(st, s, &err);
	if (rc == 1)
		*n = sqlite3_column_int64(s, 0);
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

const struct store_factors_ops sqlite_factors_ops = {
	.totp_get = sqlite_totp_get,
	.totp_begin = sqlite_totp_begin,
	.totp_use = sqlite_totp_use,
	.totp_remove = sqlite_totp_remove,
	.reset = sqlite_factors_reset,
	.recovery_set = sqlite_recovery_set,
	.recovery_use = sqlite_recovery_use,
	.recovery_count = sqlite_recovery_count,
};
