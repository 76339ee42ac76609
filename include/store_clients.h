#ifndef EDGEAUTH_STORE_CLIENTS_H
#define EDGEAUTH_STORE_CLIENTS_H
/*
 * The clients table and its permission set (CONTRACT.md §4 "client"). Every
 * function takes the project the caller's token is of, so that a client of
 * another project is never seen: it is client_not_found. Records come back as
 * new JSON objects {id, name, description, is_active, permission_ids,
 * redirect_uris, created_at, updated_at}; never a secret or its hash.
 */
#include <stdbool.h>
#include <jansson.h>

#include "error.h"
#include "json_util.h"
#include "listing.h"
#include "store.h"

/* What a create or an update writes. On update a field whose set_* flag is
 * false keeps its stored value; on create every flag must be true. The
 * strings and the list are borrowed for the call. */
struct client_fields {
	const char *name;                     /* required, checked by the caller */
	bool is_active;                       /* ignored on create: new clients are active */
	bool set_description;
	const char *description;              /* NULL: none */
	bool set_permissions;
	const struct id_list *permission_ids; /* replaces the whole set */
	bool set_redirect_uris;
	const char *redirect_uris;            /* a JSON array of strings, as text */
};

/* Sort keys of the clients list, in the order of clients_sort_keys[] in
 * api_clients.c (CONTRACT.md §3). */
enum client_sort {
	CLIENT_SORT_CREATED_AT,
	CLIENT_SORT_UPDATED_AT,
	CLIENT_SORT_NAME,
	CLIENT_SORT_IS_ACTIVE,
	CLIENT_SORT__COUNT
};

/* In the writes below, scope is the caller's token scope, for the
 * no-escalation rule (store_grants.h). */

/* Inserts an active client with the given secret hash, in one transaction
 * with the checks of its permission IDs (store_grant_check_ids). Returns the
 * new record, or NULL with some_permissions_not_found,
 * insufficient_permission or system_error. The new ID is the record's "id". */
json_t *store_client_create(struct store *st, const char *project_id,
                            const struct client_fields *f, const char *secret_hash,
                            const char *scope, struct api_error *err);

/* Updates the client in one transaction. Fails (NULL) with, first to last,
 * client_not_found (unknown, or of another project), some_permissions_not_found,
 * insufficient_permission (the new set, or what the client holds, has a
 * default-resource permission scope lacks), system_error. Returns the
 * updated record. */
json_t *store_client_update(struct store *st, const char *project_id, const char *client_id,
                            const struct client_fields *f, const char *scope,
                            struct api_error *err);

/* Replaces the client's secret hash. Returns 0, or -1 with client_not_found,
 * insufficient_permission (as for an update) or system_error. */
int store_client_set_secret(struct store *st, const char *project_id, const char *client_id,
                            const char *secret_hash, const char *scope, struct api_error *err);

/* One page of the project's clients: p->sort is an enum client_sort, p->like
 * matches the name (or NULL), is_active is -1 for no filter, else 0 or 1.
 * Returns the page's records as a new array and sets *total to the number of
 * all matches, or NULL with system_error. */
json_t *store_client_list(struct store *st, const char *project_id, const struct list_params *p,
                          int is_active, long long *total, struct api_error *err);

/* ---- what sign-in reads ---- */

/* Whether redirect_uri is one the client registered, exactly (*registered
 * false too when there is no such client). */
void store_client_redirect_registered(struct store *st, const char *client_id,
                                      const char *redirect_uri, bool *registered,
                                      struct completion done);

#endif
