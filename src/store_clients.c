/*
 * The clients area's statements and queries. Every statement is prepared at
 * open (store.c) and reset on every path; writes run in one BEGIN IMMEDIATE
 * transaction with the checks they depend on. Never reads or returns a
 * client's secret hash.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store_clients.h"
#include "store_grants.h"
#include "util.h"

enum client_stmt {
	CS_INSERT,
	CS_EXISTS,
	CS_UPDATE,
	CS_SET_SECRET,
	CS_PERMS_DELETE,
	CS_PERM_INSERT,
	CS_GET,
	CS_COUNT,
	CS_REDIRECT_REGISTERED,   /* what sign-in reads, at the end of the file */
	CS_LIST,   /* first of the list variants: CS_LIST + 2 * sort + desc */
	CS__COUNT = CS_LIST + 2 * CLIENT_SORT__COUNT
};

#define RECORD_COLS "id, name, description, is_active, redirect_uris, created_at, updated_at"
/* The client's permission IDs as a JSON array, sorted, in the row's own
 * statement so that a page needs no query per row. */
#define PERMISSION_IDS_OF(ref)                                                  \
	"(SELECT json_group_array(permission_id) FROM (SELECT permission_id"        \
	" FROM client_permissions WHERE client_id = " ref " ORDER BY permission_id))"
/* ?2: a LIKE pattern or NULL; ?3: 0, 1 or NULL. */
#define LIST_FILTER                                                             \
	" WHERE project_id = ?1 AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\')"      \
	" AND (?3 IS NULL OR is_active = ?3)"
/* The page is picked first (materialized), so that the permission subquery
 * runs for its rows only, not for every row the sort looks at. Ties are
 * broken by id in the sort's direction: pages never overlap or skip. */
#define LIST(order)                                                             \
	"WITH page AS MATERIALIZED (SELECT " RECORD_COLS " FROM clients" LIST_FILTER \
	" ORDER BY " order " LIMIT ?4 OFFSET ?5) SELECT " RECORD_COLS ", "          \
	PERMISSION_IDS_OF("page.id") " FROM page ORDER BY " order
#define LIST_PAIR(key, col)                                                     \
	[CS_LIST + 2 * (key)] = LIST(col ", id"),                                   \
	[CS_LIST + 2 * (key) + 1] = LIST(col " DESC, id DESC")

static const char *const sql[CS__COUNT] = {
	[CS_INSERT] =
		"INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,"
		" redirect_uris, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?7)",
	[CS_EXISTS] = "SELECT 1 FROM clients WHERE id = ?1 AND project_id = ?2",
	/* ?5 and ?7 say whether description and redirect_uris change (PUT keeps
	 * an omitted optional field). */
	[CS_UPDATE] =
		"UPDATE clients SET name = ?3, is_active = ?4,"
		" description = CASE WHEN ?5 THEN ?6 ELSE description END,"
		" redirect_uris = CASE WHEN ?7 THEN ?8 ELSE redirect_uris END,"
		" updated_at = ?9 WHERE id = ?1 AND project_id = ?2",
	[CS_SET_SECRET] =
		"UPDATE clients SET secret_hash = ?3, updated_at = ?4"
		" WHERE id = ?1 AND project_id = ?2",
	[CS_PERMS_DELETE] = "DELETE FROM client_permissions WHERE client_id = ?1",
	[CS_PERM_INSERT] =
		"INSERT OR IGNORE INTO client_permissions (client_id, permission_id) VALUES (?1, ?2)",
	[CS_GET] =
		"SELECT " RECORD_COLS ", " PERMISSION_IDS_OF("clients.id")
		" FROM clients WHERE id = ?1 AND project_id = ?2",
	[CS_COUNT] = "SELECT count(*) FROM clients" LIST_FILTER,
	LIST_PAIR(CLIENT_SORT_CREATED_AT, "created_at"),
	LIST_PAIR(CLIENT_SORT_UPDATED_AT, "updated_at"),
	LIST_PAIR(CLIENT_SORT_NAME, "name COLLATE NOCASE"),
	LIST_PAIR(CLIENT_SORT_IS_ACTIVE, "is_active"),
	/* redirect_uris is the JSON array the clients API wrote. */
	[CS_REDIRECT_REGISTERED] =
		"SELECT 1 FROM clients c, json_each(c.redirect_uris) j"
		" WHERE c.id = ?1 AND j.value = ?2",
};

const struct stmt_set store_clients_sql = { CS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum client_stmt which)
{
	return st->clients.stmt[which];
}

/* A JSON array stored or built by SQLite; an empty array if it is not one
 * (it always is: we wrote it). */
static json_t *json_array_column(sqlite3_stmt *s, int col)
{
	const char *text = store_column_text(s, col);
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;

	if (!json_is_array(v)) {
		json_decref(v);
		v = json_array();
	}
	return v;
}

/* The record of a row of RECORD_COLS followed by the permission IDs. */
static json_t *client_row_json(sqlite3_stmt *s)
{
	json_t *rec = json_object();

	json_object_set_new(rec, "id", json_string_or_null(store_column_text(s, 0)));
	json_object_set_new(rec, "name", json_string_or_null(store_column_text(s, 1)));
	json_object_set_new(rec, "description", json_string_or_null(store_column_text(s, 2)));
	json_object_set_new(rec, "is_active", json_boolean(sqlite3_column_int(s, 3)));
	json_object_set_new(rec, "permission_ids", json_array_column(s, 7));
	json_object_set_new(rec, "redirect_uris", json_array_column(s, 4));
	json_object_set_new(rec, "created_at", json_timestamp(sqlite3_column_int64(s, 5)));
	json_object_set_new(rec, "updated_at", json_timestamp(sqlite3_column_int64(s, 6)));
	return rec;
}

/* The client's record, read inside the caller's transaction. */
static json_t *client_get(struct store *st, const char *project_id, const char *client_id,
                          struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_GET);
	json_t *rec = NULL;
	int rc;

	store_bind_text(s, 1, client_id);
	store_bind_text(s, 2, project_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rec = client_row_json(s);
	else if (rc == SQLITE_DONE)
		api_fail(err, E_CLIENT_NOT_FOUND, "The client does not exist.");
	else
		store_fail(st, err, "client get");
	sqlite3_reset(s);
	return rec;
}

/* 0 when the client is of the project, else -1 with client_not_found or
 * system_error. */
static int client_check_exists(struct store *st, const char *project_id, const char *client_id,
                               struct api_error *err)
{
	int found = store_exists(st, stmt(st, CS_EXISTS), client_id, project_id, NULL, err);

	if (found == 0)
		return api_fail(err, E_CLIENT_NOT_FOUND, "The client does not exist.");
	return found < 0 ? -1 : 0;
}

/* Replaces the client's permission set (checked by the caller). */
static int permissions_replace(struct store *st, const char *client_id, const struct id_list *ids,
                               struct api_error *err)
{
	sqlite3_stmt *del = stmt(st, CS_PERMS_DELETE), *ins = stmt(st, CS_PERM_INSERT);
	int rc;

	store_bind_text(del, 1, client_id);
	rc = store_step_done(st, del, err);
	sqlite3_reset(del);
	for (size_t i = 0; rc == 0 && ids && i < ids->count; i++) {
		store_bind_text(ins, 1, client_id);
		store_bind_text(ins, 2, ids->ids[i]);
		rc = store_step_done(st, ins, err);
		sqlite3_reset(ins);
	}
	return rc;
}

static int client_insert(struct store *st, const char *project_id, const char *id,
                         const struct client_fields *f, const char *secret_hash,
                         struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_INSERT);
	int rc;

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->name);
	store_bind_text(s, 4, f->description);
	store_bind_text(s, 5, secret_hash);
	store_bind_text(s, 6, f->redirect_uris ? f->redirect_uris : "[]");
	sqlite3_bind_int64(s, 7, now_ms());
	rc = store_step_done(st, s, err);
	sqlite3_reset(s);
	return rc;
}

json_t *store_client_create(struct store *st, const char *project_id,
                            const struct client_fields *f, const char *secret_hash,
                            const char *scope, struct api_error *err)
{
	char *id = crypto_new_id();
	json_t *rec = NULL;

	if (store_begin(st, err) < 0)
		goto out;
	if (store_grant_check_ids(st, project_id, scope, f->permission_ids, err) < 0 ||
	    client_insert(st, project_id, id, f, secret_hash, err) < 0 ||
	    permissions_replace(st, id, f->permission_ids, err) < 0 ||
	    !(rec = client_get(st, project_id, id, err)) ||
	    store_commit(st, err) < 0) {
		json_decref(rec);
		rec = NULL;
		store_rollback(st);
	}
out:
	free(id);
	return rec;
}

static int client_update_row(struct store *st, const char *project_id, const char *client_id,
                             const struct client_fields *f, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_UPDATE);
	int rc;

	store_bind_text(s, 1, client_id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->name);
	sqlite3_bind_int(s, 4, f->is_active);
	sqlite3_bind_int(s, 5, f->set_description);
	store_bind_text(s, 6, f->description);
	sqlite3_bind_int(s, 7, f->set_redirect_uris);
	store_bind_text(s, 8, f->redirect_uris ? f->redirect_uris : "[]");
	sqlite3_bind_int64(s, 9, now_ms());
	rc = store_step_done(st, s, err);
	sqlite3_reset(s);
	return rc;
}

json_t *store_client_update(struct store *st, const char *project_id, const char *client_id,
                            const struct client_fields *f, const char *scope,
                            struct api_error *err)
{
	json_t *rec = NULL;

	if (store_begin(st, err) < 0)
		return NULL;
	/* CONTRACT.md §3: client_not_found, some_permissions_not_found, then
	 * insufficient_permission (for the new set, or what the client holds). */
	if (client_check_exists(st, project_id, client_id, err) < 0 ||
	    (f->set_permissions &&
	     store_grant_check_ids(st, project_id, scope, f->permission_ids, err) < 0) ||
	    store_grant_check_holder(st, scope, GRANT_HOLDER_CLIENT, client_id, err) < 0 ||
	    client_update_row(st, project_id, client_id, f, err) < 0 ||
	    (f->set_permissions && permissions_replace(st, client_id, f->permission_ids, err) < 0) ||
	    !(rec = client_get(st, project_id, client_id, err)) ||
	    store_commit(st, err) < 0) {
		json_decref(rec);
		rec = NULL;
		store_rollback(st);
	}
	return rec;
}

int store_client_set_secret(struct store *st, const char *project_id, const char *client_id,
                            const char *secret_hash, const char *scope, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_SET_SECRET);
	int rc;

	if (store_begin(st, err) < 0)
		return -1;
	rc = client_check_exists(st, project_id, client_id, err);
	if (rc == 0)
		rc = store_grant_check_holder(st, scope, GRANT_HOLDER_CLIENT, client_id, err);
	if (rc == 0) {
		store_bind_text(s, 1, client_id);
		store_bind_text(s, 2, project_id);
		store_bind_text(s, 3, secret_hash);
		sqlite3_bind_int64(s, 4, now_ms());
		rc = store_step_done(st, s, err);
		store_stmt_finish(s);
	}
	if (rc == 0)
		return store_commit(st, err);   /* store_commit rolls back on failure */
	store_rollback(st);
	return -1;
}

/* Binds the list filters ?1..?3 shared by the page and the count. */
static void bind_list_filter(sqlite3_stmt *s, const char *project_id, const struct list_params *p,
                             int is_active)
{
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, p->like);
	if (is_active < 0)
		sqlite3_bind_null(s, 3);
	else
		sqlite3_bind_int(s, 3, is_active);
}

static int client_count(struct store *st, const char *project_id, const struct list_params *p,
                        int is_active, long long *total, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_COUNT);
	int rc = 0;

	bind_list_filter(s, project_id, p, is_active);
	if (sqlite3_step(s) == SQLITE_ROW)
		*total = sqlite3_column_int64(s, 0);
	else
		rc = store_fail(st, err, "client count");
	sqlite3_reset(s);
	return rc;
}

json_t *store_client_list(struct store *st, const char *project_id, const struct list_params *p,
                          int is_active, long long *total, struct api_error *err)
{
	sqlite3_stmt *s;
	json_t *data;
	int rc;

	if (p->sort >= CLIENT_SORT__COUNT) {
		api_fail(err, E_SYSTEM_ERROR, "Unknown sort key.");
		return NULL;
	}
	if (client_count(st, project_id, p, is_active, total, err) < 0)
		return NULL;
	s = stmt(st, CS_LIST + 2 * p->sort + (p->desc ? 1 : 0));
	bind_list_filter(s, project_id, p, is_active);
	sqlite3_bind_int64(s, 4, p->page_size);
	sqlite3_bind_int64(s, 5, list_params_offset(p));
	data = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(data, client_row_json(s));
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		json_decref(data);
		store_fail(st, err, "client list");
		return NULL;
	}
	return data;
}

/* ---- what sign-in reads ---- */

void store_client_redirect_registered(struct store *st, const char *client_id,
                                      const char *redirect_uri, bool *registered,
                                      struct completion done)
{
	struct api_error err;
	int rc = store_exists(st, stmt(st, CS_REDIRECT_REGISTERED), client_id, redirect_uri, NULL,
	                      &err);

	*registered = rc == 1;
	complete(done, rc, &err);
}
