/*
 * Clients on PostgreSQL (store_clients_ops, store_backend.h). Every write is one call of a
 * function of schema/postgres/012_clients.sql (create and update as
 * 032_consents.sql defines them last) that checks, writes and answers the
 * record; every read is one statement. What token issue reads
 * (lookup, authenticate, scope) is here too: a client_credentials grant
 * makes no round trip while the client and its scope are cached.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_clients.h"
#include "store_pg.h"
#include "util.h"

enum {
	PC_CREATE,
	PC_UPDATE,
	PC_SET_SECRET,
	PC_GET,
	PC_DELETE,
	PC_AUTH,
	PC_SCOPE,
	PC_REDIRECT_REGISTERED,
	PC_POST_LOGOUT_REGISTERED,
	PC_NAME,
	PC_LIST,
	PC__COUNT
};

/* edgeauth_client_list's p_order for each enum client_sort, ascending and
 * descending. */
static const char *const orders[CLIENT_SORT__COUNT][2] = {
	[CLIENT_SORT_CREATED_AT] = { "created_at", "created_at desc" },
	[CLIENT_SORT_UPDATED_AT] = { "updated_at", "updated_at desc" },
	[CLIENT_SORT_NAME] = { "name", "name desc" },
	[CLIENT_SORT_IS_ACTIVE] = { "is_active", "is_active desc" },
};

static const struct pg_statement statements[PC__COUNT] = {
	/* a new client, its permissions and its event: while creates go on, the
	 * caches of the bearer check stay warm (a round trip each) */
	[PC_CREATE] = { "clients_create", "SELECT * FROM edgeauth_client_create($1, $2, $3, $4,"
		" $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)", 17,
		PG_WRITES_UNCACHED },
	[PC_UPDATE] = { "clients_update", "SELECT * FROM edgeauth_client_update($1, $2, $3, $4,"
		" $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,"
		" $23)", 23, true },
	[PC_SET_SECRET] = { "clients_set_secret",
		"SELECT * FROM edgeauth_client_set_secret($1, $2, $3, $4, $5)", 5, true },
	[PC_GET] = { "clients_get", "SELECT edgeauth_client_json(c, p.ids)::text"
		" FROM clients c, edgeauth_client_permissions_of(c.id) p"
		" WHERE c.id = $1 AND c.project_id = $2", 2, false },
	[PC_DELETE] = { "clients_delete", "SELECT * FROM edgeauth_client_delete($1, $2, $3, $4)",
		4, true },
	[PC_AUTH] = { "clients_auth", "SELECT c.project_id, c.secret_hash, c.is_active, p.is_active,"
		" c.token_endpoint_auth_method <> 'none', c.id_token_signed_response_alg, c.device_flow"
		" FROM clients c JOIN projects p ON p.id = c.project_id WHERE c.id = $1", 1, false },
	[PC_SCOPE] = { "clients_scope", "SELECT edgeauth_scope_of_client($1)", 1, false },
	[PC_REDIRECT_REGISTERED] = { "clients_redirect_registered",
		"SELECT 1 FROM clients WHERE id = $1 AND (redirect_uris @> jsonb_build_array($2::text)"
		" OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(forward_auth_urls) f"
		" WHERE rtrim(f, '/') || '" FORWARD_AUTH_CALLBACK_PATH "' = $2))", 2, false },
	[PC_POST_LOGOUT_REGISTERED] = { "clients_post_logout_registered",
		"SELECT 1 FROM clients WHERE id = $1"
		" AND post_logout_redirect_uris @> jsonb_build_array($2::text)", 2, false },
	[PC_NAME] = { "clients_name", "SELECT name FROM clients WHERE id = $1", 1, false },
	/* (total, records): pg_map_page */
	[PC_LIST] = { "clients_list",
		"SELECT * FROM edgeauth_client_list($1, $2, $3, $4, $5, $6)", 6, false },
};

const struct pg_statement_set pg_clients_statements = { statements, PC__COUNT };

/* What the writes answer: client_not_found, an allowed role not of the
 * project (schema/postgres/031), or a refusal (store_pg.h). */
static const struct pg_outcomes *client_outcomes(void)
{
	static const struct pg_conflict conflicts[] = {
		{ "unknown_role", E_INVALID_PARAMS, CLIENT_ROLES_UNKNOWN },
	};
	static struct pg_outcomes o;

	o.missing = store_client_missing;
	o.conflicts = conflicts;
	o.n_conflicts = sizeof conflicts / sizeof conflicts[0];
	return &o;
}

/* A list of URIs as stored: NULL is none. */
static const char *uris(const char *json)
{
	return json ? json : "[]";
}

/* ---- the writes ---- */

static void pg_client_create(struct store *st, const struct event_origin *by,
                             const char *project_id, const struct client_fields *f,
                             const char *secret_hash, const char *scope, char **record,
                             struct completion done)
{
	char *id = crypto_new_id(), *ids = pg_json_ids(f->permission_ids);
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_CLIENT_CREATE, id, NULL });

	*record = NULL;
	pg_run(st, &statements[PC_CREATE], (const char *const[]){
		project_id, id, f->name, f->description, secret_hash, ids, uris(f->redirect_uris),
		uris(f->post_logout_redirect_uris), f->backchannel_logout_uri,
		f->token_endpoint_auth_method ? f->token_endpoint_auth_method
		                              : CLIENT_AUTH_METHOD_DEFAULT,
		f->id_token_signed_response_alg ? f->id_token_signed_response_alg
		                                : CLIENT_ID_TOKEN_ALG_DEFAULT,
		uris(f->allowed_role_ids), pg_bool_param(f->set_consent_required && f->consent_required),
		scope, ev, uris(f->forward_auth_urls),
		pg_bool_param(f->set_device_flow && f->device_flow) },
		pg_map_outcome, record, client_outcomes(), done);
	free(id);
	free(ids);
	free(ev);
}

static void pg_client_update(struct store *st, const struct event_origin *by,
                             const char *project_id, const char *client_id,
                             const struct client_fields *f, const char *scope, char **record,
                             struct completion done)
{
	char *ids = f->set_permissions ? pg_json_ids(f->permission_ids) : NULL;
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_CLIENT_UPDATE, client_id,
	                                          NULL });

	*record = NULL;
	pg_run(st, &statements[PC_UPDATE], (const char *const[]){
		project_id, client_id, f->name, pg_bool_param(f->is_active),
		pg_bool_param(f->set_description), f->description,
		pg_bool_param(f->set_permissions), ids,
		pg_bool_param(f->set_redirect_uris), uris(f->redirect_uris),
		pg_bool_param(f->set_post_logout_redirect_uris), uris(f->post_logout_redirect_uris),
		pg_bool_param(f->set_backchannel_logout_uri), f->backchannel_logout_uri,
		f->token_endpoint_auth_method, f->id_token_signed_response_alg,
		f->set_allowed_role_ids ? uris(f->allowed_role_ids) : NULL,
		f->set_consent_required ? pg_bool_param(f->consent_required) : NULL, scope, ev,
		pg_bool_param(f->set_forward_auth_urls), uris(f->forward_auth_urls),
		f->set_device_flow ? pg_bool_param(f->device_flow) : NULL },
		pg_map_outcome, record, client_outcomes(), done);
	free(ids);
	free(ev);
}

static void pg_client_set_secret(struct store *st, const struct event_origin *by,
                                 const char *project_id, const char *client_id,
                                 const char *secret_hash, const char *scope, struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_CLIENT_ROTATE_SECRET,
	                                          client_id, NULL });

	pg_run(st, &statements[PC_SET_SECRET],
	       (const char *const[]){ project_id, client_id, secret_hash, scope, ev },
	       pg_map_outcome, NULL, client_outcomes(), done);
	free(ev);
}

/* ---- one client, the list ---- */

static void pg_client_get(struct store *st, const char *project_id, const char *client_id,
                          char **record, struct completion done)
{
	pg_run(st, &statements[PC_GET], (const char *const[]){ client_id, project_id },
	       pg_map_record, record, store_client_missing, done);
}

static void pg_client_remove(struct store *st, const struct event_origin *by,
                             const char *project_id, const char *client_id, const char *scope,
                             struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_CLIENT_DELETE, client_id,
	                                          NULL });

	pg_run(st, &statements[PC_DELETE], (const char *const[]){ project_id, client_id, scope,
	       ev }, pg_map_outcome, NULL, client_outcomes(), done);
	free(ev);
}

static void pg_client_list(struct store *st, const char *project_id, const struct list_query *q,
                           struct page *out, struct completion done)
{
	char size[24], offset[24];

	assert(q->sort < CLIENT_SORT__COUNT);
	pg_run(st, &statements[PC_LIST], (const char *const[]){ project_id, q->search,
	       q->is_active < 0 ? NULL : pg_bool_param(q->is_active), orders[q->sort][q->desc],
	       pg_int_param(q->page_size, size),
	       pg_int_param(list_offset(q), offset) }, pg_map_page, out, NULL, done);
}

/* ---- what token issue and checks read ---- */

/* The client as PC_AUTH reads it into the struct client_auth out (its
 * stamp is the one taken when the read was sent). */
static int client_auth_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct client_auth *c = out;

	(void)how;
	(void)err;
	if (PQntuples(res) > 0) {
		snprintf(c->project_id, sizeof c->project_id, "%s", pg_text(res, 0, 0));
		snprintf(c->secret_hash, sizeof c->secret_hash, "%s", pg_text(res, 0, 1));
		c->is_active = pg_bool(res, 0, 2);
		c->project_active = pg_bool(res, 0, 3);
		c->confidential = pg_bool(res, 0, 4);
		snprintf(c->id_token_alg, sizeof c->id_token_alg, "%s",
		         pg_text(res, 0, 5) ? pg_text(res, 0, 5) : "");
		c->device_flow = pg_bool(res, 0, 6);
		c->found = true;
	}
	return 0;
}

/* Completes done with what c says: when check, whether secret is c's (NULL:
 * a public client naming itself, which must exist). */
static void client_done(const struct client_auth *c, bool check, const char *secret,
                        struct completion done)
{
	struct api_error err;

	complete(done, check ? store_client_check_secret(c, secret, &err) : 0, &err);
}

/* A read of a client that the cache had not: what it found is kept. */
struct client_fill {
	struct store *st;
	char *client_id;
	struct client_auth *out;
	bool check;
	const char *secret;   /* the request's, as done's */
	struct completion done;
};

static void client_filled(void *arg, const struct api_error *err)
{
	struct client_fill f = *(struct client_fill *)arg;

	free(arg);
	if (!err)
		store_client_keep(f.st, f.client_id, f.out);
	free(f.client_id);
	if (err)
		complete(f.done, -1, err);
	else
		client_done(f.out, f.check, f.secret, f.done);
}

/* The client from the cache when the store is as it was read (a grant's
 * round trip saved), else from PC_AUTH. */
static void client_read(struct store *st, const char *client_id, bool check, const char *secret,
                        struct client_auth *out, struct completion done)
{
	struct store_stamp now = store_stamp(st);   /* before the read: a change after it moves the stamp */
	struct client_fill *f;

	memset(out, 0, sizeof *out);
	if (store_client_cached(st, client_id, now, out)) {
		client_done(out, check, secret, done);
		return;
	}
	out->stamp = now;
	f = xmalloc(sizeof *f);
	*f = (struct client_fill){ st, client_id ? xstrdup(client_id) : NULL, out, check, secret,
	                           done };
	pg_run(st, &statements[PC_AUTH], (const char *const[]){ client_id }, client_auth_read, out,
	       NULL, (struct completion){ client_filled, f });
}

static void pg_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                             struct completion done)
{
	client_read(st, client_id, false, NULL, out, done);
}

static void pg_client_authenticate(struct store *st, const char *client_id, const char *secret,
                                   struct client_auth *out, struct completion done)
{
	client_read(st, client_id, true, secret, out, done);
}

static void pg_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                            char **out, struct completion done)
{
	pg_run_cached(st, &st->scopes, METRICS_CACHE_CLIENT_SCOPE, client_id, at,
	              &statements[PC_SCOPE], out, done);
}

static void pg_client_redirect_registered(struct store *st, const char *client_id,
                                          const char *redirect_uri, bool *registered,
                                          struct completion done)
{
	*registered = false;
	pg_run(st, &statements[PC_REDIRECT_REGISTERED],
	       (const char *const[]){ client_id, redirect_uri }, pg_map_exists, registered, NULL,
	       done);
}

static void pg_client_post_logout_registered(struct store *st, const char *client_id,
                                             const char *uri, bool *registered,
                                             struct completion done)
{
	*registered = false;
	pg_run(st, &statements[PC_POST_LOGOUT_REGISTERED], (const char *const[]){ client_id, uri },
	       pg_map_exists, registered, NULL, done);
}

/* The name, NULL when there is no such client. */
static int name_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	if (PQntuples(res) > 0 && pg_text(res, 0, 0))
		*(char **)out = xstrdup(pg_text(res, 0, 0));
	return 0;
}

static void pg_client_name(struct store *st, const char *client_id, char **name,
                           struct completion done)
{
	*name = NULL;
	pg_run(st, &statements[PC_NAME], (const char *const[]){ client_id }, name_read, name, NULL,
	       done);
}

const struct store_clients_ops pg_clients_ops = {
	.create = pg_client_create,
	.update = pg_client_update,
	.set_secret = pg_client_set_secret,
	.get = pg_client_get,
	.remove = pg_client_remove,
	.list = pg_client_list,
	.lookup = pg_client_lookup,
	.authenticate = pg_client_authenticate,
	.scope = pg_client_scope,
	.redirect_registered = pg_client_redirect_registered,
	.post_logout_registered = pg_client_post_logout_registered,
	.name = pg_client_name,
};
