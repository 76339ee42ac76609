/*
 * Resources and their permissions. Every write runs in one BEGIN IMMEDIATE
 * transaction that checks and writes; every statement is reset on every path.
 * Never deletes a permission that an update keeps: roles and clients hold
 * its ID, and deleting a row cascades to their grants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store_resources.h"
#include "util.h"

enum resources_stmt {
	RS_CODE_TAKEN,
	RS_INSERT,
	RS_HEAD,
	RS_UPDATE,
	RS_PERM_INSERT,
	RS_PERM_FOREIGN,
	RS_PERM_DELETE_OTHERS,
	RS_PERM_PARK,
	RS_PERM_UPDATE,
	RS_RECORD,
	RS_LIST,
	RS_COUNT,
	RS__COUNT
};

/* A resource row and one of its permissions (NULLs when it has none): the
 * columns record_rows_collect reads. */
#define RECORD_COLS \
	"r.id, r.name, r.code, r.description, r.is_default, r.created_at, r.updated_at," \
	" p.id, p.name, p.code, p.description"

/* The list filters: ?1 project, ?2 is_default or NULL, ?3 LIKE pattern or
 * NULL, matched against the resource's and its permissions' text. */
#define LIST_FILTER \
	" WHERE r.project_id = ?1" \
	" AND (?2 IS NULL OR r.is_default = ?2)" \
	" AND (?3 IS NULL OR r.name LIKE ?3 ESCAPE '\\' OR r.code LIKE ?3 ESCAPE '\\'" \
	"  OR r.description LIKE ?3 ESCAPE '\\'" \
	"  OR EXISTS (SELECT 1 FROM permissions sp WHERE sp.resource_id = r.id" \
	"   AND (sp.name LIKE ?3 ESCAPE '\\' OR sp.code LIKE ?3 ESCAPE '\\'" \
	"   OR sp.description LIKE ?3 ESCAPE '\\')))"

static const char *const sql[RS__COUNT] = {
	[RS_CODE_TAKEN] =
		"SELECT 1 FROM resources WHERE project_id = ?1 AND code = ?2"
		" AND (?3 IS NULL OR id <> ?3)",
	[RS_INSERT] =
		"INSERT INTO resources (id, project_id, name, code, description, is_default,"
		" created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6)",
	[RS_HEAD] = "SELECT is_default FROM resources WHERE id = ?1 AND project_id = ?2",
	/* ?5 true: the body left description out, keep it (CONTRACT.md §3). */
	[RS_UPDATE] =
		"UPDATE resources SET name = ?2, code = ?3,"
		" description = CASE WHEN ?5 THEN description ELSE ?4 END, updated_at = ?6"
		" WHERE id = ?1",
	[RS_PERM_INSERT] =
		"INSERT INTO permissions (id, resource_id, project_id, name, code, description,"
		" position) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	/* How many of the IDs in the JSON array ?2 are not permissions of ?1. */
	[RS_PERM_FOREIGN] =
		"SELECT count(*) FROM json_each(?2) j WHERE NOT EXISTS"
		" (SELECT 1 FROM permissions p WHERE p.id = j.value AND p.resource_id = ?1)",
	[RS_PERM_DELETE_OTHERS] =
		"DELETE FROM permissions WHERE resource_id = ?1"
		" AND id NOT IN (SELECT value FROM json_each(?2))",
	/* Phase one of renaming: move every code out of the way, to a value no
	 * valid code can take (U+0001 and the row's own unique ID), so that the
	 * items can then take any codes, swaps included, without a spurious
	 * UNIQUE (resource_id, code) failure. */
	[RS_PERM_PARK] = "UPDATE permissions SET code = char(1) || id WHERE resource_id = ?1",
	[RS_PERM_UPDATE] =
		"UPDATE permissions SET name = ?2, code = ?3,"
		" description = CASE WHEN ?5 THEN description ELSE ?4 END, position = ?6"
		" WHERE id = ?1",
	[RS_RECORD] =
		"SELECT " RECORD_COLS " FROM resources r"
		" LEFT JOIN permissions p ON p.resource_id = r.id"
		" WHERE r.id = ?1 ORDER BY p.position",
	/* The page first, then its permissions joined: one statement per page. */
	[RS_LIST] =
		"WITH page AS (SELECT r.* FROM resources r" LIST_FILTER
		" ORDER BY r.created_at, r.id LIMIT ?4 OFFSET ?5)"
		" SELECT " RECORD_COLS " FROM page r"
		" LEFT JOIN permissions p ON p.resource_id = r.id"
		" ORDER BY r.created_at, r.id, p.position",
	[RS_COUNT] = "SELECT count(*) FROM resources r" LIST_FILTER,
};

const struct stmt_set store_resources_sql = { RS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum resources_stmt which)
{
	return st->resources.stmt[which];
}

/* Binds an optional field as ?value and, when keep_idx > 0, whether the
 * stored value is kept (the field was absent) as ?keep_idx. */
static void bind_optional(sqlite3_stmt *s, int value_idx, int keep_idx,
                          const struct str_field *f)
{
	store_bind_text(s, value_idx, f->state == FIELD_SET ? f->value : NULL);
	if (keep_idx > 0)
		sqlite3_bind_int(s, keep_idx, f->state == FIELD_ABSENT);
}

/* ---- reading records ---- */

static json_t *record_new(sqlite3_stmt *s)
{
	json_t *r = json_object();

	json_object_set_new(r, "id", json_string_or_null(store_column_text(s, 0)));
	json_object_set_new(r, "name", json_string_or_null(store_column_text(s, 1)));
	json_object_set_new(r, "code", json_string_or_null(store_column_text(s, 2)));
	json_object_set_new(r, "description", json_string_or_null(store_column_text(s, 3)));
	json_object_set_new(r, "is_default", json_boolean(sqlite3_column_int(s, 4)));
	json_object_set_new(r, "permissions", json_array());
	json_object_set_new(r, "created_at", json_timestamp(sqlite3_column_int64(s, 5)));
	json_object_set_new(r, "updated_at", json_timestamp(sqlite3_column_int64(s, 6)));
	return r;
}

static json_t *permission_new(sqlite3_stmt *s)
{
	json_t *p = json_object();

	json_object_set_new(p, "id", json_string_or_null(store_column_text(s, 7)));
	json_object_set_new(p, "name", json_string_or_null(store_column_text(s, 8)));
	json_object_set_new(p, "code", json_string_or_null(store_column_text(s, 9)));
	json_object_set_new(p, "description", json_string_or_null(store_column_text(s, 10)));
	return p;
}

/* Steps s (rows of RECORD_COLS, grouped by resource, permissions in order)
 * into an array of records. Returns a new array, or NULL with system_error.
 * Does not reset s. */
static json_t *record_rows_collect(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	json_t *list = json_array(), *last = NULL;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = store_column_text(s, 0);
		if (!last || strcmp(json_string_value(json_object_get(last, "id")), id) != 0) {
			last = record_new(s);
			json_array_append_new(list, last);
		}
		if (sqlite3_column_type(s, 7) != SQLITE_NULL)
			json_array_append_new(json_object_get(last, "permissions"), permission_new(s));
	}
	if (rc != SQLITE_DONE) {
		json_decref(list);
		store_fail(st, err, "resource rows");
		return NULL;
	}
	return list;
}

/* The record of resource id, or NULL with system_error (also when it is
 * missing: callers ask only for one they have just written). */
static json_t *record_get(struct store *st, const char *id, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_RECORD);
	json_t *list, *rec = NULL;

	store_bind_text(s, 1, id);
	list = record_rows_collect(st, s, err);
	sqlite3_reset(s);
	if (!list)
		return NULL;
	if (json_array_size(list) == 1)
		rec = json_incref(json_array_get(list, 0));
	else
		api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	json_decref(list);
	return rec;
}

/* ---- checks ---- */

/* 1 when code names a resource of the project other than self_id (NULL: any),
 * 0 when free, -1 error. */
static int code_taken(struct store *st, const char *project_id, const char *code,
                      const char *self_id, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_CODE_TAKEN);
	int rc;

	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, code);
	store_bind_text(s, 3, self_id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(st, err, "resource code check");
}

static int code_conflict(struct api_error *err)
{
	return api_fail(err, E_RESOURCE_CODE_ALREADY_USED,
	                "A resource with this code already exists in the project.");
}

/* Fails with resource_code_already_used when the code is taken. */
static int code_check_free(struct store *st, const char *project_id, const char *code,
                           const char *self_id, struct api_error *err)
{
	int rc = code_taken(st, project_id, code, self_id, err);
	return rc == 1 ? code_conflict(err) : rc;
}

/*
 * Steps a write. A UNIQUE failure that the checks before it did not foresee
 * is told apart by asking the store which rule the row breaks, never by
 * reading the message: the resource code, else a permission code.
 */
static int step_write(struct store *st, sqlite3_stmt *s, const char *project_id,
                      const char *code, const char *self_id, struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_CONSTRAINT_UNIQUE)
		return store_fail(st, err, sqlite3_sql(s));
	sqlite3_reset(s);
	rc = code_taken(st, project_id, code, self_id, err);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return code_conflict(err);
	return api_fail(err, E_INVALID_PARAMS, "Permission codes must be unique within a resource.");
}

/* ---- writing ---- */

static int permission_insert(struct store *st, const char *project_id,
                             const char *resource_id, const char *resource_code,
                             const struct permission_input *p, int position,
                             struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_INSERT);
	char *id = crypto_new_id();
	int rc;

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, resource_id);
	store_bind_text(s, 3, project_id);
	store_bind_text(s, 4, p->name);
	store_bind_text(s, 5, p->code);
	bind_optional(s, 6, 0, &p->description);
	sqlite3_bind_int(s, 7, position);
	rc = step_write(st, s, project_id, resource_code, resource_id, err);
	sqlite3_reset(s);
	free(id);
	return rc;
}

static int permission_update(struct store *st, const char *project_id,
                             const char *resource_id, const char *resource_code,
                             const struct permission_input *p, int position,
                             struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_UPDATE);
	int rc;

	store_bind_text(s, 1, p->id);
	store_bind_text(s, 2, p->name);
	store_bind_text(s, 3, p->code);
	bind_optional(s, 4, 5, &p->description);
	sqlite3_bind_int(s, 6, position);
	rc = step_write(st, s, project_id, resource_code, resource_id, err);
	sqlite3_reset(s);
	return rc;
}

/* The item IDs of in as a JSON array text, for json_each. Caller frees. */
static char *kept_ids_json(const struct resource_input *in)
{
	json_t *ids = json_array();
	char *text;

	for (size_t i = 0; i < in->n_permissions; i++)
		if (in->permissions[i].id)
			json_array_append_new(ids, json_string(in->permissions[i].id));
	text = json_dumps(ids, JSON_COMPACT);
	json_decref(ids);
	if (!text)
		abort();   /* out of memory, as xmalloc */
	return text;
}

/* Fails with invalid_params when an item carries an ID that is not one of
 * this resource's permissions (another resource's, or none at all). */
static int permissions_check_owned(struct store *st, const char *resource_id,
                                   const char *kept, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_FOREIGN);
	long long foreign = -1;

	store_bind_text(s, 1, resource_id);
	store_bind_text(s, 2, kept);
	if (sqlite3_step(s) == SQLITE_ROW)
		foreign = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (foreign < 0)
		return store_fail(st, err, "permission ownership check");
	if (foreign > 0)
		return api_fail(err, E_INVALID_PARAMS,
		                "A permission id is not one of this resource's permissions.");
	return 0;
}

/* Makes the resource's permissions exactly in's items, in their order. */
static int permissions_replace(struct store *st, const char *project_id,
                               const char *resource_id, const struct resource_input *in,
                               const char *kept, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_DELETE_OTHERS);
	int rc;

	store_bind_text(s, 1, resource_id);
	store_bind_text(s, 2, kept);
	rc = store_step_done(st, s, err);
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	s = stmt(st, RS_PERM_PARK);
	store_bind_text(s, 1, resource_id);
	rc = store_step_done(st, s, err);
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < in->n_permissions; i++) {
		const struct permission_input *p = &in->permissions[i];
		if (p->id)
			rc = permission_update(st, project_id, resource_id, in->code, p, (int)i, err);
		else
			rc = permission_insert(st, project_id, resource_id, in->code, p, (int)i, err);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The end of a write: reads the record back and commits; on any failure
 * rolls the write back and returns NULL with err. */
static json_t *commit_record(struct store *st, const char *id, struct api_error *err)
{
	json_t *rec = record_get(st, id, err);

	if (rec && store_commit(st, err) == 0)
		return rec;
	json_decref(rec);
	store_rollback(st);
	return NULL;
}

json_t *store_resource_create(struct store *st, const char *project_id,
                              const struct resource_input *in, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_INSERT);
	char *id = crypto_new_id();
	json_t *rec = NULL;

	if (store_begin(st, err) < 0)
		goto out;
	if (code_check_free(st, project_id, in->code, NULL, err) < 0)
		goto fail;
	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, in->name);
	store_bind_text(s, 4, in->code);
	bind_optional(s, 5, 0, &in->description);
	sqlite3_bind_int64(s, 6, now_ms());
	if (step_write(st, s, project_id, in->code, NULL, err) < 0)
		goto fail;
	sqlite3_reset(s);
	for (size_t i = 0; i < in->n_permissions; i++)
		if (permission_insert(st, project_id, id, in->code, &in->permissions[i], (int)i,
		                      err) < 0)
			goto fail;
	rec = commit_record(st, id, err);
	goto out;
fail:
	store_rollback(st);
out:
	sqlite3_reset(s);
	free(id);
	return rec;
}

/* 1 found (and *is_default set), 0 not in the project, -1 error. */
static int resource_head(struct store *st, const char *project_id, const char *id,
                         bool *is_default, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_HEAD);
	int rc;

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*is_default = sqlite3_column_int(s, 0) != 0;
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store_fail(st, err, "resource get");
	}
	sqlite3_reset(s);
	return rc;
}

/* The checks of an update that need the record, in CONTRACT.md §3's order. */
static int update_check(struct store *st, const char *project_id, const char *id,
                        const struct resource_input *in, const char *kept,
                        struct api_error *err)
{
	bool is_default = false;
	int rc = resource_head(st, project_id, id, &is_default, err);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return api_fail(err, E_RESOURCE_NOT_FOUND, "The resource does not exist.");
	/* CONTRACT.md §2: default resources cannot be updated. */
	if (is_default)
		return api_fail(err, E_INVALID_PARAMS, "A default resource cannot be updated.");
	if (kept && permissions_check_owned(st, id, kept, err) < 0)
		return -1;
	return code_check_free(st, project_id, in->code, id, err);
}

json_t *store_resource_update(struct store *st, const char *project_id,
                              const char *resource_id, const struct resource_input *in,
                              struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_UPDATE);
	char *kept = in->permissions_present ? kept_ids_json(in) : NULL;
	json_t *rec = NULL;

	if (store_begin(st, err) < 0)
		goto out;
	if (update_check(st, project_id, resource_id, in, kept, err) < 0)
		goto fail;
	store_bind_text(s, 1, resource_id);
	store_bind_text(s, 2, in->name);
	store_bind_text(s, 3, in->code);
	bind_optional(s, 4, 5, &in->description);
	sqlite3_bind_int64(s, 6, now_ms());
	if (step_write(st, s, project_id, in->code, resource_id, err) < 0)
		goto fail;
	sqlite3_reset(s);
	if (kept && permissions_replace(st, project_id, resource_id, in, kept, err) < 0)
		goto fail;
	rec = commit_record(st, resource_id, err);
	goto out;
fail:
	store_rollback(st);
out:
	sqlite3_reset(s);
	free(kept);
	return rec;
}

/* ---- listing ---- */

static void bind_filter(sqlite3_stmt *s, const char *project_id, const struct resource_filter *f)
{
	store_bind_text(s, 1, project_id);
	if (f->is_default < 0)
		sqlite3_bind_null(s, 2);
	else
		sqlite3_bind_int(s, 2, f->is_default);
	store_bind_text(s, 3, f->like);
}

int store_resource_list(struct store *st, const char *project_id,
                        const struct resource_filter *f, json_t **data,
                        long long *total, struct api_error *err)
{
	sqlite3_stmt *c = stmt(st, RS_COUNT), *s = stmt(st, RS_LIST);
	int rc;

	*data = NULL;
	bind_filter(c, project_id, f);
	rc = sqlite3_step(c);
	if (rc == SQLITE_ROW)
		*total = sqlite3_column_int64(c, 0);
	sqlite3_reset(c);
	if (rc != SQLITE_ROW)
		return store_fail(st, err, "resource count");
	bind_filter(s, project_id, f);
	sqlite3_bind_int64(s, 4, f->limit);
	sqlite3_bind_int64(s, 5, f->offset);
	*data = record_rows_collect(st, s, err);
	sqlite3_reset(s);
	return *data ? 0 : -1;
}
