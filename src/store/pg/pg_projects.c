/*
 * Projects on PostgreSQL (store_projects_ops, store_backend.h): a project's creation is one
 * statement (schema/postgres/011_projects.sql); the router's project check
 * is the one operation here that runs on the loop.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_events.h"
#include "store_pg.h"
#include "store_projects.h"
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
	struct jbody_id_list list = { true, DEFAULT_IDS, (const char **)ids };
	char *json;

	for (int i = 0; i < DEFAULT_IDS; i++)
		ids[i] = crypto_new_id();
	json = pg_json_ids(&list);
	for (int i = 0; i < DEFAULT_IDS; i++)
		free(ids[i]);
	return json;
}

/* The front (store_projects.c) releases out when the create fails. */
static void pg_project_create(struct store *st, const char *name, struct new_project *out,
                              struct completion done)
{
	char hash[SECRET_HASH_LEN + 1];
	char *ids = default_ids(), *ev;

	out->project_id = crypto_new_id();
	store_admin_credentials(out, hash);
	ev = own_event(st, out->project_id, EVENT_PROJECT_CREATE, out->project_id);
	pg_run(st, &statements[PP_CREATE], (const char *const[]){
		out->project_id, name, ids, out->client_id, hash, store_admin_client.name,
		store_admin_client.description, store_admin_client.token_endpoint_auth_method, ev },
		pg_map_none, NULL, NULL, done);
	free(ids);
	free(ev);
}

static void pg_project_admin_client(struct store *st, const char *project_id,
                                    struct new_project *out, bool *made, struct completion done)
{
	char hash[SECRET_HASH_LEN + 1];
	char *ev;

	out->project_id = xstrdup(project_id);
	store_admin_credentials(out, hash);
	ev = own_event(st, project_id, EVENT_PROJECT_ADMIN_CLIENT, out->client_id);
	pg_run(st, &statements[PP_ADMIN_CLIENT], (const char *const[]){
		project_id, out->client_id, hash, store_admin_client.name,
		store_admin_client.description, store_admin_client.token_endpoint_auth_method, ev },
		pg_map_bool, made, NULL, done);
	free(ev);
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

static void pg_project_get(struct store *st, const char *id, struct project_state *out,
                           struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PP_GET], (const char *const[]){ id }, project_state_read, out, NULL,
	       done);
}

/* out is a json_t **: the list, parsed from column 0. */
static int project_list_read(const PGresult *res, void *out, const void *how,
                             struct api_error *err)
{
	(void)how;
	*(json_t **)out = PQntuples(res) ? json_loads(pg_text(res, 0, 0), 0, NULL) : NULL;
	return *(json_t **)out ? 0 : api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}

static void pg_project_list(struct store *st, json_t **out, struct completion done)
{
	pg_run(st, &statements[PP_LIST], NULL, project_list_read, out, NULL, done);
}

static void pg_project_count(struct store *st, long long *out, struct completion done)
{
	pg_run(st, &statements[PP_COUNT], NULL, pg_map_int, out, NULL, done);
}

static void pg_project_set_active(struct store *st, const char *id, bool active, bool *changed,
                                  struct completion done)
{
	char *ev = own_event(st, id, active ? EVENT_PROJECT_ACTIVATE : EVENT_PROJECT_DEACTIVATE, id);

	pg_run(st, &statements[PP_SET_ACTIVE], (const char *const[]){ id, pg_bool_param(active), ev },
	       pg_map_exists, changed, NULL, done);
	free(ev);
}

/* The time is the database's: now is this node's. */
static void pg_project_invalidate_all(struct store *st, int64_t now, struct completion done)
{
	char *ev = own_event(st, NULL, EVENT_STORE_INVALIDATE_ALL, NULL);

	(void)now;
	pg_run(st, &statements[PP_INVALIDATE_ALL], (const char *const[]){ ev }, pg_map_none, NULL,
	       NULL, done);
	free(ev);
}

const struct store_projects_ops pg_projects_ops = {
	.create = pg_project_create,
	.admin_client = pg_project_admin_client,
	.get = pg_project_get,
	.list = pg_project_list,
	.count = pg_project_count,
	.set_active = pg_project_set_active,
	.invalidate_all = pg_project_invalidate_all,
};
