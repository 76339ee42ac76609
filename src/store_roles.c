/*
 * Roles in the store. Every write checks its references and the code's
 * uniqueness inside one BEGIN IMMEDIATE transaction, in CONTRACT.md §3's
 * order, and rolls back on every failure. Statements are prepared at open
 * (store_roles_sql); nothing here prepares on a request.
 */
#include <stdio.h>
#include <stdlib.h>

#include "crypto.h"
#include "store_grants.h"
#include "store_roles.h"
#include "util.h"

enum role_stmt {
	RS_FIND,
	RS_CODE_TAKEN,
	RS_INSERT,
	RS_UPDATE,
	RS_PERMS_CLEAR,
	RS_PERM_ADD,
	RS_GET,
	RS_COUNT,
	RS_LIST,   /* RS_LIST + 2 * sort + desc: one statement per sort order */
	RS__COUNT = RS_LIST + 2 * ROLE_SORT__COUNT
};

/* The record's columns, over a table aliased r; permission_ids as a JSON
 * array sorted by ID (SQLite 3.40 has no ORDER BY inside an aggregate, so
 * the ordered subquery feeds json_group_array). */
#define ROLE_COLS \
	"r.id, r.code, r.name, r.description, r.created_at, r.updated_at," \
	" (SELECT json_group_array(permission_id) FROM (SELECT permission_id" \
	" FROM role_permissions WHERE role_id = r.id ORDER BY permission_id))"

/* ?1 project, ?2 LIKE pattern or NULL: CONTRACT.md §3 search over code,
 * name and description, with % and _ literal (like_pattern escapes them). */
#define ROLE_FILTER \
	"r.project_id = ?1 AND (?2 IS NULL OR r.code LIKE ?2 ESCAPE '\\'" \
	" OR r.name LIKE ?2 ESCAPE '\\' OR r.description LIKE ?2 ESCAPE '\\')"

/* The page is chosen first (LIMIT ?3 OFFSET ?4), then only its rows get
 * their permission_ids: one statement, no query per row. Ties are broken
 * by id in the same direction, so pages never overlap or skip. */
#define ROLE_LIST(order) \
	"WITH page AS MATERIALIZED (SELECT * FROM roles r WHERE " ROLE_FILTER \
	" ORDER BY " order " LIMIT ?3 OFFSET ?4)" \
	" SELECT " ROLE_COLS " FROM page r ORDER BY " order

#define ORDER(key, dir) key " " dir ", r.id " dir
#define LIST_AT(sort, desc) [RS_LIST + 2 * (sort) + (desc)]

static const char *const sql[RS__COUNT] = {
	[RS_FIND] = "SELECT 1 FROM roles WHERE id = ?1 AND project_id = ?2",
	/* ?3: the role being updated, or NULL on create */
	[RS_CODE_TAKEN] = "SELECT 1 FROM roles WHERE project_id = ?1 AND code = ?2 AND id IS NOT ?3",
	[RS_INSERT] =
		"INSERT INTO roles (id, project_id, code, name, description, created_at, updated_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
	/* ?6 true: keep the stored description */
	[RS_UPDATE] =
		"UPDATE roles SET code = ?3, name = ?4,"
		" description = CASE WHEN ?6 THEN description ELSE ?5 END, updated_at = ?7"
		" WHERE id = ?1 AND project_id = ?2",
	[RS_PERMS_CLEAR] = "DELETE FROM role_permissions WHERE role_id = ?1",
	[RS_PERM_ADD] =
		"INSERT OR IGNORE INTO role_permissions (role_id, permission_id) VALUES (?1, ?2)",
	[RS_GET] = "SELECT " ROLE_COLS " FROM roles r WHERE r.id = ?1",
	[RS_COUNT] = "SELECT count(*) FROM roles r WHERE " ROLE_FILTER,
	LIST_AT(ROLE_SORT_CREATED_AT, 0) = ROLE_LIST(ORDER("r.created_at", "ASC")),
	LIST_AT(ROLE_SORT_CREATED_AT, 1) = ROLE_LIST(ORDER("r.created_at", "DESC")),
	LIST_AT(ROLE_SORT_UPDATED_AT, 0) = ROLE_LIST(ORDER("r.updated_at", "ASC")),
	LIST_AT(ROLE_SORT_UPDATED_AT, 1) = ROLE_LIST(ORDER("r.updated_at", "DESC")),
	LIST_AT(ROLE_SORT_NAME, 0) = ROLE_LIST(ORDER("r.name COLLATE NOCASE", "ASC")),
	LIST_AT(ROLE_SORT_NAME, 1) = ROLE_LIST(ORDER("r.name COLLATE NOCASE", "DESC")),
	LIST_AT(ROLE_SORT_CODE, 0) = ROLE_LIST(ORDER("r.code COLLATE NOCASE", "ASC")),
	LIST_AT(ROLE_SORT_CODE, 1) = ROLE_LIST(ORDER("r.code COLLATE NOCASE", "DESC")),
};

const struct stmt_set store_roles_sql = { RS__COUNT, sql, NULL };

static int system_error(struct api_error *err)
{
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

/* The record of the row s is on (ROLE_COLS), or NULL if it cannot be built. */
static json_t *role_from_row(sqlite3_stmt *s)
{
	const char *ids = store_column_text(s, 6);
	json_t *perms = ids ? json_loads(ids, 0, NULL) : NULL;

	if (!json_is_array(perms)) {
		json_decref(perms);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	                 "id", json_string_or_null(store_column_text(s, 0)),
	                 "code", json_string_or_null(store_column_text(s, 1)),
	                 "name", json_string_or_null(store_column_text(s, 2)),
	                 "description", json_string_or_null(store_column_text(s, 3)),
	                 "permission_ids", perms,
	                 "created_at", json_timestamp(sqlite3_column_int64(s, 4)),
	                 "updated_at", json_timestamp(sqlite3_column_int64(s, 5)));
}

/* The record of role id, read inside the caller's transaction. */
static json_t *role_get(struct store *st, const char *id, struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_GET];
	json_t *rec = NULL;
	int rc;

	store_bind_text(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rec = role_from_row(s);
	if (!rec) {
		if (rc == SQLITE_ROW || rc == SQLITE_DONE)
			system_error(err);
		else
			store_fail(st, err, "role get");
	}
	store_stmt_finish(s);
	return rec;
}

/* 0 when the role is in the project, else -1 with role_not_found. */
static int role_check_exists(struct store *st, const char *project_id, const char *id,
                             struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_FIND];
	int found;

	found = store_exists(st, s, id, project_id, NULL, err);
	if (found == 0)
		return api_fail(err, E_ROLE_NOT_FOUND, "The role does not exist.");
	return found < 0 ? -1 : 0;
}

/* 0 when no other role of the project (than self_id, may be NULL) has the
 * code, else -1 with role_code_already_used. */
static int role_check_code(struct store *st, const char *project_id, const char *code,
                           const char *self_id, struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_CODE_TAKEN];
	int taken;

	taken = store_exists(st, s, project_id, code, self_id, err);
	if (taken == 1)
		return api_fail(err, E_ROLE_CODE_ALREADY_USED,
		                "A role with this code already exists in the project.");
	return taken;
}

/* Once the role is known (CONTRACT.md §3): references, then the caller's
 * authority over what the role would be given and over the role itself
 * (self_id, on update), then conflicts. */
static int role_check_fields(struct store *st, const char *project_id,
                             const struct role_fields *f, const char *self_id,
                             const char *scope, struct api_error *err)
{
	if ((f->permission_ids && f->permission_ids->present &&
	     store_grant_check_ids(st, project_id, scope, f->permission_ids, err) < 0) ||
	    (self_id && store_grant_check_holder(st, scope, GRANT_HOLDER_ROLE, self_id, err) < 0))
		return -1;
	return role_check_code(st, project_id, f->code, self_id, err);
}

/* Steps an INSERT or UPDATE of a role. The code was checked in this
 * transaction, so a unique failure means a writer we did not expect: find
 * out which constraint by asking, never by parsing the message. */
static int role_write(struct store *st, sqlite3_stmt *s, const char *project_id,
                      const struct role_fields *f, const char *self_id,
                      struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE) {
		store_stmt_finish(s);
		return 0;
	}
	fprintf(stderr, "edgeauth: store: role write: %s\n", sqlite3_errmsg(st->db));
	store_stmt_finish(s);
	if (rc == SQLITE_CONSTRAINT_UNIQUE &&
	    role_check_code(st, project_id, f->code, self_id, err) < 0)
		return -1;
	return system_error(err);
}

/* Replaces the role's permission set with ids (on create: sets it). */
static int role_set_permissions(struct store *st, const char *role_id,
                                const struct id_list *ids, bool clear_first,
                                struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_PERMS_CLEAR];
	int rc = 0;

	if (clear_first) {
		store_bind_text(s, 1, role_id);
		rc = store_step_done(st, s, err);
		store_stmt_finish(s);
	}
	s = st->roles.stmt[RS_PERM_ADD];
	for (size_t i = 0; rc == 0 && i < ids->count; i++) {
		store_bind_text(s, 1, role_id);
		store_bind_text(s, 2, ids->ids[i]);
		rc = store_step_done(st, s, err);
		store_stmt_finish(s);
	}
	return rc;
}

static int role_insert(struct store *st, const char *project_id, const char *id,
                       const struct role_fields *f, struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_INSERT];

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->code);
	store_bind_text(s, 4, f->name);
	store_bind_text(s, 5, f->description.value);
	sqlite3_bind_int64(s, 6, now_ms());
	return role_write(st, s, project_id, f, NULL, err);
}

static int role_update_row(struct store *st, const char *project_id, const char *id,
                           const struct role_fields *f, struct api_error *err)
{
	sqlite3_stmt *s = st->roles.stmt[RS_UPDATE];

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->code);
	store_bind_text(s, 4, f->name);
	store_bind_text(s, 5, f->description.value);
	sqlite3_bind_int(s, 6, f->description.state == FIELD_ABSENT);
	sqlite3_bind_int64(s, 7, now_ms());
	return role_write(st, s, project_id, f, id, err);
}

/* Reads the record, commits; on any failure rolls back and returns NULL. */
static json_t *role_finish(struct store *st, const char *id, int rc, struct api_error *err)
{
	json_t *rec = rc == 0 ? role_get(st, id, err) : NULL;

	if (rec && store_commit(st, err) < 0) {
		json_decref(rec);
		rec = NULL;
	}
	if (!rec)
		store_rollback(st);
	return rec;
}

json_t *store_role_create(struct store *st, const char *project_id,
                          const struct role_fields *f, const char *scope,
                          struct api_error *err)
{
	static const struct id_list none = ID_LIST_INIT;
	const struct id_list *ids = f->permission_ids ? f->permission_ids : &none;
	char *id = crypto_new_id();
	json_t *rec = NULL;
	int rc;

	if (store_begin(st, err) == 0) {
		rc = role_check_fields(st, project_id, f, NULL, scope, err);
		if (rc == 0)
			rc = role_insert(st, project_id, id, f, err);
		if (rc == 0)
			rc = role_set_permissions(st, id, ids, false, err);
		rec = role_finish(st, id, rc, err);
	}
	free(id);
	return rec;
}

json_t *store_role_update(struct store *st, const char *project_id, const char *role_id,
                          const struct role_fields *f, const char *scope,
                          struct api_error *err)
{
	const struct id_list *ids = f->permission_ids;
	int rc;

	if (store_begin(st, err) < 0)
		return NULL;
	rc = role_check_exists(st, project_id, role_id, err);
	if (rc == 0)
		rc = role_check_fields(st, project_id, f, role_id, scope, err);
	if (rc == 0)
		rc = role_update_row(st, project_id, role_id, f, err);
	/* CONTRACT.md §3: an omitted permission_ids keeps the set; [] or null clears it. */
	if (rc == 0 && ids && ids->present)
		rc = role_set_permissions(st, role_id, ids, true, err);
	return role_finish(st, role_id, rc, err);
}

json_t *store_role_list(struct store *st, const char *project_id, const struct role_query *q,
                        long long *total, struct api_error *err)
{
	sqlite3_stmt *c = st->roles.stmt[RS_COUNT];
	sqlite3_stmt *s = st->roles.stmt[RS_LIST + 2 * q->sort + (q->desc ? 1 : 0)];
	json_t *data = NULL;
	int rc;

	store_bind_text(c, 1, project_id);
	store_bind_text(c, 2, q->like);
	if (sqlite3_step(c) != SQLITE_ROW) {
		store_fail(st, err, "role count");
		goto out;
	}
	*total = sqlite3_column_int64(c, 0);

	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, q->like);
	sqlite3_bind_int64(s, 3, q->limit);
	sqlite3_bind_int64(s, 4, q->offset);
	data = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *rec = role_from_row(s);
		if (!rec || json_array_append_new(data, rec) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		if (rc == -1)
			system_error(err);
		else
			store_fail(st, err, "role list");
		json_decref(data);
		data = NULL;
	}
out:
	store_stmt_finish(c);
	store_stmt_finish(s);
	return data;
}
