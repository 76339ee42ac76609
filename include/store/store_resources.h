#ifndef EDGEAUTH_STORE_RESOURCES_H
#define EDGEAUTH_STORE_RESOURCES_H
/*
 * Resources and their permissions in the store (docs/api.md §"Permissions and default resources", §"Records"). The
 * api file checks every value first; these operations enforce what needs
 * the database: the record exists, is not a default one, owns the
 * permission IDs it is sent, and its code is free in the project. A record
 * is the JSON text of docs/api.md §"Records", its permissions in their stored order:
 *   {id, name, code, description, is_default, permissions, created_at, updated_at}
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "jbody.h"
#include "listing.h"
#include "store.h"
#include "store_events.h"

/* Most permission items one resource may be sent with in one request. */
#define RESOURCE_PERMISSIONS_MAX 100

/* One item of "permissions", checked by the api file. Strings are borrowed. */
struct permission_input {
	const char *id;                  /* update: an existing permission's ID; NULL: new */
	const char *name;
	const char *code;
	struct str_field description;    /* absent on an existing item keeps the stored one */
};

/* A create or update body, checked by the api file. Strings are borrowed. */
struct resource_input {
	const char *name;
	const char *code;
	struct str_field description;
	bool permissions_present;        /* false: update keeps the stored permissions */
	size_t n_permissions;
	struct permission_input *permissions;   /* in the order sent */
};

/* In the writes below, *out is the resource's record (the caller frees it,
 * whatever the result), and by is who asks: the write records its event
 * (resource.create, .update, .delete) in its transaction. */

/* Creates a resource with its permissions in one transaction. Errors:
 * resource_code_already_used, system_error. */
void store_resource_create(struct store *st, const struct event_origin *by, const char *project_id,
                           const struct resource_input *in, char **out, struct completion done);

/* Updates a resource of the project in one transaction. With
 * in->permissions_present the stored permissions become exactly the items:
 * an item with an ID keeps that permission (and its role and client grants),
 * the others are new, and the permissions left out are deleted (the schema's
 * ON DELETE CASCADE drops them from roles and clients). Errors, first to
 * last: resource_not_found; invalid_params (a default resource, or an item
 * ID that is not one of this resource's permissions);
 * resource_code_already_used; system_error. */
void store_resource_update(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *resource_id,
                           const struct resource_input *in, char **out, struct completion done);

/* The record of the project's resource (caller frees), one statement.
 * Errors: resource_not_found, system_error. */
void store_resource_get(struct store *st, const char *project_id, const char *resource_id,
                        char **out, struct completion done);

/* Deletes a resource of the project and its permissions, which leave every
 * role and client (the schema's ON DELETE CASCADE); tokens issued after
 * carry them no more, those already out keep their scope until they
 * expire. Errors, first to last: resource_not_found; invalid_params (a
 * default resource, docs/api.md §"Permissions and default resources"); system_error. */
void store_resource_delete(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *resource_id,
                           struct completion done);

/* One page of the project's resources, oldest first (ties by ID): q->search
 * over the name, code and description of the resource and of its
 * permissions, q->is_default (-1: any); the list has no sort. Errors:
 * system_error. */
void store_resource_list(struct store *st, const char *project_id, const struct list_query *q,
                         struct page *out, struct completion done);

/* resource_not_found, and the sentences of the refusals, as both backends
 * answer them. */
extern const struct record_missing *const store_resource_missing;
#define RESOURCE_CODE_TAKEN "A resource with this code already exists in the project."
#define RESOURCE_PERMISSION_CODE_TAKEN "Permission codes must be unique within a resource."
#define RESOURCE_FOREIGN_PERMISSION \
	"A permission id is not one of this resource's permissions."
#define RESOURCE_DEFAULT_UPDATE "A default resource cannot be updated."
#define RESOURCE_DEFAULT_DELETE "A default resource cannot be deleted."

#endif
