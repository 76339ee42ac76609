/*
 * Clients on SQLite (store_clients_ops, store_backend.h): the statements
 * (prepared at open, sqlite_store.c), the operations, and what token issue reads
 * of a client. Writes run in one transaction with the checks they depend
 * on (store_write_tx). Never returns a client's secret hash but to
 * authentication. The client cache and the secret check are the front's
 * (store_clients.c).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "sqlite_backend.h"
#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_clients.h"
#include "util.h"

enum client_stmt {
	CS_INSERT,
	CS_EXISTS,
	CS_UPDATE,
	CS_ROUTING,
	CS_SET_SECRET,
	CS_PERMS_DELETE,
	CS_PERM_INSERT,
	CS_GRANT_ADMIN,
	CS_GET,
	CS_DELETE,
	CS_AUTH,
	CS_SCOPE,
	CS_REDIRECT_REGISTERED,   /* what sign-in and logout read, at the end of the file */
	CS_POST_LOGOUT_REGISTERED,
	CS_NAME,
	CS_ROLES_UNKNOWN,
	CS_LIST,   /* first of the list variants: CS_LIST + 2 * sort + desc */
	CS__COUNT = CS_LIST + 2 * CLIENT_SORT__COUNT
};

/* A column that should hold a JSON array, as one: anything else (another
 * tool wrote it) reads as []. */
#define JSON_ARRAY_OR_EMPTY(col) \
	"json(CASE WHEN json_valid(" col ") THEN iif(json_type(" col ") = 'array', " col ", '[]')" \
	" ELSE '[]' END)"
/* The client's permission IDs, sorted. */
#define PERMISSION_IDS_OF(id) \
	"json((SELECT json_group_array(permission_id) FROM (SELECT permission_id" \
	" FROM client_permissions WHERE client_id = " id " ORDER BY permission_id)))"
/* The record (docs/api.md §"Records") of the clients row c: its one definition, read
 * by get, list pages and the read back of a write. iso_time is
 * format_timestamp (sqlite_store.c). */
#define CLIENT_JSON(c) \
	"json_object('id', " c ".id, 'name', " c ".name, 'description', " c ".description," \
	" 'is_active', json(CASE WHEN " c ".is_active THEN 'true' ELSE 'false' END)," \
	" 'permission_ids', " PERMISSION_IDS_OF(c ".id") "," \
	" 'redirect_uris', " JSON_ARRAY_OR_EMPTY(c ".redirect_uris") "," \
	" 'post_logout_redirect_uris', " JSON_ARRAY_OR_EMPTY(c ".post_logout_redirect_uris") "," \
	" 'backchannel_logout_uri', " c ".backchannel_logout_uri," \
	" 'token_endpoint_auth_method', " c ".token_endpoint_auth_method," \
	" 'id_token_signed_response_alg', " c ".id_token_signed_response_alg," \
	" 'forward_auth_urls', " JSON_ARRAY_OR_EMPTY(c ".forward_auth_urls") "," \
	" 'device_flow', json(CASE WHEN " c ".device_flow THEN 'true' ELSE 'false' END)," \
	" 'allowed_role_ids', " JSON_ARRAY_OR_EMPTY(c ".allowed_role_ids") "," \
	" 'consent_required', json(CASE WHEN " c ".consent_required THEN 'true' ELSE 'false' END)," \
	" 'created_at', iso_time(" c ".created_at), 'updated_at', iso_time(" c ".updated_at))"

/* ?1 the project; ?2 a search term or NULL (docs/api.md §"Lists": a
 * case-insensitive substring of the name); ?3 is_active: 0, 1 or NULL. */
#define LIST_FILTER \
	" WHERE project_id = ?1" \
	" AND (?2 IS NULL OR" SQL_CONTAINS("name", "?2") ")" \
	" AND (?3 IS NULL OR is_active = ?3)"
/* One row: the number of all matches, and the page's records as a JSON
 * array. The page is picked first, so that the records (and their
 * permission subqueries) are made for its rows only; the aggregate takes
 * them in the page's order. Ties are broken by id in the sort's direction:
 * pages never overlap or skip. */
#define LIST(order) \
	"SELECT " SQL_RECORD_COUNT("clients", "?2 IS NULL AND ?3 IS NULL", \
	"SELECT count(*) FROM clients" LIST_FILTER) ", json_group_array(" CLIENT_JSON("c") ")" \
	" FROM (SELECT * FROM clients" LIST_FILTER " ORDER BY " order " LIMIT ?4 OFFSET ?5) c"
#define LIST_PAIR(key, col) \
	[CS_LIST + 2 * (key)] = LIST(col ", id"), \
	[CS_LIST + 2 * (key) + 1] = LIST(col " DESC, id DESC")

static const char *const sql[CS__COUNT] = {
	[CS_INSERT] =
		"INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,"
		" redirect_uris, created_at, updated_at, post_logout_redirect_uris,"
		" backchannel_logout_uri, token_endpoint_auth_method, id_token_signed_response_alg,"
		" forward_auth_urls, device_flow, allowed_role_ids, consent_required)"
		" VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[CS_EXISTS] = "SELECT 1 FROM clients WHERE id = ?1 AND project_id = ?2",
	/* ?5, ?7, ?10, ?12, ?16 and ?18 say whether description, the URIs and
	 * device_flow change (PUT keeps an omitted optional field); a NULL
	 * method or role list (?20) or consent (?21) keeps it too. */
	[CS_UPDATE] =
		"UPDATE clients SET name = ?3, is_active = ?4,"
		" description = CASE WHEN ?5 THEN ?6 ELSE description END,"
		" redirect_uris = CASE WHEN ?7 THEN ?8 ELSE redirect_uris END,"
		" post_logout_redirect_uris = CASE WHEN ?10 THEN ?11 ELSE post_logout_redirect_uris END,"
		" backchannel_logout_uri = CASE WHEN ?12 THEN ?13 ELSE backchannel_logout_uri END,"
		" token_endpoint_auth_method = coalesce(?14, token_endpoint_auth_method),"
		" id_token_signed_response_alg = coalesce(?15, id_token_signed_response_alg),"
		" forward_auth_urls = CASE WHEN ?16 THEN ?17 ELSE forward_auth_urls END,"
		" device_flow = CASE WHEN ?18 THEN ?19 ELSE device_flow END,"
		" allowed_role_ids = coalesce(?20, allowed_role_ids),"
		" consent_required = coalesce(?21, consent_required),"
		" updated_at = ?9 WHERE id = ?1 AND project_id = ?2",
	/* Where the client's tokens go now, in enum routing_field's order. */
	[CS_ROUTING] =
		"SELECT redirect_uris, post_logout_redirect_uris, backchannel_logout_uri,"
		" token_endpoint_auth_method, forward_auth_urls, device_flow, allowed_role_ids,"
		" consent_required FROM clients"
		" WHERE id = ?1 AND project_id = ?2",
	[CS_SET_SECRET] =
		"UPDATE clients SET secret_hash = ?3, updated_at = ?4"
		" WHERE id = ?1 AND project_id = ?2",
	[CS_PERMS_DELETE] = "DELETE FROM client_permissions WHERE client_id = ?1",
	[CS_PERM_INSERT] =
		"INSERT OR IGNORE INTO client_permissions (client_id, permission_id) VALUES (?1, ?2)",
	/* docs/api.md §"Permissions and default resources": the twelve permissions of the default resources. */
	[CS_GRANT_ADMIN] =
		"INSERT OR IGNORE INTO client_permissions (client_id, permission_id)"
		" SELECT c.id, pm.id FROM clients c JOIN permissions pm ON pm.project_id = c.project_id"
		" JOIN resources r ON r.id = pm.resource_id WHERE c.id = ?1 AND r.is_default",
	[CS_GET] = "SELECT " CLIENT_JSON("c") " FROM clients c WHERE c.id = ?1 AND c.project_id = ?2",
	/* Its codes and refresh tokens cascade; its access tokens, and its
	 * users' tokens, fail the bearer check, which finds no client. */
	[CS_DELETE] = "DELETE FROM clients WHERE id = ?1",
	[CS_AUTH] =
		"SELECT c.project_id, c.secret_hash, c.is_active, p.is_active,"
		" c.token_endpoint_auth_method <> 'none', c.id_token_signed_response_alg, c.device_flow"
		" FROM clients c JOIN projects p ON p.id = c.project_id WHERE c.id = ?1",
	[CS_SCOPE] =
		"SELECT " SQL_NAMED_PERMISSION " AS named FROM " SQL_CLIENT_PERMISSIONS
		SQL_SCOPE_CODES_OK " ORDER BY named",
	LIST_PAIR(CLIENT_SORT_CREATED_AT, "created_at"),
	LIST_PAIR(CLIENT_SORT_UPDATED_AT, "updated_at"),
	LIST_PAIR(CLIENT_SORT_NAME, "name COLLATE NOCASE"),
	LIST_PAIR(CLIENT_SORT_IS_ACTIVE, "is_active"),
	/* redirect_uris is the JSON array the clients API wrote; each base URL
	 * of forward_auth_urls registers <base URL>/.edgeauth/callback
	 * (docs/forward-auth.md). */
	[CS_REDIRECT_REGISTERED] =
		"SELECT 1 FROM clients c, json_each(c.redirect_uris) j"
		" WHERE c.id = ?1 AND j.value = ?2"
		" UNION ALL SELECT 1 FROM clients c, json_each(c.forward_auth_urls) f"
		" WHERE c.id = ?1 AND rtrim(f.value, '/') || '" FORWARD_AUTH_CALLBACK_PATH "' = ?2",
	[CS_POST_LOGOUT_REGISTERED] =
		"SELECT 1 FROM clients c, json_each(c.post_logout_redirect_uris) j"
		" WHERE c.id = ?1 AND j.value = ?2",
	[CS_NAME] = "SELECT name FROM clients WHERE id = ?1",
	/* An ID of the list ?1 that is no role of the project ?2 and not one
	 * the client ?3 lists already (a deleted role's, carried back). */
	[CS_ROLES_UNKNOWN] =
		"SELECT 1 FROM json_each(?1) j WHERE NOT EXISTS (SELECT 1 FROM roles r"
		" WHERE r.id = j.value AND r.project_id = ?2) AND NOT EXISTS (SELECT 1 FROM clients c,"
		" json_each(" JSON_ARRAY_OR_EMPTY("c.allowed_role_ids") ") k"
		" WHERE c.id = ?3 AND k.value = j.value) LIMIT 1",
};

const struct stmt_set store_clients_sql = { CS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum client_stmt which)
{
	return sqlite_of(st)->clients.stmt[which];
}

/* ---- the writes ---- */

/* What a write works on, for store_write_tx. */
struct client_write {
	const char *project_id;
	const char *client_id;
	const struct client_fields *f;
	const char *secret_hash;
	const char *scope;
	char **record;           /* read back into; NULL: no read back */
};

/* The record of w's client, read back inside the write's transaction. */
static int client_read_back(struct store *st, void *arg, struct api_error *err)
{
	struct client_write *w = arg;

	return store_read_record(st, stmt(st, CS_GET), w->client_id, w->project_id,
	                         store_client_missing, w->record, err);
}

/* Runs write in one transaction with the event ev, reading the record back
 * when w->record is set (NULL on failure), and completes done. */
static void client_write_run(struct store *st,
                             int (*write)(struct store *, void *, struct api_error *),
                             struct client_write *w, const struct event *ev, struct completion done)
{
	struct api_error err;
	int rc;

	if (w->record)
		*w->record = NULL;
	rc = store_write_tx_event(st, write, w->record ? client_read_back : NULL, w, ev, &err);
	if (rc < 0 && w->record) {
		free(*w->record);   /* read back, then the commit failed */
		*w->record = NULL;
	}
	complete(done, rc, &err);
}

/* client_not_found unless the client is of the project. */
static int client_check_exists(struct store *st, const struct client_write *w,
                               struct api_error *err)
{
	int found = store_exists(st, stmt(st, CS_EXISTS), w->client_id, w->project_id, NULL, err);

	if (found == 0)
		return api_fail(err, store_client_missing->code, "%s",
		                store_client_missing->sentence);
	return found < 0 ? -1 : 0;
}

/* Adds the permissions ids (checked by the caller; NULL: none). */
static int permissions_add(struct store *st, const char *client_id, const struct jbody_id_list *ids,
                           struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_PERM_INSERT);

	for (size_t i = 0; ids && i < ids->count; i++) {
		store_bind_text(s, 1, client_id);
		store_bind_text(s, 2, ids->ids[i]);
		if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
			return -1;
	}
	return 0;
}

static int permissions_replace(struct store *st, const char *client_id,
                               const struct jbody_id_list *ids, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_PERMS_DELETE);

	store_bind_text(s, 1, client_id);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return permissions_add(st, client_id, ids, err);
}

/* A list of URIs as stored: NULL is none. */
static const char *uris_or_none(const char *uris)
{
	return uris ? uris : "[]";
}

/* ---- who may change where tokens go (docs/signin.md §"Who may change where tokens go") ---- */

enum routing_field {
	ROUTE_REDIRECT_URIS,
	ROUTE_POST_LOGOUT_URIS,
	ROUTE_BACKCHANNEL_URI,
	ROUTE_AUTH_METHOD,
	ROUTE_FORWARD_AUTH_URLS,   /* each registers its callback (docs/forward-auth.md) */
	ROUTE_DEVICE_FLOW,     /* a device may get a user's tokens (docs/device.md) */
	ROUTE_ALLOWED_ROLES,   /* who may sign in: as weighty (docs/signin.md §"Access rules") */
	ROUTE_CONSENT,         /* whether its users are asked (docs/signin.md §"Consent") */
	ROUTE__COUNT
};

/* What a new client has when its create does not say. */
static const char *const routing_defaults[ROUTE__COUNT] = {
	[ROUTE_REDIRECT_URIS] = "[]",
	[ROUTE_POST_LOGOUT_URIS] = "[]",
	[ROUTE_BACKCHANNEL_URI] = NULL,
	[ROUTE_AUTH_METHOD] = CLIENT_AUTH_METHOD_DEFAULT,
	[ROUTE_FORWARD_AUTH_URLS] = "[]",
	[ROUTE_DEVICE_FLOW] = "0",
	[ROUTE_ALLOWED_ROLES] = "[]",
	[ROUTE_CONSENT] = "0",
};

static bool text_differs(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) != 0 : a != b;
}

/* Whether f writes a routing field other than it is now (now[i]: the
 * stored text, NULL for none). */
static bool routing_changes(const struct client_fields *f, const char *const now[ROUTE__COUNT])
{
	const struct {
		bool set;
		const char *value;
	} to[ROUTE__COUNT] = {
		[ROUTE_REDIRECT_URIS] = { f->set_redirect_uris, uris_or_none(f->redirect_uris) },
		[ROUTE_POST_LOGOUT_URIS] = { f->set_post_logout_redirect_uris,
		                             uris_or_none(f->post_logout_redirect_uris) },
		[ROUTE_BACKCHANNEL_URI] = { f->set_backchannel_logout_uri, f->backchannel_logout_uri },
		[ROUTE_AUTH_METHOD] = { f->token_endpoint_auth_method != NULL,
		                        f->token_endpoint_auth_method },
		[ROUTE_FORWARD_AUTH_URLS] = { f->set_forward_auth_urls,
		                              uris_or_none(f->forward_auth_urls) },
		[ROUTE_DEVICE_FLOW] = { f->set_device_flow, f->device_flow ? "1" : "0" },
		[ROUTE_ALLOWED_ROLES] = { f->set_allowed_role_ids, uris_or_none(f->allowed_role_ids) },
		[ROUTE_CONSENT] = { f->set_consent_required, f->consent_required ? "1" : "0" },
	};

	for (size_t i = 0; i < ROUTE__COUNT; i++)
		if (to[i].set && text_differs(to[i].value, now[i]))
			return true;
	return false;
}

/* Whether the update w changes where its client's tokens go: 1, 0, or -1
 * with err. */
static int routing_changed_by_update(struct store *st, const struct client_write *w,
                                     struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_ROUTING);
	const char *now[ROUTE__COUNT];
	int rc;

	store_bind_text(s, 1, w->client_id);
	store_bind_text(s, 2, w->project_id);
	rc = store_step(st, s, err);
	if (rc == 1) {
		for (int i = 0; i < ROUTE__COUNT; i++)
			now[i] = store_column_text(s, i);
		rc = routing_changes(w->f, now);
	}
	store_stmt_finish(s);
	return rc;
}

/* docs/signin.md §"Who may change where tokens go": a client with redirect URIs can receive the tokens of any
 * user of its project, so only a caller carrying all twelve default-resource
 * permissions may set or change where they go. */
static int routing_check(struct store *st, const struct client_write *w, bool update,
                         struct api_error *err)
{
	int changed;

	if (!w->scope)
		return 0;
	changed = update ? routing_changed_by_update(st, w, err)
	                 : routing_changes(w->f, routing_defaults);
	if (changed <= 0)
		return changed;
	return sqlite_grant_check_admin(st, w->project_id, w->scope, err);
}

int store_client_insert(struct store *st, const char *project_id, const char *client_id,
                        const struct client_fields *f, const char *secret_hash, int64_t now,
                        struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_INSERT);

	store_bind_text(s, 1, client_id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->name);
	store_bind_text(s, 4, f->description);
	store_bind_text(s, 5, secret_hash);
	store_bind_text(s, 6, uris_or_none(f->redirect_uris));
	sqlite3_bind_int64(s, 7, now);
	store_bind_text(s, 8, uris_or_none(f->post_logout_redirect_uris));
	store_bind_text(s, 9, f->backchannel_logout_uri);
	store_bind_text(s, 10, f->token_endpoint_auth_method ? f->token_endpoint_auth_method
	                                                     : CLIENT_AUTH_METHOD_DEFAULT);
	store_bind_text(s, 11, f->id_token_signed_response_alg ? f->id_token_signed_response_alg
	                                                       : CLIENT_ID_TOKEN_ALG_DEFAULT);
	store_bind_text(s, 12, uris_or_none(f->forward_auth_urls));
	sqlite3_bind_int(s, 13, f->set_device_flow && f->device_flow);
	store_bind_text(s, 14, uris_or_none(f->allowed_role_ids));
	sqlite3_bind_int(s, 15, f->set_consent_required && f->consent_required);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return permissions_add(st, client_id, f->permission_ids, err);
}

int store_client_grant_admin(struct store *st, const char *client_id, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_GRANT_ADMIN);

	store_bind_text(s, 1, client_id);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* docs/signin.md §"Access rules": invalid_params when the new
 * allowed_role_ids names a role that is not of the project (nor one the
 * client lists already). */
static int roles_check(struct store *st, const struct client_write *w, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_ROLES_UNKNOWN);
	int rc;

	if (!w->f->set_allowed_role_ids || !w->f->allowed_role_ids)
		return 0;
	store_bind_text(s, 1, w->f->allowed_role_ids);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, w->client_id);
	rc = store_step(st, s, err);
	store_stmt_finish(s);
	if (rc == 1)
		return api_fail(err, E_INVALID_PARAMS, CLIENT_ROLES_UNKNOWN);
	return rc < 0 ? -1 : 0;
}

static int create_write(struct store *st, void *arg, struct api_error *err)
{
	struct client_write *w = arg;

	if (roles_check(st, w, err) < 0 || sqlite_grant_check_ids(st, w->project_id, w->scope, w->f->permission_ids, err) < 0 ||
	    routing_check(st, w, false, err) < 0)
		return -1;
	return store_client_insert(st, w->project_id, w->client_id, w->f, w->secret_hash, now_ms(),
	                           err);
}

static void sqlite_client_create(struct store *st, const struct event_origin *by,
                                 const char *project_id, const struct client_fields *f,
                                 const char *secret_hash, const char *scope, char **record,
                                 struct completion done)
{
	char *id = crypto_new_id();
	struct client_write w = { project_id, id, f, secret_hash, scope, record };
	const struct event ev = { by, project_id, EVENT_CLIENT_CREATE, id, NULL };

	client_write_run(st, create_write, &w, &ev, done);
	free(id);
}

static int update_row(struct store *st, const struct client_write *w, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_UPDATE);
	const struct client_fields *f = w->f;

	store_bind_text(s, 1, w->client_id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, f->name);
	sqlite3_bind_int(s, 4, f->is_active);
	sqlite3_bind_int(s, 5, f->set_description);
	store_bind_text(s, 6, f->description);
	sqlite3_bind_int(s, 7, f->set_redirect_uris);
	store_bind_text(s, 8, uris_or_none(f->redirect_uris));
	sqlite3_bind_int64(s, 9, now_ms());
	sqlite3_bind_int(s, 10, f->set_post_logout_redirect_uris);
	store_bind_text(s, 11, uris_or_none(f->post_logout_redirect_uris));
	sqlite3_bind_int(s, 12, f->set_backchannel_logout_uri);
	store_bind_text(s, 13, f->backchannel_logout_uri);
	store_bind_text(s, 14, f->token_endpoint_auth_method);
	store_bind_text(s, 15, f->id_token_signed_response_alg);
	sqlite3_bind_int(s, 16, f->set_forward_auth_urls);
	store_bind_text(s, 17, uris_or_none(f->forward_auth_urls));
	sqlite3_bind_int(s, 18, f->set_device_flow);
	sqlite3_bind_int(s, 19, f->device_flow);
	store_bind_text(s, 20, f->set_allowed_role_ids ? uris_or_none(f->allowed_role_ids) : NULL);
	if (f->set_consent_required)
		sqlite3_bind_int(s, 21, f->consent_required);
	else
		sqlite3_bind_null(s, 21);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* docs/api.md §"Which error wins": client_not_found, some_permissions_not_found, then
 * insufficient_permission (for the new set, or what the client holds; then
 * for where its tokens go, §7). */
static int update_write(struct store *st, void *arg, struct api_error *err)
{
	struct client_write *w = arg;
	bool set_permissions = w->f->set_permissions;

	if (client_check_exists(st, w, err) < 0 || roles_check(st, w, err) < 0 ||
	    (set_permissions &&
	     sqlite_grant_check_ids(st, w->project_id, w->scope, w->f->permission_ids, err) < 0) ||
	    sqlite_grant_check_holder(st, w->scope, GRANT_HOLDER_CLIENT, w->client_id, err) < 0 ||
	    routing_check(st, w, true, err) < 0 || update_row(st, w, err) < 0)
		return -1;
	return set_permissions ? permissions_replace(st, w->client_id, w->f->permission_ids, err) : 0;
}

static void sqlite_client_update(struct store *st, const struct event_origin *by,
                                 const char *project_id, const char *client_id,
                                 const struct client_fields *f, const char *scope, char **record,
                                 struct completion done)
{
	struct client_write w = { project_id, client_id, f, NULL, scope, record };
	const struct event ev = { by, project_id, EVENT_CLIENT_UPDATE, client_id, NULL };

	client_write_run(st, update_write, &w, &ev, done);
}

static int secret_write(struct store *st, void *arg, struct api_error *err)
{
	struct client_write *w = arg;
	sqlite3_stmt *s = stmt(st, CS_SET_SECRET);

	if (client_check_exists(st, w, err) < 0 ||
	    sqlite_grant_check_holder(st, w->scope, GRANT_HOLDER_CLIENT, w->client_id, err) < 0)
		return -1;
	store_bind_text(s, 1, w->client_id);
	store_bind_text(s, 2, w->project_id);
	store_bind_text(s, 3, w->secret_hash);
	sqlite3_bind_int64(s, 4, now_ms());
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static void sqlite_client_set_secret(struct store *st, const struct event_origin *by,
                                     const char *project_id, const char *client_id,
                                     const char *secret_hash, const char *scope,
                                     struct completion done)
{
	struct client_write w = { project_id, client_id, NULL, secret_hash, scope, NULL };
	const struct event ev = { by, project_id, EVENT_CLIENT_ROTATE_SECRET, client_id, NULL };

	client_write_run(st, secret_write, &w, &ev, done);
}

/* ---- one client ---- */

static void sqlite_client_get(struct store *st, const char *project_id, const char *client_id,
                              char **record, struct completion done)
{
	store_get_record(st, stmt(st, CS_GET), client_id, project_id, store_client_missing, record,
	                 done);
}

static void sqlite_client_remove(struct store *st, const struct event_origin *by,
                                 const char *project_id, const char *client_id, const char *scope,
                                 struct completion done)
{
	const struct event ev = { by, project_id, EVENT_CLIENT_DELETE, client_id, NULL };

	sqlite_grant_delete_holder(st, GRANT_HOLDER_CLIENT, stmt(st, CS_EXISTS), stmt(st, CS_DELETE),
	                          store_client_missing, client_id, project_id, scope, &ev, done);
}

/* ---- the list ---- */

static void sqlite_client_list(struct store *st, const char *project_id, const struct list_query *q,
                               struct page *out, struct completion done)
{
	sqlite3_stmt *s;
	struct api_error err;
	int rc;

	assert(q->sort < CLIENT_SORT__COUNT);
	s = stmt(st, CS_LIST + 2 * (int)q->sort + (q->desc ? 1 : 0));
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, q->search);
	if (q->is_active < 0)
		sqlite3_bind_null(s, 3);
	else
		sqlite3_bind_int(s, 3, q->is_active);
	sqlite3_bind_int64(s, 4, q->page_size);
	sqlite3_bind_int64(s, 5, list_offset(q));
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->total = sqlite3_column_int64(s, 0);
		out->data = xstrdup(store_column_text(s, 1));
	} else if (rc == 0) {   /* an aggregate always has its row */
		rc = store_fail(st, &err, "client list");
	}
	store_stmt_finish(s);
	complete(done, rc, &err);
}

/* ---- what token issue and checks read ---- */

/* Fills *out (found set) and its stamp. A grant reads its client every
 * time, so the row is cached: its read and the read transaction around it
 * were 15% of a client_credentials grant's time (docs/BENCHMARKS.md).
 * 0, or -1 with err. */
static int client_read(struct store *st, const char *client_id, struct client_auth *out,
                       struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, CS_AUTH);
	int rc;

	memset(out, 0, sizeof *out);
	if (store_client_cached(st, client_id, store_read_stamp(st), out))
		return 0;
	store_bind_text(s, 1, client_id);
	rc = store_step(st, s, err);
	out->stamp = store_stamp(st);
	if (rc == 1) {
		snprintf(out->project_id, sizeof out->project_id, "%s", store_column_text(s, 0));
		snprintf(out->secret_hash, sizeof out->secret_hash, "%s", store_column_text(s, 1));
		out->is_active = sqlite3_column_int(s, 2) != 0;
		out->project_active = sqlite3_column_int(s, 3) != 0;
		out->confidential = sqlite3_column_int(s, 4) != 0;
		snprintf(out->id_token_alg, sizeof out->id_token_alg, "%s",
		         store_column_text(s, 5) ? store_column_text(s, 5) : "");
		out->device_flow = sqlite3_column_int(s, 6) != 0;
		out->found = true;
	}
	store_stmt_finish(s);
	if (rc >= 0)
		store_client_keep(st, client_id, out);
	return rc < 0 ? -1 : 0;
}

static void sqlite_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                                 struct completion done)
{
	struct api_error err;

	complete(done, client_read(st, client_id, out, &err), &err);
}

static int client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct api_error *err)
{
	if (client_read(st, client_id, out, err) < 0)
		return -1;
	return store_client_check_secret(out, secret, err);
}

static void sqlite_client_authenticate(struct store *st, const char *client_id, const char *secret,
                                       struct client_auth *out, struct completion done)
{
	struct api_error err;

	complete(done, client_authenticate(st, client_id, secret, out, &err), &err);
}

/* A client's scope is read on every client_credentials grant and changes
 * rarely, so it is cached. */
static void sqlite_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                                char **out, struct completion done)
{
	struct api_error err;

	*out = store_join_column_cached(st, &st->scopes, METRICS_CACHE_CLIENT_SCOPE,
	                                stmt(st, CS_SCOPE), client_id, at, &err);
	complete(done, *out ? 0 : -1, &err);
}

/* ---- what sign-in and logout read ---- */

/* Whether uri is in the client's list that s reads. */
static void uri_registered(struct store *st, sqlite3_stmt *s, const char *client_id,
                           const char *uri, bool *registered, struct completion done)
{
	struct api_error err;
	int rc = store_exists(st, s, client_id, uri, NULL, &err);

	*registered = rc == 1;
	complete(done, rc, &err);
}

static void sqlite_client_redirect_registered(struct store *st, const char *client_id,
                                              const char *redirect_uri, bool *registered,
                                              struct completion done)
{
	uri_registered(st, stmt(st, CS_REDIRECT_REGISTERED), client_id, redirect_uri, registered,
	               done);
}

static void sqlite_client_post_logout_registered(struct store *st, const char *client_id,
                                                 const char *uri, bool *registered,
                                                 struct completion done)
{
	uri_registered(st, stmt(st, CS_POST_LOGOUT_REGISTERED), client_id, uri, registered, done);
}

static void sqlite_client_name(struct store *st, const char *client_id, char **name,
                               struct completion done)
{
	sqlite3_stmt *s = stmt(st, CS_NAME);
	struct api_error err;
	int rc;

	*name = NULL;
	store_bind_text(s, 1, client_id);
	rc = store_step(st, s, &err);
	if (rc == 1 && store_column_text(s, 0))
		*name = xstrdup(store_column_text(s, 0));
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

const struct store_clients_ops sqlite_clients_ops = {
	.create = sqlite_client_create,
	.update = sqlite_client_update,
	.set_secret = sqlite_client_set_secret,
	.get = sqlite_client_get,
	.remove = sqlite_client_remove,
	.list = sqlite_client_list,
	.lookup = sqlite_client_lookup,
	.authenticate = sqlite_client_authenticate,
	.scope = sqlite_client_scope,
	.redirect_registered = sqlite_client_redirect_registered,
	.post_logout_registered = sqlite_client_post_logout_registered,
	.name = sqlite_client_name,
};
