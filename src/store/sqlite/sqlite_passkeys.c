/*
 * Passkeys on SQLite (store_passkeys_ops, store_backend.h). A use moves
 * sign_count by an UPDATE conditioned on the count the verifier read, so
 * that of two uses of one assertion only one changes the row.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_passkeys.h"
#include "util.h"

enum passkey_stmt {
	SP_ADD,
	SP_LIST,
	SP_FIND,
	SP_USE,
	SP_REMOVE,
	SP_SIGNIN,
	SP__COUNT
};

#define PASSKEY_COLUMNS \
	"id, user_id, credential_id, public_key, alg, sign_count, backup_eligible, name," \
	" created_at, coalesce(last_used_at, 0)"
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *const sql[SP__COUNT] = {
	/* a credential registered already (to anyone), or a user at the bound: no row */
	[SP_ADD] =
		"INSERT INTO user_passkeys (id, user_id, credential_id, public_key, alg, sign_count,"
		" backup_eligible, name, created_at)"
		" SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9"
		" WHERE (SELECT count(*) FROM user_passkeys WHERE user_id = ?2) < "
		STR(PASSKEYS_PER_USER_MAX)
		" ON CONFLICT (credential_id) DO NOTHING",
	[SP_LIST] = "SELECT " PASSKEY_COLUMNS " FROM user_passkeys WHERE user_id = ?1"
		" ORDER BY created_at, id",
	[SP_FIND] = "SELECT " PASSKEY_COLUMNS " FROM user_passkeys WHERE credential_id = ?1",
	[SP_USE] = ("UPDATE user_passkeys SET sign_count = ?3,"
		" last_used_at = max(?4, coalesce(last_used_at, 0) + 1)"
		" WHERE id = ?1 AND sign_count = ?2 AND coalesce(last_used_at, 0) = ?5"),
	[SP_REMOVE] = "DELETE FROM user_passkeys WHERE user_id = ?1 AND id = ?2",
	/* one row per passkey (one with NULLs without), each with the TOTP
	 * factor and the count of unused recovery codes */
	[SP_SIGNIN] =
		"SELECT f.secret, f.last_step, f.confirmed_at IS NOT NULL,"
		" (SELECT count(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL),"
		" (SELECT r.requires_second_factor FROM users u JOIN roles r ON r.id = u.role_id"
		" WHERE u.id = ?1), p.*"
		" FROM (SELECT 1) LEFT JOIN user_factors f ON f.user_id = ?1 AND f.kind = 'totp'"
		" LEFT JOIN (SELECT " PASSKEY_COLUMNS " FROM user_passkeys WHERE user_id = ?1) p ON 1"
		" ORDER BY p.created_at, p.id",
};

const struct stmt_set store_passkeys_sql = { SP__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum passkey_stmt which)
{
	return sqlite_of(st)->passkeys.stmt[which];
}

/* The row s is at, in PASSKEY_COLUMNS' order from column c. */
static void read_row(sqlite3_stmt *s, int c, struct store_passkey *p)
{
	p->id = store_column_dup(s, c);
	p->user_id = store_column_dup(s, c + 1);
	p->credential_id = store_column_dup(s, c + 2);
	p->public_key = store_column_dup(s, c + 3);
	p->alg = sqlite3_column_int(s, c + 4);
	p->sign_count = sqlite3_column_int64(s, c + 5);
	p->backup_eligible = sqlite3_column_int(s, c + 6) != 0;
	p->name = store_column_dup(s, c + 7);
	p->created_at = sqlite3_column_int64(s, c + 8);
	p->last_used_at = sqlite3_column_int64(s, c + 9);
}

/* Appends the passkey of the row s is at, from column c. */
static void list_add(sqlite3_stmt *s, int c, struct store_passkey_list *l)
{
	l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	memset(&l->items[l->n], 0, sizeof *l->items);
	read_row(s, c, &l->items[l->n++]);
}

/* What a write works on, for store_write_tx. */
struct passkey_write {
	const struct store_passkey *p;
	const char *user_id, *id;
	int64_t old_count, old_used_at, new_count;
	const struct event *ev;
	bool *changed;
};

/* Steps the write s, sets *w->changed, and records the event when it did. */
static int write_and_record(struct store *st, sqlite3_stmt *s, struct passkey_write *w,
                            struct api_error *err)
{
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	*w->changed = sqlite3_changes(sqlite_of(st)->db) > 0;
	return *w->changed && w->ev ? store_event_insert(st, w->ev, err) : 0;
}

static int add_write(struct store *st, void *arg, struct api_error *err)
{
	struct passkey_write *w = arg;
	const struct store_passkey *p = w->p;
	sqlite3_stmt *s = stmt(st, SP_ADD);

	store_bind_text(s, 1, p->id);
	store_bind_text(s, 2, p->user_id);
	store_bind_text(s, 3, p->credential_id);
	store_bind_text(s, 4, p->public_key);
	sqlite3_bind_int(s, 5, p->alg);
	sqlite3_bind_int64(s, 6, p->sign_count);
	sqlite3_bind_int(s, 7, p->backup_eligible);
	store_bind_text(s, 8, p->name);
	sqlite3_bind_int64(s, 9, now_ms());
	return write_and_record(st, s, w, err);
}

static int use_write(struct store *st, void *arg, struct api_error *err)
{
	struct passkey_write *w = arg;
	sqlite3_stmt *s = stmt(st, SP_USE);

	store_bind_text(s, 1, w->id);
	sqlite3_bind_int64(s, 2, w->old_count);
	sqlite3_bind_int64(s, 3, w->new_count);
	sqlite3_bind_int64(s, 4, now_ms());
	sqlite3_bind_int64(s, 5, w->old_used_at);
	return write_and_record(st, s, w, err);
}

static int remove_write(struct store *st, void *arg, struct api_error *err)
{
	struct passkey_write *w = arg;
	sqlite3_stmt *s = stmt(st, SP_REMOVE);

	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->id);
	return write_and_record(st, s, w, err);
}

static void write_run(struct store *st, int (*write)(struct store *, void *, struct api_error *),
                      struct passkey_write *w, struct completion done)
{
	struct api_error err;
	int rc;

	*w->changed = false;
	rc = store_write_tx(st, write, NULL, w, &err);
	if (rc < 0)
		*w->changed = false;   /* rolled back */
	complete(done, rc, &err);
}

static void sqlite_passkey_add(struct store *st, const struct store_passkey *p,
                               const struct event *ev, bool *added, struct completion done)
{
	struct passkey_write w = { .p = p, .ev = ev, .changed = added };

	write_run(st, add_write, &w, done);
}

static void sqlite_passkey_use(struct store *st, const char *id, int64_t old_count,
                               int64_t old_used_at, int64_t new_count, const struct event *ev,
                               bool *won, struct completion done)
{
	struct passkey_write w = { .id = id, .old_count = old_count, .old_used_at = old_used_at,
		                   .new_count = new_count, .ev = ev, .changed = won };

	write_run(st, use_write, &w, done);
}

static void sqlite_passkey_remove(struct store *st, const char *user_id, const char *id,
                                  const struct event *ev, bool *removed, struct completion done)
{
	struct passkey_write w = { .user_id = user_id, .id = id, .ev = ev, .changed = removed };

	write_run(st, remove_write, &w, done);
}

static void sqlite_passkey_list(struct store *st, const char *user_id,
                                struct store_passkey_list *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SP_LIST);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, user_id);
	while ((rc = store_step(st, s, &err)) == 1)
		list_add(s, 0, out);
	store_stmt_finish(s);
	if (rc < 0)
		store_passkey_list_release(out);
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_signin_get(struct store *st, const char *user_id,
                              struct store_signin_factors *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SP_SIGNIN);
	struct api_error err;
	int rc;

	store_bind_text(s, 1, user_id);
	while ((rc = store_step(st, s, &err)) == 1) {
		if (!out->totp.found && sqlite3_column_type(s, 0) != SQLITE_NULL) {
			out->totp.found = true;
			out->totp.sealed = store_column_dup(s, 0);
			out->totp.last_step = sqlite3_column_int64(s, 1);
			out->totp.confirmed = sqlite3_column_int(s, 2) != 0;
		}
		out->recovery_left = sqlite3_column_int64(s, 3);
		out->second_factor_required = sqlite3_column_int(s, 4) != 0;
		if (sqlite3_column_type(s, 5) != SQLITE_NULL)
			list_add(s, 5, &out->passkeys);
	}
	store_stmt_finish(s);
	if (rc < 0)
		store_signin_factors_release(out);
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_passkey_find(struct store *st, const char *credential_id,
                                struct store_passkey *out, bool *found, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SP_FIND);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, credential_id);
	rc = store_step(st, s, &err);
	*found = rc == 1;
	if (rc == 1)
		read_row(s, 0, out);
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

const struct store_passkeys_ops sqlite_passkeys_ops = {
	.add = sqlite_passkey_add,
	.list = sqlite_passkey_list,
	.signin_get = sqlite_signin_get,
	.find = sqlite_passkey_find,
	.use = sqlite_passkey_use,
	.remove = sqlite_passkey_remove,
};
