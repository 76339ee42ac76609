/*
 * Users on SQLite (store_users_ops, store_backend.h): the checks and
 * writes of create and update, the record by external ID, and what the
 * grants read of a user. The list and its search index are
 * sqlite_users_list.c. The unique indexes of
 * schema/001_init.sql are the last word on an external ID or email; a write
 * that breaks one is answered by probing which (store_step_write). Never
 * returns a password hash: no SELECT here reads one.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "sqlite_backend.h"
#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "sqlite_users_sql.h"
#include "store_users.h"
#include "util.h"

enum store_users_stmt {
	SU_USER_IN_PROJECT,
	SU_ROLE_IN_PROJECT,
	SU_EXTERNAL_ID_TAKEN,
	SU_EMAIL_CHANGES,
	SU_EMAIL_TAKEN,
	SU_INSERT,
	SU_UPDATE,
	SU_GET,
	SU_GET_EXTERNAL,
	SU_DELETE,
	SU_ROLE_PERMISSIONS,
	SU_ACTIVE,
	SU_SCOPE,
	SU_SIGNIN_USER,   /* what sign-in reads, at the end of the file */
	SU_BYOU_USER,
	SU__COUNT
};

static const char *const sql[SU__COUNT] = {
	[SU_USER_IN_PROJECT] = "SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2",
	[SU_ROLE_IN_PROJECT] = "SELECT 1 FROM roles WHERE id = ?1 AND project_id = ?2",
	/* ?3: the user being updated, who may keep their own values; NULL on create. */
	[SU_EXTERNAL_ID_TAKEN] =
		"SELECT 1 FROM users WHERE project_id = ?1 AND external_user_id = ?2"
		" AND (?3 IS NULL OR id <> ?3)",
	/* ?3: the email a write sets; a row when it is not the stored one. */
	[SU_EMAIL_CHANGES] =
		"SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2 AND email IS NOT ?3",
	[SU_EMAIL_TAKEN] =
		"SELECT 1 FROM users WHERE project_id = ?1 AND email = ?2 COLLATE NOCASE"
		" AND (?3 IS NULL OR id <> ?3)",
	[SU_INSERT] =
		"INSERT INTO users (id, project_id, display_name, avatar_url, external_user_id,"
		" email, password_hash, is_active, role_id, created_at, updated_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9, ?9)",
	/* Each optional field: a flag (the body had it) and the value (NULL clears). */
	[SU_UPDATE] =
		"UPDATE users SET display_name = ?3, is_active = coalesce(?4, is_active),"
		" avatar_url = CASE WHEN ?5 THEN ?6 ELSE avatar_url END,"
		" external_user_id = CASE WHEN ?7 THEN ?8 ELSE external_user_id END,"
		" email = CASE WHEN ?9 THEN ?10 ELSE email END,"
		/* docs/signin.md §"email_verified": set by an administrator, verified; changed by the
		 * user (?15), not; the same email sent back keeps what it was. */
		" email_verified = CASE WHEN NOT ?9 THEN email_verified WHEN NOT ?15 THEN 1"
		" WHEN email IS ?10 THEN email_verified ELSE 0 END,"
		" role_id = CASE WHEN ?11 THEN ?12 ELSE role_id END,"
		" password_hash = coalesce(?13, password_hash), updated_at = ?14"
		" WHERE id = ?1 AND project_id = ?2",
	[SU_GET] = "SELECT " USER_RECORD USER_FROM " WHERE u.id = ?1 AND u.project_id = ?2",
	[SU_GET_EXTERNAL] =
		"SELECT " USER_RECORD ", u.role_id" USER_FROM
		" WHERE u.project_id = ?1 AND u.external_user_id = ?2",
	/* As a JSON array. SQLite never flattens a subquery with ORDER BY into
	 * an aggregate, so the aggregate reads the rows sorted. */
	/* Before the row goes, schema 008's trigger ends the user's sessions
	 * (which revokes their sign-ins); then its sessions, codes and refresh
	 * tokens cascade, and its access tokens fail the bearer check, which
	 * finds no user. */
	[SU_DELETE] = "DELETE FROM users WHERE id = ?1",
	[SU_ROLE_PERMISSIONS] =
		"SELECT json_group_array(named) FROM (" SQL_TOKEN_PERMISSIONS(SQL_ROLE_PERMISSIONS) ")",
	[SU_ACTIVE] = "SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2 AND is_active",
	[SU_SCOPE] = SQL_TOKEN_PERMISSIONS(SQL_USER_PERMISSIONS),
	/* Sign-in's look-ups; columns as store_user_signin_read reads them. */
	[SU_SIGNIN_USER] =
		"SELECT id, is_active, password_hash FROM users"
		" WHERE project_id = ?1 AND email = ?2 COLLATE NOCASE",
	[SU_BYOU_USER] =
		"SELECT id, is_active, NULL FROM users WHERE project_id = ?1 AND external_user_id = ?2",
};
const struct stmt_set store_users_sql = { SU__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum store_users_stmt which)
{
	return sqlite_of(st)->users.stmt[which];
}

/* The value a field writes: its string when SET, else NULL. */
static const char *field_value(const struct str_field *f)
{
	return f->state == FIELD_SET ? f->value : NULL;
}

/* Runs a one-row look-up with up to three text parameters (a, b, c; the
 * statement decides how many it has). 1 a row, 0 none, -1 error. */
static int lookup(struct store *st, enum store_users_stmt which, const char *a, const char *b,
                  const char *c, struct api_error *err)
{
	return store_exists(st, stmt(st, which), a, b, c, err);
}

/* A create or update as its checks and statements read it. */
struct user_write {
	const char *project_id;
	const char *user_id;          /* the user updated; NULL on create */
	char *new_id;                 /* the user created (owned) */
	const struct user_fields *f;
	const char *scope;            /* the caller's, for no escalation */
	char **out;                   /* the record read back */
};

/* ---- the checks, in the order of docs/api.md §"Which error wins" ---- */

/* The records a write names: user_not_found, then role_not_found. */
static int check_references(struct store *st, const struct user_write *w, struct api_error *err)
{
	const struct user_fields *f = w->f;
	int found;

	if (w->user_id) {
		found = lookup(st, SU_USER_IN_PROJECT, w->user_id, w->project_id, NULL, err);
		if (found <= 0)
			return found < 0 ? -1 : api_fail(err, store_user_missing->code, "%s",
			                                  store_user_missing->sentence);
	}
	/* The foreign key would accept a role of another project: check the project. */
	if (f->role_id.state == FIELD_SET) {
		found = lookup(st, SU_ROLE_IN_PROJECT, f->role_id.value, w->project_id, NULL, err);
		if (found <= 0)
			return found < 0 ? -1 : api_fail(err, E_ROLE_NOT_FOUND, "%s",
			                                  store_user_role_missing);
	}
	return 0;
}

/* No escalation (store_grants.h): the caller may change the user (through
 * the role it has now) and give it the new role. And docs/signin.md §"Recent sign-in": a
 * locked email stays as it is. */
static int check_authority(struct store *st, const struct user_write *w, struct api_error *err)
{
	const struct user_fields *f = w->f;
	int changes;

	if (w->user_id &&
	    sqlite_grant_check_holder(st, w->scope, GRANT_HOLDER_USER, w->user_id, err) < 0)
		return -1;
	if (w->user_id && f->email_locked && f->email.state != FIELD_ABSENT) {
		changes = lookup(st, SU_EMAIL_CHANGES, w->user_id, w->project_id,
		                 field_value(&f->email), err);
		if (changes != 0)
			return changes < 0 ? -1 : api_fail(err, E_INSUFFICIENT_PERMISSION, "%s",
			                                    store_user_email_locked);
	}
	if (f->role_id.state == FIELD_SET)
		return sqlite_grant_check_holder(st, w->scope, GRANT_HOLDER_ROLE, f->role_id.value, err);
	return 0;
}

/* Whether another user of the project has the value v the write sets
 * (statement which looks it up): 1, 0, or -1 with err. */
static int taken(struct store *st, const struct user_write *w, enum store_users_stmt which,
                 const struct str_field *v, struct api_error *err)
{
	if (v->state != FIELD_SET)
		return 0;
	return lookup(st, which, w->project_id, v->value, w->user_id, err);
}

static int external_id_taken(struct store *st, void *arg, struct api_error *err)
{
	const struct user_write *w = arg;

	return taken(st, w, SU_EXTERNAL_ID_TAKEN, &w->f->external_user_id, err);
}

static int email_taken(struct store *st, void *arg, struct api_error *err)
{
	const struct user_write *w = arg;

	return taken(st, w, SU_EMAIL_TAKEN, &w->f->email, err);
}

/* The conflicts, external ID first: docs/api.md §"Which error wins" orders nothing between
 * the two, so we follow docs/api.md §"Errors". */
static const struct unique_rule conflicts[] = {
	{ external_id_taken, E_USER_EXTERNAL_ID_ALREADY_USED, store_user_external_id_used },
	{ email_taken, E_USER_EMAIL_ALREADY_USED, store_user_email_used },
};
#define N_CONFLICTS (sizeof conflicts / sizeof conflicts[0])

/* The checks before the write's statement; its conflicts are the unique
 * indexes', asked after it (store_step_write). */
static int check_write(struct store *st, const struct user_write *w, struct api_error *err)
{
	if (check_references(st, w, err) < 0)
		return -1;
	return check_authority(st, w, err);
}

static void sqlite_user_check(struct store *st, const char *project_id, const char *user_id,
                              const struct user_fields *f, const char *scope,
                              struct completion done)
{
	struct user_write w = { .project_id = project_id, .user_id = user_id, .f = f,
	                        .scope = scope };
	struct api_error err;
	int rc = check_write(st, &w, &err);

	for (size_t i = 0; rc == 0 && i < N_CONFLICTS; i++) {
		rc = conflicts[i].probe(st, &w, &err);
		if (rc > 0)
			rc = api_fail(&err, conflicts[i].code, "%s", conflicts[i].description);
	}
	complete(done, rc, &err);
}

/* ---- the writes ---- */

static int read_back(struct store *st, void *arg, struct api_error *err)
{
	struct user_write *w = arg;

	return store_read_record(st, stmt(st, SU_GET), w->user_id ? w->user_id : w->new_id,
	                         w->project_id, store_user_missing, w->out, err);
}

static int insert(struct store *st, void *arg, struct api_error *err)
{
	const struct user_write *w = arg;
	const struct user_fields *f = w->f;
	sqlite3_stmt *s = stmt(st, SU_INSERT);

	if (check_write(st, w, err) < 0)
		return -1;
	store_bind_text(s, 1, w->new_id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, f->display_name);
	store_bind_text(s, 4, field_value(&f->avatar_url));
	store_bind_text(s, 5, field_value(&f->external_user_id));
	store_bind_text(s, 6, field_value(&f->email));
	store_bind_text(s, 7, f->password_hash);
	store_bind_text(s, 8, field_value(&f->role_id));
	sqlite3_bind_int64(s, 9, now_ms());
	return store_step_write(st, s, conflicts, N_CONFLICTS, arg, err);
}

/* Binds an optional field of SU_UPDATE: a flag at idx (the body had it) and
 * the value at idx + 1 (NULL clears). */
static void bind_optional(sqlite3_stmt *s, int idx, const struct str_field *f)
{
	sqlite3_bind_int(s, idx, f->state != FIELD_ABSENT);
	store_bind_text(s, idx + 1, field_value(f));
}

static int update(struct store *st, void *arg, struct api_error *err)
{
	const struct user_write *w = arg;
	const struct user_fields *f = w->f;
	sqlite3_stmt *s = stmt(st, SU_UPDATE);

	if (check_write(st, w, err) < 0)
		return -1;
	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, f->display_name);
	if (f->is_active >= 0)
		sqlite3_bind_int(s, 4, f->is_active);
	else
		sqlite3_bind_null(s, 4);
	bind_optional(s, 5, &f->avatar_url);
	bind_optional(s, 7, &f->external_user_id);
	bind_optional(s, 9, &f->email);
	bind_optional(s, 11, &f->role_id);
	store_bind_text(s, 13, f->password_hash);
	sqlite3_bind_int64(s, 14, now_ms());
	sqlite3_bind_int(s, 15, f->email_by_user);
	return store_step_write(st, s, conflicts, N_CONFLICTS, arg, err);
}

/* Runs the write in its transaction, the record read back into *w->out
 * (NULL on failure). */
static int write_run(struct store *st,
                     int (*write)(struct store *st, void *arg, struct api_error *err),
                     struct user_write *w, const struct event *ev, struct api_error *err)
{
	*w->out = NULL;
	if (store_write_tx_event(st, write, read_back, w, ev, err) == 0)
		return 0;
	free(*w->out);   /* read back, then the commit failed */
	*w->out = NULL;
	return -1;
}

static void sqlite_user_create(struct store *st, const struct event_origin *by,
                               const char *project_id, const struct user_fields *f,
                               const char *scope, char **out, struct completion done)
{
	struct user_write w = { .project_id = project_id, .new_id = crypto_new_id(), .f = f,
	                        .scope = scope, .out = out };
	const struct event ev = { by, project_id, EVENT_USER_CREATE, w.new_id, NULL };
	struct api_error err;
	int rc = write_run(st, insert, &w, &ev, &err);

	free(w.new_id);
	complete(done, rc, &err);
}

static void sqlite_user_update(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *user_id,
                               const struct user_fields *f, const char *scope, char **out,
                               struct completion done)
{
	struct user_write w = { .project_id = project_id, .user_id = user_id, .f = f,
	                        .scope = scope, .out = out };
	const struct event ev = { by, project_id, EVENT_USER_UPDATE, user_id, NULL };
	struct api_error err;

	complete(done, write_run(st, update, &w, &ev, &err), &err);
}

/* ---- one user: by ID, and its delete ---- */

static void sqlite_user_get(struct store *st, const char *project_id, const char *user_id,
                            char **out, struct completion done)
{
	store_get_record(st, stmt(st, SU_GET), user_id, project_id, store_user_missing, out, done);
}

static void sqlite_user_remove(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *user_id, const char *scope,
                               struct completion done)
{
	const struct event ev = { by, project_id, EVENT_USER_DELETE, user_id, NULL };

	sqlite_grant_delete_holder(st, GRANT_HOLDER_USER, stmt(st, SU_USER_IN_PROJECT),
	                          stmt(st, SU_DELETE), store_user_missing, user_id, project_id,
	                          scope, &ev, done);
}

/* ---- the record by external ID ---- */

/* record (the text of a JSON object, len bytes) with "permissions": names
 * (the text of a JSON array) added last. Caller frees. */
static char *with_permissions(const char *record, size_t len, const char *names)
{
	static const char key[] = ",\"permissions\":";
	size_t n = strlen(names);
	char *out, *w;

	assert(len >= 2 && record[len - 1] == '}');   /* USER_RECORD's json_object */
	out = w = xmalloc(len + sizeof key + n);
	memcpy(w, record, len - 1);
	w += len - 1;
	memcpy(w, key, sizeof key - 1);
	w += sizeof key - 1;
	memcpy(w, names, n);
	w += n;
	memcpy(w, "}", 2);
	return out;
}

/* The role's permissions as a token carries them, as the text of a JSON
 * array (caller frees), or NULL with err. */
static char *role_permissions_read(struct store *st, const char *role_id, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SU_ROLE_PERMISSIONS);
	char *names = NULL;
	int rc;

	store_bind_text(s, 1, role_id);
	rc = store_step(st, s, err);
	if (rc == 1)
		names = xstrdup(store_column_text(s, 0));
	else if (rc == 0)   /* an aggregate has a row */
		store_fail(st, err, "role permissions");
	store_stmt_finish(s);
	return names;
}

/* The external-ID record of the row s stands on into *out, with its role's
 * permissions when asked. Those are cached per role and store state: on
 * this path their query was half the request. s still holds its read
 * transaction, so the stamp and the permissions are of the row's state.
 * 0, or -1 with err. */
static int external_record(struct store *st, sqlite3_stmt *s, bool permissions, char **out,
                           struct api_error *err)
{
	const char *record = store_column_text(s, 0), *role_id = store_column_text(s, 1);
	size_t len = (size_t)sqlite3_column_bytes(s, 0);
	struct store_stamp at;
	const char *cached;
	char *names;

	if (!permissions || !role_id) {
		*out = permissions ? with_permissions(record, len, "[]") : xstrndup(record, len);
		return 0;
	}
	if (!st->role_permissions)
		st->role_permissions = store_cache_new(METRICS_CACHE_ROLE_PERMISSIONS, free);
	at = store_stamp(st);
	cached = store_cache_get(st->role_permissions, role_id, at);
	if (cached) {
		*out = with_permissions(record, len, cached);
		return 0;
	}
	names = role_permissions_read(st, role_id, err);
	if (!names)
		return -1;
	*out = with_permissions(record, len, names);
	store_cache_put(st->role_permissions, role_id, at, names);
	return 0;
}

static void sqlite_user_get_external(struct store *st, const char *project_id,
                                     const char *external_user_id, bool with_permissions,
                                     char **out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SU_GET_EXTERNAL);
	struct api_error err;
	int rc;

	*out = NULL;
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, external_user_id);
	rc = store_step(st, s, &err);
	if (rc == 1)
		rc = external_record(st, s, with_permissions, out, &err);
	else if (rc == 0)
		rc = api_fail(&err, store_user_external_missing->code, "%s",
		              store_user_external_missing->sentence);
	store_stmt_finish(s);
	complete(done, rc, &err);
}

/* ---- what the grants read ---- */

static void sqlite_user_is_active(struct store *st, const char *project_id, const char *user_id,
                                  bool *active, struct completion done)
{
	struct api_error err;
	int rc = lookup(st, SU_ACTIVE, user_id, project_id, NULL, &err);

	*active = rc == 1;
	complete(done, rc, &err);
}

/* Read on every console page and grant, changed rarely: cached per store
 * state, as a client's scope is. */
static void sqlite_user_scope(struct store *st, const char *user_id, char **out,
                              struct completion done)
{
	struct api_error err;

	*out = store_join_column_cached(st, &st->user_scopes, METRICS_CACHE_USER_SCOPE,
	                                stmt(st, SU_SCOPE), user_id, store_read_stamp(st), &err);
	complete(done, *out ? 0 : -1, &err);
}

/* ---- what sign-in reads ----
 * The one read of a password hash in this file: sign-in's, which hands it
 * to the password check and nowhere else. */

/* Looks up the user of project_id by a second key (?2) with statement which. */
static void store_user_signin_read(struct store *st, enum store_users_stmt which,
                                   const char *project_id, const char *key,
                                   struct store_user_signin *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, which);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, key);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->found = true;
		out->user_id = store_column_dup(s, 0);
		out->is_active = sqlite3_column_int(s, 1) != 0;
		out->password_hash = store_column_dup(s, 2);
	}
	store_stmt_finish(s);
	complete(done, rc, &err);
}

static void sqlite_user_signin(struct store *st, const char *project_id, const char *email,
                               struct store_user_signin *out, struct completion done)
{
	store_user_signin_read(st, SU_SIGNIN_USER, project_id, email, out, done);
}

static void sqlite_user_byou(struct store *st, const char *project_id, const char *external_user_id,
                             struct store_user_signin *out, struct completion done)
{
	store_user_signin_read(st, SU_BYOU_USER, project_id, external_user_id, out, done);
}

const struct store_users_ops sqlite_users_ops = {
	.check = sqlite_user_check,
	.create = sqlite_user_create,
	.update = sqlite_user_update,
	.get = sqlite_user_get,
	.remove = sqlite_user_remove,
	.get_external = sqlite_user_get_external,
	.list = sqlite_user_list,
	.is_active = sqlite_user_is_active,
	.scope = sqlite_user_scope,
	.suffixes_move = sqlite_user_suffixes_move,
	.suffixes_backlog = sqlite_user_suffixes_backlog,
	.signin = sqlite_user_signin,
	.byou = sqlite_user_byou,
};
