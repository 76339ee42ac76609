/*
 * Resources and their permissions on SQLite (store_resources_ops,
 * store_backend.h). Every write is one transaction
 * (store_write_tx) that checks, writes and reads the record back. Never
 * deletes a permission that an update keeps: roles and clients hold its ID,
 * and deleting a row cascades to their grants.
 */
#include <stdio.h>
#include <stdlib.h>

#include "crypto.h"
#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_resources.h"
#include "util.h"

enum resources_stmt {
	RS_CODE_TAKEN,
	RS_PERM_CODE_TAKEN,
	RS_INSERT,
	RS_HEAD,
	RS_UPDATE,
	RS_PERM_INSERT,
	RS_PERM_OWNED,
	RS_PERM_PARK,
	RS_PERM_UPDATE,
	RS_PERM_DELETE_PARKED,
	RS_GET,
	RS_DEFAULT,
	RS_DELETE,
	RS_LIST,
	RS__COUNT
};

/* The record of the resources row r (docs/api.md §"Records"), the one definition
 * that every read uses: the read back of a write and the list pages. The
 * permissions come in their stored order: the ordered subquery feeds
 * json_group_array (SQLite 3.40 has no ORDER BY inside an aggregate), and
 * json() keeps the array JSON through the scalar subquery. */
#define PERMISSION_JSON \
	"json_object('id', p.id, 'name', p.name, 'code', p.code, 'description', p.description)"
#define RESOURCE_JSON \
	"json_object('id', r.id, 'name', r.name, 'code', r.code, 'description', r.description," \
	" 'is_default', json(CASE WHEN r.is_default THEN 'true' ELSE 'false' END)," \
	" 'permissions', json((SELECT json_group_array(" PERMISSION_JSON ") FROM" \
	" (SELECT * FROM permissions WHERE resource_id = r.id ORDER BY position) p))," \
	" 'created_at', iso_time(r.created_at), 'updated_at', iso_time(r.updated_at))"

/* The list filters: ?1 project, ?2 is_default or NULL, ?3 the search term or
 * NULL, found in the resource's or one of its permissions' text. */
#define LIST_FILTER \
	" WHERE r.project_id = ?1 AND (?2 IS NULL OR r.is_default = ?2)" \
	" AND (?3 IS NULL OR" SQL_CONTAINS("r.name", "?3") " OR" SQL_CONTAINS("r.code", "?3") \
	" OR" SQL_CONTAINS("r.description", "?3") \
	" OR EXISTS (SELECT 1 FROM permissions sp WHERE sp.resource_id = r.id AND (" \
	SQL_CONTAINS("sp.name", "?3") " OR" SQL_CONTAINS("sp.code", "?3") \
	" OR" SQL_CONTAINS("sp.description", "?3") ")))"

static const char *const sql[RS__COUNT] = {
	/* What a UNIQUE failure broke (write_rules); ?3 is the row written,
	 * which may keep its own code. */
	[RS_CODE_TAKEN] =
		"SELECT 1 FROM resources WHERE project_id = ?1 AND code = ?2 AND id IS NOT ?3",
	[RS_PERM_CODE_TAKEN] =
		"SELECT 1 FROM permissions WHERE resource_id = ?1 AND code = ?2 AND id IS NOT ?3",
	[RS_INSERT] =
		"INSERT INTO resources (id, project_id, name, code, description, is_default,"
		" created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
	[RS_HEAD] = "SELECT is_default FROM resources WHERE id = ?1 AND project_id = ?2",
	/* ?5 true: the body left description out, keep it (docs/api.md §"Conventions"). */
	[RS_UPDATE] =
		"UPDATE resources SET name = ?2, code = ?3,"
		" description = CASE WHEN ?5 THEN description ELSE ?4 END, updated_at = ?6"
		" WHERE id = ?1",
	[RS_PERM_INSERT] =
		"INSERT INTO permissions (id, resource_id, project_id, name, code, description,"
		" position) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[RS_PERM_OWNED] = "SELECT 1 FROM permissions WHERE id = ?1 AND resource_id = ?2",
	/* Phase one of replacing the permissions: move every code out of the
	 * way, to a value no valid code can take (U+0001 and the row's own
	 * unique ID), so that the items can then take any codes, swaps
	 * included, without a spurious UNIQUE (resource_id, code) failure. */
	[RS_PERM_PARK] = "UPDATE permissions SET code = char(1) || id WHERE resource_id = ?1",
	[RS_PERM_UPDATE] =
		"UPDATE permissions SET name = ?2, code = ?3,"
		" description = CASE WHEN ?5 THEN description ELSE ?4 END, position = ?6"
		" WHERE id = ?1",
	/* Phase three: what no item took back was left out of the body. */
	[RS_PERM_DELETE_PARKED] =
		"DELETE FROM permissions WHERE resource_id = ?1 AND code = char(1) || id",
	[RS_GET] = "SELECT " RESOURCE_JSON " FROM resources r WHERE r.id = ?1 AND r.project_id = ?2",
	[RS_DEFAULT] = "SELECT 1 FROM resources WHERE id = ?1 AND is_default",
	/* The schema's ON DELETE CASCADE takes its permissions, and with them
	 * their grants to roles and clients. */
	[RS_DELETE] = "DELETE FROM resources WHERE id = ?1",
	/* The count and the page in one read; the page is chosen first, so
	 * only its rows are made records. */
	[RS_LIST] =
		"SELECT " SQL_RECORD_COUNT("resources", "?2 IS NULL AND ?3 IS NULL",
		                            "SELECT count(*) FROM resources r" LIST_FILTER) ","
		" (SELECT json_group_array(" RESOURCE_JSON ") FROM (SELECT * FROM resources r"
		LIST_FILTER " ORDER BY r.created_at, r.id LIMIT ?4 OFFSET ?5) r)",
};

const struct stmt_set store_resources_sql = { RS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum resources_stmt which)
{
	return sqlite_of(st)->resources.stmt[which];
}

/* The value an optional field writes: its string when set, else NULL. */
static const char *field_value(const struct str_field *f)
{
	return f->state == FIELD_SET ? f->value : NULL;
}

/* A write in progress, for its steps, the probes of a UNIQUE failure and
 * the read back. */
struct resource_write {
	const char *project_id;
	const char *id;                        /* the resource's */
	const struct resource_input *in;
	bool is_default;
	int64_t now;
	const struct permission_input *item;   /* the permission being written, or NULL */
	const char *item_id;                   /* its ID (a new one's too) */
	char **out;                            /* the record read back */
};

/* ---- what a UNIQUE failure broke ---- */

static int probe_code(struct store *st, void *arg, struct api_error *err)
{
	const struct resource_write *w = arg;

	return store_exists(st, stmt(st, RS_CODE_TAKEN), w->project_id, w->in->code, w->id, err);
}

static int probe_permission_code(struct store *st, void *arg, struct api_error *err)
{
	const struct resource_write *w = arg;

	if (!w->item)
		return 0;
	return store_exists(st, stmt(st, RS_PERM_CODE_TAKEN), w->id, w->item->code, w->item_id,
	                    err);
}

/* The resource's code, else a permission code the api file would have
 * refused (two items with one code). */
static const struct unique_rule write_rules[] = {
	{ probe_code, E_RESOURCE_CODE_ALREADY_USED, RESOURCE_CODE_TAKEN },
	{ probe_permission_code, E_INVALID_PARAMS, RESOURCE_PERMISSION_CODE_TAKEN },
};

static int step_write(struct store *st, sqlite3_stmt *s, struct resource_write *w,
                      struct api_error *err)
{
	return store_step_write(st, s, write_rules, sizeof write_rules / sizeof write_rules[0], w,
	                        err);
}

/* Runs the statement which, whose one parameter is the resource. */
static int run_on_resource(struct store *st, enum resources_stmt which,
                           const struct resource_write *w, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, which);

	store_bind_text(s, 1, w->id);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* ---- writing ---- */

static int permission_insert(struct store *st, struct resource_write *w, size_t position,
                             struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_INSERT);
	char *id = crypto_new_id();
	int rc;

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, w->id);
	store_bind_text(s, 3, w->project_id);
	store_bind_text(s, 4, w->item->name);
	store_bind_text(s, 5, w->item->code);
	store_bind_text(s, 6, field_value(&w->item->description));
	sqlite3_bind_int64(s, 7, (sqlite3_int64)position);
	w->item_id = id;
	rc = step_write(st, s, w, err);
	free(id);
	return rc;
}

static int permission_update(struct store *st, struct resource_write *w, size_t position,
                             struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_PERM_UPDATE);
	const struct permission_input *p = w->item;

	store_bind_text(s, 1, p->id);
	store_bind_text(s, 2, p->name);
	store_bind_text(s, 3, p->code);
	store_bind_text(s, 4, field_value(&p->description));
	sqlite3_bind_int(s, 5, p->description.state == FIELD_ABSENT);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)position);
	w->item_id = p->id;
	return step_write(st, s, w, err);
}

/* Writes the items in their order: an item with an ID updates that
 * permission, any other is a new one. */
static int permissions_write(struct store *st, struct resource_write *w, struct api_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < w->in->n_permissions; i++) {
		w->item = &w->in->permissions[i];
		rc = w->item->id ? permission_update(st, w, i, err) : permission_insert(st, w, i, err);
	}
	w->item = NULL;
	return rc;
}

/* The resource row and its permissions (a write's first step). */
static int resource_insert(struct store *st, void *arg, struct api_error *err)
{
	struct resource_write *w = arg;
	const struct resource_input *in = w->in;
	sqlite3_stmt *s = stmt(st, RS_INSERT);

	store_bind_text(s, 1, w->id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, in->name);
	store_bind_text(s, 4, in->code);
	store_bind_text(s, 5, field_value(&in->description));
	sqlite3_bind_int(s, 6, w->is_default);
	sqlite3_bind_int64(s, 7, w->now);
	if (step_write(st, s, w, err) < 0)
		return -1;
	return permissions_write(st, w, err);
}

/* Fails with invalid_params when an item carries an ID that is not one of
 * this resource's permissions (another resource's, or none at all). */
static int permissions_check_owned(struct store *st, const struct resource_write *w,
                                   struct api_error *err)
{
	for (size_t i = 0; i < w->in->n_permissions; i++) {
		const char *id = w->in->permissions[i].id;
		int owned = id ? store_exists(st, stmt(st, RS_PERM_OWNED), id, w->id, NULL, err) : 1;

		if (owned < 0)
			return -1;
		if (!owned)
			return api_fail(err, E_INVALID_PARAMS, RESOURCE_FOREIGN_PERMISSION);
	}
	return 0;
}

/* The checks of an update that need the record, in the order of docs/api.md §"Which error wins";
 * the code's conflict is the write's own (write_rules). */
static int update_check(struct store *st, const struct resource_write *w, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, RS_HEAD);
	bool is_default;
	int found;

	store_bind_text(s, 1, w->id);
	store_bind_text(s, 2, w->project_id);
	found = store_step(st, s, err);
	is_default = found == 1 && sqlite3_column_int(s, 0) != 0;
	store_stmt_finish(s);
	if (found <= 0)
		return found < 0 ? -1 : api_fail(err, store_resource_missing->code, "%s",
		                                 store_resource_missing->sentence);
	/* docs/api.md §"Permissions and default resources": default resources cannot be updated. */
	if (is_default)
		return api_fail(err, E_INVALID_PARAMS, RESOURCE_DEFAULT_UPDATE);
	return permissions_check_owned(st, w, err);
}

/* Makes the stored permissions exactly the items: park every code, write
 * the items, drop what is still parked. */
static int permissions_replace(struct store *st, struct resource_write *w, struct api_error *err)
{
	if (run_on_resource(st, RS_PERM_PARK, w, err) < 0 || permissions_write(st, w, err) < 0)
		return -1;
	return run_on_resource(st, RS_PERM_DELETE_PARKED, w, err);
}

static int resource_update(struct store *st, void *arg, struct api_error *err)
{
	struct resource_write *w = arg;
	const struct resource_input *in = w->in;
	sqlite3_stmt *s = stmt(st, RS_UPDATE);

	if (update_check(st, w, err) < 0)
		return -1;
	store_bind_text(s, 1, w->id);
	store_bind_text(s, 2, in->name);
	store_bind_text(s, 3, in->code);
	store_bind_text(s, 4, field_value(&in->description));
	sqlite3_bind_int(s, 5, in->description.state == FIELD_ABSENT);
	sqlite3_bind_int64(s, 6, w->now);
	if (step_write(st, s, w, err) < 0)
		return -1;
	return in->permissions_present ? permissions_replace(st, w, err) : 0;
}

/* The record just written, in the write's transaction. */
static int read_back(struct store *st, void *arg, struct api_error *err)
{
	const struct resource_write *w = arg;

	return store_read_record(st, stmt(st, RS_GET), w->id, w->project_id, store_resource_missing,
	                         w->out, err);
}

static void sqlite_resource_create(struct store *st, const struct event_origin *by,
                                   const char *project_id, const struct resource_input *in,
                                   char **out, struct completion done)
{
	char *id = crypto_new_id();
	struct resource_write w = {
		.project_id = project_id, .id = id, .in = in, .now = now_ms(), .out = out,
	};
	const struct event ev = { by, project_id, EVENT_RESOURCE_CREATE, id, NULL };
	struct api_error err;
	int rc = store_write_tx_event(st, resource_insert, read_back, &w, &ev, &err);

	free(id);
	complete(done, rc, &err);
}

static void sqlite_resource_update(struct store *st, const struct event_origin *by,
                                   const char *project_id, const char *resource_id,
                                   const struct resource_input *in, char **out,
                                   struct completion done)
{
	struct resource_write w = {
		.project_id = project_id, .id = resource_id, .in = in, .now = now_ms(), .out = out,
	};
	const struct event ev = { by, project_id, EVENT_RESOURCE_UPDATE, resource_id, NULL };
	struct api_error err;

	complete(done, store_write_tx_event(st, resource_update, read_back, &w, &ev, &err), &err);
}

/* ---- one record ---- */

static void sqlite_resource_get(struct store *st, const char *project_id, const char *resource_id,
                                char **out, struct completion done)
{
	store_get_record(st, stmt(st, RS_GET), resource_id, project_id, store_resource_missing, out,
	                 done);
}

/* docs/api.md §"Permissions and default resources", §"Read one and delete": default resources cannot be deleted. */
static int refuse_default(struct store *st, const char *id, const void *arg, struct api_error *err)
{
	int is_default = store_exists(st, stmt(st, RS_DEFAULT), id, NULL, NULL, err);

	(void)arg;
	if (is_default > 0)
		return api_fail(err, E_INVALID_PARAMS, RESOURCE_DEFAULT_DELETE);
	return is_default;
}

static void sqlite_resource_remove(struct store *st, const struct event_origin *by,
                                   const char *project_id, const char *resource_id,
                                   struct completion done)
{
	const struct event ev = { by, project_id, EVENT_RESOURCE_DELETE, resource_id, NULL };
	const struct record_delete d = {
		.find = stmt(st, RS_HEAD), .remove = stmt(st, RS_DELETE), .missing = *store_resource_missing,
		.check = refuse_default, .event = &ev,
	};

	store_delete_record(st, &d, resource_id, project_id, done);
}

/* ---- listing ---- */

static void sqlite_resource_list(struct store *st, const char *project_id,
                                 const struct list_query *q, struct page *out,
                                 struct completion done)
{
	sqlite3_stmt *s = stmt(st, RS_LIST);
	struct api_error err;

	store_bind_text(s, 1, project_id);
	if (q->is_default >= 0)
		sqlite3_bind_int(s, 2, q->is_default);
	else
		sqlite3_bind_null(s, 2);
	store_bind_text(s, 3, q->search);
	sqlite3_bind_int64(s, 4, q->page_size);
	sqlite3_bind_int64(s, 5, list_offset(q));
	complete(done, store_read_page(st, s, out, &err), &err);
}

/* ---- a new project's ---- */

/* docs/api.md §"Permissions and default resources": the four default resources, each with create, update, read. */
static const struct {
	const char *code;
	const char *name;
	const char *description;
} default_resources[] = {
	{ "resources", "Resources", "Resources and their permissions" },
	{ "users", "Users", "Users of the project" },
	{ "roles", "Roles", "Roles: sets of permissions" },
	{ "clients", "Clients", "Applications that obtain tokens" },
};

static const struct {
	const char *code;
	const char *name;
} default_permissions[] = {
	{ "create", "Create" },
	{ "update", "Update" },
	{ "read", "Read" },
};

#define DEFAULT_PERMISSIONS (sizeof default_permissions / sizeof default_permissions[0])

/* The default resource i as a body would give it; the permissions'
 * descriptions ("Read users") are written into descriptions. */
static void default_input(size_t i, struct resource_input *in,
                          struct permission_input items[DEFAULT_PERMISSIONS],
                          char descriptions[DEFAULT_PERMISSIONS][64])
{
	*in = (struct resource_input){
		.name = default_resources[i].name, .code = default_resources[i].code,
		.description = { FIELD_SET, default_resources[i].description },
		.permissions_present = true, .n_permissions = DEFAULT_PERMISSIONS, .permissions = items,
	};
	for (size_t j = 0; j < DEFAULT_PERMISSIONS; j++) {
		snprintf(descriptions[j], sizeof descriptions[j], "%s %s", default_permissions[j].name,
		         default_resources[i].code);
		items[j] = (struct permission_input){
			.name = default_permissions[j].name, .code = default_permissions[j].code,
			.description = { FIELD_SET, descriptions[j] },
		};
	}
}

int store_resource_insert_defaults(struct store *st, const char *project_id, int64_t now,
                                   struct api_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof default_resources / sizeof default_resources[0];
	     i++) {
		struct permission_input items[DEFAULT_PERMISSIONS];
		char descriptions[DEFAULT_PERMISSIONS][64];
		struct resource_input in;
		char *id = crypto_new_id();
		struct resource_write w = {
			.project_id = project_id, .id = id, .in = &in, .is_default = true, .now = now,
		};

		default_input(i, &in, items, descriptions);
		rc = resource_insert(st, &w, err);
		free(id);
	}
	return rc;
}

const struct store_resources_ops sqlite_resources_ops = {
	.create = sqlite_resource_create,
	.update = sqlite_resource_update,
	.get = sqlite_resource_get,
	.remove = sqlite_resource_remove,
	.list = sqlite_resource_list,
};
