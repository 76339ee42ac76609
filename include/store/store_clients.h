#ifndef EDGEAUTH_STORE_CLIENTS_H
#define EDGEAUTH_STORE_CLIENTS_H
/*
 * The clients table and its permission set (docs/api.md §"Records" (client)), and
 * what token issue reads of a client. The management operations take the
 * project the caller's token is of, so that a client of another project is
 * never seen: it is client_not_found. A record is the JSON text of an object
 * {id, name, description, is_active, permission_ids, redirect_uris,
 * post_logout_redirect_uris, backchannel_logout_uri,
 * token_endpoint_auth_method, id_token_signed_response_alg,
 * forward_auth_urls, device_flow, allowed_role_ids, consent_required, created_at,
 * updated_at}; never a secret or its hash.
 *
 * Each operation is one transaction and takes a struct completion (flow.h),
 * called once; what it hands back goes to out-parameters that must live
 * until then.
 */
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "flow.h"
#include "jbody.h"
#include "listing.h"
#include "store.h"
#include "store_events.h"

/* What a client is when its create does not say (docs/tokens.md §"Client authentication"): a public
 * client whose ID tokens are signed RS256 (OIDC's default). */
#define CLIENT_AUTH_METHOD_DEFAULT "none"
#define CLIENT_ID_TOKEN_ALG_DEFAULT "RS256"

/* The sentence of invalid_params for an allowed role that is not the
 * project's, as both backends answer it. */
#define CLIENT_ROLES_UNKNOWN "allowed_role_ids names a role that is not of the project"

/* What a create or an update writes. On update a field whose set_* flag is
 * false (or, for the two methods, whose value is NULL) keeps its stored
 * value; on create an unset field is the default (no URIs, the methods
 * above). The strings and the list are borrowed for the call; the caller
 * has checked every value. */
struct client_fields {
	const char *name;                     /* required */
	bool is_active;                       /* ignored on create: new clients are active */
	bool set_description;
	const char *description;              /* NULL: none */
	bool set_permissions;
	const struct jbody_id_list *permission_ids; /* replaces the whole set */
	bool set_redirect_uris;
	const char *redirect_uris;            /* a JSON array of strings, as text; NULL: [] */
	bool set_post_logout_redirect_uris;
	const char *post_logout_redirect_uris;   /* the same */
	bool set_backchannel_logout_uri;
	const char *backchannel_logout_uri;   /* NULL: none */
	const char *token_endpoint_auth_method;     /* none, client_secret_basic or _post */
	const char *id_token_signed_response_alg;   /* RS256 or ES256 */
	bool set_forward_auth_urls;
	const char *forward_auth_urls;        /* base URLs (docs/forward-auth.md), as redirect_uris */
	/* RFC 8628 (docs/device.md); unset: kept (create: false) */
	bool set_device_flow;
	bool device_flow;
	/* docs/signin.md §"Access rules": a JSON array of role IDs, as text
	 * (NULL: []); each must be a role of the project, or one the client
	 * lists already (a deleted role's, carried back), else invalid_params */
	bool set_allowed_role_ids;
	const char *allowed_role_ids;
	/* docs/signin.md §"Consent": the app is a third party's; its users are
	 * asked before it gets a code */
	bool set_consent_required;
	bool consent_required;
};

/* Sort keys of the clients list: indexes into api_clients.c's sort_by
 * vocabulary (docs/api.md §"Lists"). */
enum client_sort {
	CLIENT_SORT_CREATED_AT,
	CLIENT_SORT_UPDATED_AT,
	CLIENT_SORT_NAME,
	CLIENT_SORT_IS_ACTIVE,
	CLIENT_SORT__COUNT
};

/* In the writes below, scope is the caller's token scope, for the
 * no-escalation rule (store_grants.h), checked inside the write's
 * transaction; and for docs/signin.md §"Who may change where tokens go": a
 * write that sets or changes redirect_uris, post_logout_redirect_uris,
 * backchannel_logout_uri, token_endpoint_auth_method, forward_auth_urls
 * (each registers a callback, docs/forward-auth.md), device_flow,
 * allowed_role_ids (who may sign in) or consent_required needs scope to carry
 * all twelve named permissions of the default resources
 * (store_grants.h: kind "admin"), checked last. A create "sets" a field it gives
 * a value other than the default; an update "changes" one whose new value
 * differs from the stored one, as text (a list in another order is a
 * change: the safe side). */

/* Inserts an active client with the given secret hash, after the checks of
 * its permission IDs (store_grants.h). *record: the new record (caller
 * frees; its "id" is the new ID). Fails with invalid_params (an allowed
 * role not of the project), some_permissions_not_found,
 * insufficient_permission (a permission scope lacks, or where tokens go)
 * or system_error. */
void store_client_create(struct store *st, const struct event_origin *by, const char *project_id,
                         const struct client_fields *f, const char *secret_hash,
                         const char *scope, char **record, struct completion done);

/* Updates the client; *record: the updated record (caller frees). Fails
 * with, first to last, client_not_found (unknown, or of another project),
 * invalid_params (allowed_role_ids), some_permissions_not_found, insufficient_permission (the new set, or what
 * the client holds, has a default-resource permission scope lacks; or
 * where tokens go), system_error. */
void store_client_update(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *client_id, const struct client_fields *f,
                         const char *scope, char **record, struct completion done);

/* Replaces the client's secret hash. Fails with client_not_found,
 * insufficient_permission (as for an update) or system_error. */
void store_client_set_secret(struct store *st, const struct event_origin *by,
                             const char *project_id, const char *client_id,
                             const char *secret_hash, const char *scope,
                             struct completion done);

/* The client's record (caller frees), one statement. Fails with
 * client_not_found (unknown, or of another project) or system_error. */
void store_client_get(struct store *st, const char *project_id, const char *client_id,
                      char **record, struct completion done);

/* Deletes the client (docs/api.md §"Read one and delete"): its codes and refresh tokens go
 * with it, and every access token it was issued stops at once (the bearer
 * check finds no client). Fails with, first to last, client_not_found,
 * insufficient_permission (it holds a default-resource permission scope
 * lacks), system_error. */
void store_client_delete(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *client_id, const char *scope, struct completion done);

/* One page of the project's clients into *out: q->sort is an enum
 * client_sort, q->search a case-insensitive substring of the name (raw:
 * % _ \ in it are literal), q->is_active a filter (-1: none). Fails with
 * system_error. */
void store_client_list(struct store *st, const char *project_id, const struct list_query *q,
                       struct page *out, struct completion done);

/* ---- what token issue and checks read ---- */

/* A client as a grant or token check reads it. */
struct client_auth {
	bool found;
	char project_id[80];
	char secret_hash[64];
	bool is_active;
	bool project_active;
	/* token_endpoint_auth_method is not none: the client must prove its
	 * secret on every grant and revocation (docs/tokens.md §"Client authentication") */
	bool confidential;
	char id_token_alg[8];       /* id_token_signed_response_alg: RS256, ES256 */
	bool device_flow;           /* may use the device grant (docs/device.md) */
	struct store_stamp stamp;   /* the store as this read saw it */
};
/* With a secret (Basic) it must be c's, else invalid_client_credentials;
 * without one c must be found, else invalid_client (what
 * store_client_authenticate decides once it read c). 0 or -1. */
int store_client_check_secret(const struct client_auth *c, const char *secret,
                              struct api_error *err);
/* The client (out->found false: none such). */
void store_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                         struct completion done);
/* Authenticates a client: with a secret (Basic) it must be the client's,
 * else invalid_client_credentials; without one (a public client naming
 * itself) the client must exist, else invalid_client. Fills *out. The
 * active flags are the caller's to judge. */
void store_client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct completion done);
/* The client's named permissions ("users:read"), sorted, space-separated,
 * into *out (caller frees). at: the stamp of the read that found the client
 * (a scope is cached for it). */
void store_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                        char **out, struct completion done);

/* client_not_found, as both backends answer it. */
extern const struct record_missing *const store_client_missing;

/* The client rows both backends keep, as read at a stamp. An unknown
 * client is not kept: on PostgreSQL a new client's INSERT notifies no
 * node (schema/postgres/009_notify.sql). A hit fills *out (its stamp now)
 * and returns true. */
bool store_client_cached(struct store *st, const char *client_id, struct store_stamp now,
                         struct client_auth *out);
/* Keeps c, read at c->stamp, for client_id. */
void store_client_keep(struct store *st, const char *client_id, const struct client_auth *c);

/* ---- for the SQLite backend's own use (src/store/sqlite/) ----
 * Synchronous, inside a transaction the caller has open. */

/* Inserts an active client with f's fields and permission set, created at
 * now (ms). 0, or -1 with system_error. */
int store_client_insert(struct store *st, const char *project_id, const char *client_id,
                        const struct client_fields *f, const char *secret_hash, int64_t now,
                        struct api_error *err);
/* Gives the client the twelve permissions of its project's default
 * resources (an admin client, docs/api.md §"Permissions and default resources", §"Read one and delete"). 0, or -1 with
 * system_error. */
int store_client_grant_admin(struct store *st, const char *client_id, struct api_error *err);

/* ---- what sign-in and logout read ---- */

/* Where the proxy routes an app's callback, under each of its base URLs
 * (docs/forward-auth.md): <base URL without a trailing /> + this. */
#define FORWARD_AUTH_CALLBACK_PATH "/.edgeauth/callback"

/* Whether redirect_uri is one the client registered, exactly, or the
 * callback of one of its forward_auth_urls (*registered false too when
 * there is no such client). */
void store_client_redirect_registered(struct store *st, const char *client_id,
                                      const char *redirect_uri, bool *registered,
                                      struct completion done);
/* The same for the client's post_logout_redirect_uris (OIDC RP-Initiated
 * Logout §3, docs/signin.md §"Logout"). */
void store_client_post_logout_registered(struct store *st, const char *client_id,
                                         const char *uri, bool *registered,
                                         struct completion done);
/* The client's name, for the pages that name the app (*name NULL: no such
 * client; caller frees). */
void store_client_name(struct store *st, const char *client_id, char **name,
                       struct completion done);

#endif
