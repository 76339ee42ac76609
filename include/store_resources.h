#ifndef EDGEAUTH_STORE_RESOURCES_H
#define EDGEAUTH_STORE_RESOURCES_H
/*
 * Resources and their permissions in the store (CONTRACT.md §2, §4). The
 * handler checks every value first; these functions enforce what needs the
 * database: the record exists, is not a default one, owns the permission IDs
 * it is sent, and its code is free in the project. Records come back as the
 * JSON object of CONTRACT.md §4, permissions in their stored order.
 */
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "json_util.h"
#include "store.h"

/* Most permission items one resource may be sent with in one request. */
#define RESOURCE_PERMISSIONS_MAX 100

/* One item of "permissions", checked by the handler. Strings are borrowed. */
struct permission_input {
	const char *id;                  /* update: an existing permission's ID; NULL: new */
	const char *name;
	const char *code;
	struct str_field description;    /* absent on an existing item keeps the stored one */
};

/* A create or update body, checked by the handler. Strings are borrowed. */
struct resource_input {
	const char *name;
	const char *code;
	struct str_field description;
	bool permissions_present;        /* false: update keeps the stored permissions */
	size_t n_permissions;
	struct permission_input *permissions;   /* in the order sent */
};

/* Creates a resource with its permissions in one transaction. Returns the
 * new record (caller owns it), or NULL with err: resource_code_already_used,
 * system_error. */
json_t *store_resource_create(struct store *st, const char *project_id,
                              const struct resource_input *in, struct api_error *err);

/* Updates a resource of the project in one transaction. With
 * in->permissions_present the stored permissions become exactly the items:
 * an item with an ID keeps that permission (and its role and client grants),
 * the others are new, and the permissions left out are deleted (the schema's
 * ON DELETE CASCADE drops them from roles and clients). Returns the record,
 * or NULL with err, first to last: resource_not_found; invalid_params (a
 * default resource, or an item ID that is not one of this resource's
 * permissions); resource_code_already_used; system_error. */
json_t *store_resource_update(struct store *st, const char *project_id,
                              const char *resource_id, const struct resource_input *in,
                              struct api_error *err);

struct resource_filter {
	const char *like;     /* LIKE pattern (like_pattern) over resource and permission
	                         name, code, description; NULL: none */
	int is_default;       /* -1: any, else 0 or 1 */
	long long limit;
	long long offset;
};

/* One page of the project's resources, oldest first (ties by ID), into
 * *data (a new array), and the number of all matches into *total.
 * Returns 0, or -1 with system_error. */
int store_resource_list(struct store *st, const char *project_id,
                        const struct resource_filter *f, json_t **data,
                        long long *total, struct api_error *err);

#endif
