/*
 * Projects on SQLite (store_projects_ops, store_backend.h): create (with
 * the four default resources and the admin client, through their areas'
 * inserts), look-up, list and (de)activation. The CLI's project commands
 * and the router's project check read them.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_clients.h"
#include "store_events.h"
#include "store_projects.h"
#include "store_resources.h"
#include "util.h"

enum {
	SP_INSERT,
	SP_GET,
	SP_LIST,
	SP_COUNT,
	SP_SET_ACTIVE,
	SP_INVALIDATE_TOKENS,
	SP_END_SESSIONS,
	SP_REVOKE_ACCESS,
	SP_REVOKE_REFRESH,
	SP_END_CODES,
	SP__COUNT
};

static const char *const sql[SP__COUNT] = {
	[SP_INSERT] =
		"INSERT INTO projects (id, name, is_active, created_at, updated_at)"
		" VALUES (?1, ?2, 1, ?3, ?3)",
	[SP_GET] = "SELECT is_active FROM projects WHERE id = ?1",
	[SP_LIST] =
		"SELECT id, name, is_active, created_at, updated_at FROM projects"
		" ORDER BY created_at, id",
	[SP_COUNT] = "SELECT count(*) FROM projects",
	[SP_SET_ACTIVE] = "UPDATE projects SET is_active = ?2, updated_at = ?3 WHERE id = ?1",
	/* schema/006's rule, for every project at once; it never moves back */
	[SP_INVALIDATE_TOKENS] =
		"UPDATE projects SET tokens_valid_after = max(coalesce(tokens_valid_after, 0), ?1)",
	/* schema/008's trigger revokes each session's sign-ins */
	[SP_END_SESSIONS] = "UPDATE sessions SET ended_at = ?1 WHERE ended_at IS NULL",
	/* What the store holds ends by its rows, whatever the clock says: the
	 * access token of every refresh token that may still live (a clock
	 * stepped back takes more, never fewer), every refresh token, every
	 * unredeemed code. */
	[SP_REVOKE_ACCESS] =
		"INSERT OR IGNORE INTO revoked_tokens (jti, expires_at)"
		" SELECT access_jti, access_exp FROM refresh_tokens WHERE access_exp > ?1 / 1000",
	[SP_REVOKE_REFRESH] = "UPDATE refresh_tokens SET revoked_at = ?1 WHERE revoked_at IS NULL",
	[SP_END_CODES] = "DELETE FROM auth_codes WHERE used_at IS NULL",
};

const struct stmt_set store_projects_sql = { SP__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, int which)
{
	return sqlite_of(st)->projects.stmt[which];
}

/* Makes an admin client of out->project_id (docs/api.md §"Permissions and default resources": active, the
 * twelve permissions of the default resources, which must be there), its
 * credentials into out, inside the caller's transaction. It is
 * confidential (client_secret_basic): it is given a secret and used with
 * it, so nothing may be done in its name without it (docs/tokens.md §"Client authentication"). 0,
 * or -1 with system_error. */
static int admin_client_insert(struct store *st, struct new_project *out, int64_t now,
                               struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];

	store_admin_credentials(out, hash);
	if (store_client_insert(st, out->project_id, out->client_id, &store_admin_client, hash, now,
	                        err) < 0)
		return -1;
	return store_client_grant_admin(st, out->client_id, err);
}

static int project_create(struct store *st, const char *name, struct new_project *out,
                          struct api_error *err)
{
	int64_t now = now_ms();
	sqlite3_stmt *s;

	memset(out, 0, sizeof *out);
	out->project_id = crypto_new_id();
	if (store_begin(st, err) < 0)
		goto fail;
	s = stmt(st, SP_INSERT);
	store_bind_text(s, 1, out->project_id);
	store_bind_text(s, 2, name);
	sqlite3_bind_int64(s, 3, now);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0 ||
	    store_resource_insert_defaults(st, out->project_id, now, err) < 0 ||
	    admin_client_insert(st, out, now, err) < 0 ||
	    store_event_insert_own(st, (struct event){ NULL, out->project_id, EVENT_PROJECT_CREATE,
	                                               out->project_id, NULL }, err) < 0)
		goto fail_tx;
	if (store_commit(st, err) < 0)
		goto fail;
	return 0;
fail_tx:
	store_rollback(st);
fail:
	store_new_project_release(out);
	return -1;
}

/* 1 found (and *is_active set), 0 not found, -1 error. */
static int project_read(struct store *st, const char *id, bool *is_active, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SP_GET);
	int rc;

	store_bind_text(s, 1, id);
	rc = store_step(st, s, err);
	if (rc == 1)
		*is_active = sqlite3_column_int(s, 0) != 0;
	store_stmt_finish(s);
	return rc;
}

static void sqlite_project_get(struct store *st, const char *id, struct project_state *out,
                               struct completion done)
{
	struct api_error err;
	int rc;

	out->is_active = false;
	rc = project_read(st, id, &out->is_active, &err);

	out->found = rc == 1;
	complete(done, rc, &err);
}

/* 1 made, 0 no such project, -1 error. */
static int project_admin_client(struct store *st, const char *project_id,
                                struct new_project *out, struct api_error *err)
{
	bool is_active;
	int found;

	memset(out, 0, sizeof *out);
	if (store_begin(st, err) < 0)
		return -1;
	found = project_read(st, project_id, &is_active, err);
	if (found == 1) {
		out->project_id = xstrdup(project_id);
		if (admin_client_insert(st, out, now_ms(), err) < 0 ||
		    store_event_insert_own(st, (struct event){ NULL, project_id,
		                                               EVENT_PROJECT_ADMIN_CLIENT,
		                                               out->client_id, NULL }, err) < 0)
			found = -1;
	}
	if (found != 1) {
		store_rollback(st);
		store_new_project_release(out);
		return found;
	}
	if (store_commit(st, err) < 0) {
		store_new_project_release(out);
		return -1;
	}
	return 1;
}

static json_t *project_list(struct store *st, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SP_LIST);
	json_t *list = json_array();
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char created[TIMESTAMP_LEN], updated[TIMESTAMP_LEN];
		format_timestamp(sqlite3_column_int64(s, 3), created);
		format_timestamp(sqlite3_column_int64(s, 4), updated);
		json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:s}",
			"id", store_column_text(s, 0), "name", store_column_text(s, 1),
			"is_active", sqlite3_column_int(s, 2), "created_at", created,
			"updated_at", updated));
	}
	store_stmt_finish(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		store_fail(st, err, "project list");
		return NULL;
	}
	return list;
}

/* What a set_active works on, for store_write_tx. */
struct project_activation {
	const char *id;
	bool active;
	bool changed;
};

static int set_active_write(struct store *st, void *arg, struct api_error *err)
{
	struct project_activation *a = arg;
	sqlite3_stmt *s = stmt(st, SP_SET_ACTIVE);

	store_bind_text(s, 1, a->id);
	sqlite3_bind_int(s, 2, a->active);
	sqlite3_bind_int64(s, 3, now_ms());
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	a->changed = sqlite3_changes(sqlite_of(st)->db) > 0;
	if (!a->changed)
		return 0;
	return store_event_insert_own(st, (struct event){
		NULL, a->id, a->active ? EVENT_PROJECT_ACTIVATE : EVENT_PROJECT_DEACTIVATE, a->id, NULL,
	}, err);
}

static int invalidate_write(struct store *st, void *arg, struct api_error *err)
{
	static const int steps[] = {
		SP_INVALIDATE_TOKENS, SP_END_SESSIONS,
		SP_REVOKE_ACCESS, SP_REVOKE_REFRESH, SP_END_CODES,
	};
	const int64_t *now = arg;

	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		sqlite3_bind_int64(stmt(st, steps[i]), 1, *now);
		if (store_step_write(st, stmt(st, steps[i]), NULL, 0, NULL, err) < 0)
			return -1;
	}
	return store_event_insert_own(st, (struct event){ NULL, NULL, EVENT_STORE_INVALIDATE_ALL,
	                                                  NULL, NULL }, err);
}

static void sqlite_project_create(struct store *st, const char *name, struct new_project *out,
                                  struct completion done)
{
	struct api_error err;

	complete(done, project_create(st, name, out, &err), &err);
}

static void sqlite_project_admin_client(struct store *st, const char *project_id,
                                        struct new_project *out, bool *made,
                                        struct completion done)
{
	struct api_error err;
	int rc = project_admin_client(st, project_id, out, &err);

	*made = rc == 1;
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_project_list(struct store *st, json_t **out, struct completion done)
{
	struct api_error err;

	*out = project_list(st, &err);
	complete(done, *out ? 0 : -1, &err);
}

/* *out stays as it was when the count has no row. */
static void sqlite_project_count(struct store *st, long long *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SP_COUNT);
	struct api_error err;
	int rc = store_step(st, s, &err);

	if (rc == 1)
		*out = sqlite3_column_int64(s, 0);
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_project_set_active(struct store *st, const char *id, bool active,
                                      bool *changed, struct completion done)
{
	struct project_activation a = { id, active, false };
	struct api_error err;
	int rc = store_write_tx(st, set_active_write, NULL, &a, &err);

	*changed = a.changed;
	complete(done, rc, &err);
}

static void sqlite_project_invalidate_all(struct store *st, int64_t now, struct completion done)
{
	struct api_error err;

	complete(done, store_write_tx(st, invalidate_write, NULL, &now, &err), &err);
}

const struct store_projects_ops sqlite_projects_ops = {
	.create = sqlite_project_create,
	.admin_client = sqlite_project_admin_client,
	.get = sqlite_project_get,
	.list = sqlite_project_list,
	.count = sqlite_project_count,
	.set_active = sqlite_project_set_active,
	.invalidate_all = sqlite_project_invalidate_all,
};
