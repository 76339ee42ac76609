/*
 * Roles on SQLite (store_roles_ops, store_backend.h). Every write is one transaction (store_write_tx) that
 * checks its references and the caller's authority in the order of docs/api.md
 * §"Which error wins", writes, and reads the record back; a taken code is the write's own
 * UNIQUE failure. Statements are prepared at open (store_roles_sql).
 */
#include <assert.h>
#include <stdlib.h>

#include "crypto.h"
#include "sqlite_backend.h"
#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
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
	RS_DELETE,
	RS_LIST,   /* RS_LIST + 2 * sort + desc: one statement per sort order */
	RS__COUNT = RS_LIST + 2 * ROLE_SORT__COUNT
};

/* The record of the roles row r (docs/api.md §"Records"), the one definition that
 * every read uses: the read back of a write and the list pages.
 * permission_ids is sorted by ID: the ordered subquery feeds
 * json_group_array (SQLite 3.40 has no ORDER BY inside an aggregate), and
 * json() keeps the array JSON through the scalar subquery. */
#define ROLE_JSON \
	"json_object('id', r.id, 'code', r.code, 'name', r.name, 'description', r.description," \
	" 'permission_ids', json((SELECT json_group_array(permission_id) FROM (SELECT permission_id" \
	" FROM role_permissions WHERE role_id = r.id ORDER BY permission_id)))," \
	" 'requires_second_factor', json(CASE WHEN r.requires_second_factor THEN 'true'" \
	" ELSE 'false' END)," \
	" 'created_at', iso_time(r.created_at), 'updated_at', iso_time(r.updated_at))"

/* ?1 project, ?2 the search term or NULL: docs/api.md §"Lists" search over code,
 * name and description. */
#define ROLE_FILTER \
	" WHERE r.project_id = ?1 AND (?2 IS NULL OR" SQL_CONTAINS("r.code", "?2") \
	" OR" SQL_CONTAINS("r.name", "?2") " OR" SQL_CONTAINS("r.description", "?2") ")"

/* The count and the page in one read. The page is chosen first (LIMIT ?3
 * OFFSET ?4), so only its rows are made records. Ties are broken by id in
 * the same direction, so pages never overlap or skip. */
#define ROLE_LIST(order) \
	"SELECT " SQL_RECORD_COUNT("roles", "?2 IS NULL", "SELECT count(*) FROM roles r" ROLE_FILTER) "," \
	" (SELECT json_group_array(" ROLE_JSON ") FROM (SELECT * FROM roles r" ROLE_FILTER \
	" ORDER BY " order " LIMIT ?3 OFFSET ?4) r)"

#define ORDER(key, dir) key " " dir ", r.id " dir
#define LIST_AT(sort, desc) [RS_LIST + 2 * (sort) + (desc)]

static const char *const sql[RS__COUNT] = {
	[RS_FIND] = "SELECT 1 FROM roles WHERE id = ?1 AND project_id = ?2",
	/* What a UNIQUE failure broke; ?3: the role written (an update keeps
	 * its own code). */
	[RS_CODE_TAKEN] = "SELECT 1 FROM roles WHERE project_id = ?1 AND code = ?2 AND id IS NOT ?3",
	[RS_INSERT] =
		"INSERT INTO roles (id, project_id, code, name, description, created_at, updated_at,"
		" requires_second_factor) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)",
	/* ?6 true: keep the stored description; ?8 NULL: keep requires_second_factor */
	[RS_UPDATE] =
		"UPDATE roles SET code = ?3, name = ?4,"
		" description = CASE WHEN ?6 THEN description ELSE ?5 END, updated_at = ?7,"
		" requires_second_factor = coalesce(?8, requires_second_factor)"
		" WHERE id = ?1 AND project_id = ?2",
	[RS_PERMS_CLEAR] = "DELETE FROM role_permissions WHERE role_id = ?1",
	[RS_PERM_ADD] =
		"INSERT OR IGNORE INTO role_permissions (role_id, permission_id) VALUES (?1, ?2)",
	[RS_GET] = "SELECT " ROLE_JSON " FROM roles r WHERE r.id = ?1 AND r.project_id = ?2",
	/* The schema leaves its users with role_id NULL (ON DELETE SET NULL)
	 * and drops its grants (ON DELETE CASCADE). */
	[RS_DELETE] = "DELETE FROM roles WHERE id = ?1",
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

static sqlite3_stmt *stmt(struct store *st, enum role_stmt which)
{
	return sqlite_of(st)->roles.stmt[which];
}

/* A write in progress, for its steps, the probe of a UNIQUE failure and the
 * read back. */
struct role_write {
	const char *project_id;
	const char *id;                /* the role's */
	const struct role_fields *f;
	const char *scope;
	char **out;
};

static int probe_code(struct store *st, void *arg, struct api_error *err)
{
	const struct role_write *w = arg;

	return store_exists(st, stmt(st, RS_CODE_TAKEN), w->project_id, w->f->code, w->id, err);
}

static const struct unique_rule code_rule[] = {
	{ probe_code, E_ROLE_CODE_ALREADY_USED, ROLE_CODE_TAKEN },
};

/* Once the role is known (docs/api.md §"Which error wins"): its references, then the
 * caller's authority over what the role would be given and, on update, over
 * the role itself; the code's conflict is the write's own (code_rule). */
static int role_check(struct store *st, const struct role_write *w, bool update,
                      struct api_error *err)
{
	const struct jbody_id_list *ids = w->f->permission_ids;

	if (ids && ids->present &&
	    sqlite_grant_check_ids(st, w->project_id, w->scope, ids, err) < 0)
		return -1;
	if (update)
		return sqlite_grant_check_holder(st, w->scope, GRANT_HOLDER_ROLE, w->id, err);
	return 0;
}

/* Replaces the role's permission set with ids (on create: sets it). */
static int role_set_permissions(struct store *st, const char *role_id,
                                const struct jbody_id_list *ids, bool clear_first,
                                struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERMS_CLEAR);
	int rc = 0;

	if (clear_first) {
		store_bind_text(s, 1, role_id);
		rc = store_step_write(st, s, NULL, 0, NULL, err);
	}
	s = stmt(st, RS_PERM_ADD);
	for (size_t i = 0; rc == 0 && i < ids->count; i++) {
		store_bind_text(s, 1, role_id);
		store_bind_text(s, 2, ids->ids[i]);
		rc = store_step_write(st, s, NULL, 0, NULL, err);
	}
	return rc;
}

/* ?1-?5 of RS_INSERT and RS_UPDATE: the role's ID, project, code, name and
 * description. */
static void role_bind(sqlite3_stmt *s, const struct role_write *w)
{
	store_bind_text(s, 1, w->id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, w->f->code);
	store_bind_text(s, 4, w->f->name);
	store_bind_text(s, 5, w->f->description.value);
}

static int role_insert(struct store *st, void *arg, struct api_error *err)
{
	struct role_write *w = arg;
	const struct role_fields *f = w->f;
	sqlite3_stmt *s = stmt(st, RS_INSERT);

	if (role_check(st, w, false, err) < 0)
		return -1;
	role_bind(s, w);
	sqlite3_bind_int64(s, 6, now_ms());
	sqlite3_bind_int(s, 7, f->set_second_factor && f->requires_second_factor);
	if (store_step_write(st, s, code_rule, 1, w, err) < 0)
		return -1;
	return f->permission_ids ? role_set_permissions(st, w->id, f->permission_ids, false, err) : 0;
}

static int role_update(struct store *st, void *arg, struct api_error *err)
{
	struct role_write *w = arg;
	const struct role_fields *f = w->f;
	sqlite3_stmt *s = stmt(st, RS_UPDATE);
	int found = store_exists(st, stmt(st, RS_FIND), w->id, w->project_id, NULL, err);

	if (found <= 0)
		return found < 0 ? -1 : api_fail(err, store_role_missing->code, "%s",
		                                  store_role_missing->sentence);
	if (role_check(st, w, true, err) < 0)
		return -1;
	role_bind(s, w);
	sqlite3_bind_int(s, 6, f->description.state == FIELD_ABSENT);
	sqlite3_bind_int64(s, 7, now_ms());
	if (f->set_second_factor)
		sqlite3_bind_int(s, 8, f->requires_second_factor);
	if (store_step_write(st, s, code_rule, 1, w, err) < 0)
		return -1;
	/* docs/api.md §"Conventions": an omitted permission_ids keeps the set; [] or null clears it. */
	if (f->permission_ids && f->permission_ids->present)
		return role_set_permissions(st, w->id, f->permission_ids, true, err);
	return 0;
}

/* The record just written, in the write's transaction. */
static int read_back(struct store *st, void *arg, struct api_error *err)
{
	const struct role_write *w = arg;

	return store_read_record(st, stmt(st, RS_GET), w->id, w->project_id, store_role_missing,
	                         w->out, err);
}

static void sqlite_role_create(struct store *st, const struct event_origin *by,
                               const char *project_id, const struct role_fields *f,
                               const char *scope, char **out, struct completion done)
{
	char *id = crypto_new_id();
	struct role_write w = { project_id, id, f, scope, out };
	const struct event ev = { by, project_id, EVENT_ROLE_CREATE, id, NULL };
	struct api_error err;
	int rc = store_write_tx_event(st, role_insert, read_back, &w, &ev, &err);

	free(id);
	complete(done, rc, &err);
}

static void sqlite_role_update(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *role_id,
                               const struct role_fields *f, const char *scope, char **out,
                               struct completion done)
{
	struct role_write w = { project_id, role_id, f, scope, out };
	const struct event ev = { by, project_id, EVENT_ROLE_UPDATE, role_id, NULL };
	struct api_error err;

	complete(done, store_write_tx_event(st, role_update, read_back, &w, &ev, &err), &err);
}

static void sqlite_role_get(struct store *st, const char *project_id, const char *role_id,
                            char **out, struct completion done)
{
	store_get_record(st, stmt(st, RS_GET), role_id, project_id, store_role_missing, out, done);
}

static void sqlite_role_remove(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *role_id, const char *scope,
                               struct completion done)
{
	const struct event ev = { by, project_id, EVENT_ROLE_DELETE, role_id, NULL };

	sqlite_grant_delete_holder(st, GRANT_HOLDER_ROLE, stmt(st, RS_FIND), stmt(st, RS_DELETE),
	                          store_role_missing, role_id, project_id, scope, &ev, done);
}

static void sqlite_role_list(struct store *st, const char *project_id, const struct list_query *q,
                             struct page *out, struct completion done)
{
	sqlite3_stmt *s;
	struct api_error err;

	assert(q->sort < ROLE_SORT__COUNT);   /* an index into api_roles.c's sort_by values */
	s = stmt(st, RS_LIST + 2 * (int)q->sort + (q->desc ? 1 : 0));
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, q->search);
	sqlite3_bind_int64(s, 3, q->page_size);
	sqlite3_bind_int64(s, 4, list_offset(q));
	complete(done, store_read_page(st, s, out, &err), &err);
}

const struct store_roles_ops sqlite_roles_ops = {
	.create = sqlite_role_create,
	.update = sqlite_role_update,
	.get = sqlite_role_get,
	.remove = sqlite_role_remove,
	.list = sqlite_role_list,
};
