/*
 * Projects on PostgreSQL (pg_projects.h): a project's creation is one
 * statement (schema/postgres/011_projects.sql); the router's project check
 * is the one operation here that runs on the loop.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pg_projects.h"
#include "store_events.h"
#include "store_pg.h"
#include "util.h"

/* How many IDs a new project's defaults take: four resources, twelve
 * permissions (schema/postgres/011_projects.sql). */
#define DEFAULT_IDS 16

enum {
	PP_GET, PP_CREATE, PP_ADMIN_CLIENT, PP_LIST, PP_COUNT, PP_SET_ACTIVE, PP_INVALIDATE_ALL,
	PP__COUNT
};

static const struct pg_statement statements[PP__COUNT] = {
	[PP_GET] = { "projects_get", "SELECT is_active FROM projects WHERE id = $1", 1, false },
	/* each with its event ($9, $7, $3: pg_event_json, NULL for none) */
	[PP_CREATE] = { "projects_create",
		"SELECT edgeauth_project_create($1, $2, $3, $4, $5, $6, $7, $8), edgeauth_event($9)"
		" AS event", 9, true },
	[PP_ADMIN_CLIENT] = { "projects_admin_client", "SELECT made, CASE WHEN made THEN"
		" edgeauth_event($7) END AS event FROM edgeauth_project_admin_client($1, $2, $3, $4,"
		" $5, $6) AS made", 7, true },
	/* the keys of store_project_list's objects, in its order */
	[PP_LIST] = { "projects_list",
		"SELECT coalesce(json_agg(json_build_object('id', id, 'name', name,"
		" 'is_active', is_active, 'created_at', edgeauth_iso_time(created_at),"
		" 'updated_at', edgeauth_iso_time(updated_at)) ORDER BY created_at, id), '[]')"
		" FROM projects", 0, false },
	[PP_COUNT] = { "projects_count", "SELECT count(*) FROM projects", 0, false },
	[PP_SET_ACTIVE] = { "projects_set_active", "WITH u AS (UPDATE projects SET is_active = $2,"
		" updated_at = edgeauth_now_ms() WHERE id = $1 RETURNING 1)"
		" SELECT 1, edgeauth_event($3) AS event FROM u", 3, true },
	[PP_INVALIDATE_ALL] = { "projects_invalidate_all",
		"SELECT edgeauth_invalidate_all($1) AS event", 1, true },
};

const struct pg_statement_set pg_projects_statements = { statements, PP__COUNT };

/* The event of a project write, by the store's own origin (the CLI's; none
 * for the default project of a first start), as its statement takes it. */
static char *own_event(struct store *st, const char *project_id, const char *action,
                       const char *target)
{
	return pg_event_json(&(struct event){ st->events_origin, project_id, action, target, NULL });
}

/* New IDs for a project's default resources and permissions, as the JSON
 * array the statement takes. */
static char *default_ids(void)
{
	char *ids[DEFAULT_IDS];
	struct json_id_list list = { true, DEFAULT_IDS, (const char **)ids };
	char *json;

	for (int i = 0; i < DEFAULT_IDS; i++)
		ids[i] = crypto_new_id();
	json = pg_json_ids(&list);
	for (int i = 0; i < DEFAULT_IDS; i++)
		free(ids[i]);
	return json;
}

int pg_project_create(struct store *st, const char *name, struct new_project *out,
                      struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];
	char *ids = default_ids(), *ev;
	bool ignored;
	int rc;

	memset(out, 0, sizeof *out);
	out->project_id = crypto_new_id();
	store_admin_credentials(out, hash);
	ev = own_event(st, out->project_id, EVENT_PROJECT_CREATE, out->project_id);
	rc = pg_run_sync(st, &statements[PP_CREATE], (const char *const[]){
		out->project_id, name, ids, out->client_id, hash, store_admin_client.name,
		store_admin_client.description, store_admin_client.token_endpoint_auth_method, ev },
		pg_map_exists, &ignored, NULL, err);
	free(ids);
	free(ev);
	if (rc < 0)
		store_new_project_release(out);
	return rc;
}

int pg_project_admin_client(struct store *st, const char *project_id, struct new_project *out,
                            struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];
	bool made = false;
	char *ev;
	int rc;

	memset(out, 0, sizeof *out);
	out->project_id = xstrdup(project_id);
	store_admin_credentials(out, hash);
	ev = own_event(st, project_id, EVENT_PROJECT_ADMIN_CLIENT, out->client_id);
	rc = pg_run_sync(st, &statements[PP_ADMIN_CLIENT], (const char *const[]){
		project_id, out->client_id, hash, store_admin_client.name,
		store_admin_client.description, store_admin_client.token_endpoint_auth_method, ev },
		pg_map_bool, &made, NULL, err);
	free(ev);
	if (rc < 0 || !made) {
		store_new_project_release(out);
		return rc < 0 ? -1 : 0;
	}
	return 1;
}

/* The project's state, or found false. */
static int project_state_read(const PGresult *res, void *out, const void *how,
                              struct api_error *err)
{
	struct project_state *p = out;

	(void)how;
	(void)err;
	p->found = PQntuples(res) > 0;
	p->is_active = p->found && pg_bool(res, 0, 0);
	return 0;
}

void pg_project_get(struct store *st, const char *id, struct project_state *out,
                    struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PP_GET], (const char *const[]){ id }, project_state_read, out, NULL,
	       done);
}

json_t *pg_project_list(struct store *st, struct api_error *err)
{
	char *text = NULL;
	json_t *list;

	if (pg_run_sync(st, &statements[PP_LIST], NULL, pg_map_text, &text, NULL, err) < 0)
		return NULL;
	list = json_loads(text, 0, NULL);
	free(text);
	if (!list)
		api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	return list;
}

long pg_project_count(struct store *st, struct api_error *err)
{
	long long n = -1;

	if (pg_run_sync(st, &statements[PP_COUNT], NULL, pg_map_int, &n, NULL, err) < 0)
		return -1;
	return (long)n;
}

int pg_project_set_active(struct store *st, const char *id, bool active, struct api_error *err)
{
	bool changed = false;
	char *ev = own_event(st, id, active ? EVENT_PROJECT_ACTIVATE : EVENT_PROJECT_DEACTIVATE, id);
	int rc = pg_run_sync(st, &statements[PP_SET_ACTIVE],
	                     (const char *const[]){ id, pg_bool_param(active), ev }, pg_map_exists,
	                     &changed, NULL, err);

	free(ev);
	return rc < 0 ? -1 : changed;
}

int pg_invalidate_all(struct store *st, struct api_error *err)
{
	char *ev = own_event(st, NULL, EVENT_STORE_INVALIDATE_ALL, NULL);
	int rc = pg_run_sync(st, &statements[PP_INVALIDATE_ALL], (const char *const[]){ ev },
	                     pg_map_none, NULL, NULL, err);

	free(ev);
	return rc;
}
