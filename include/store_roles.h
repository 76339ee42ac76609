#ifndef EDGEAUTH_STORE_ROLES_H
#define EDGEAUTH_STORE_ROLES_H
/*
 * Roles in the store: create, update and list, each answering the role
 * record of CONTRACT.md §4 as JSON:
 *   {id, code, name, description, permission_ids, created_at, updated_at}
 * permission_ids is sorted by ID, so that the same set always reads the same.
 * Functions here check references and uniqueness inside one transaction;
 * they do not validate values (the API layer did that).
 */
#include <stdbool.h>
#include <jansson.h>

#include "error.h"
#include "json_util.h"
#include "store.h"

/* The most permission IDs one role may be sent with. */
#define ROLE_PERMISSION_IDS_MAX 1000

/* What a create or update writes. code and name are required. description
 * and permission_ids follow CONTRACT.md §3: on update FIELD_ABSENT /
 * present == false keep the stored value; FIELD_CLEAR / an empty list clear
 * it. On create, absent and clear both mean "none". */
struct role_fields {
	const char *code;
	const char *name;
	struct str_field description;
	const struct id_list *permission_ids;
};

/* Creates a role in the project. scope: the caller's, for the no-escalation
 * rule (store_grants.h). Returns the new record (caller owns), or NULL with
 * err: some_permissions_not_found, insufficient_permission,
 * role_code_already_used, system_error. */
json_t *store_role_create(struct store *st, const char *project_id,
                          const struct role_fields *f, const char *scope,
                          struct api_error *err);

/* Replaces the role's code and name, and its description and permission
 * set unless they are to be kept. Returns the updated record (caller owns),
 * or NULL with err, checked in this order: role_not_found (no such role in
 * this project), some_permissions_not_found, insufficient_permission (the
 * role holds, or would be given, a default-resource permission that scope
 * lacks: store_grants.h), role_code_already_used, system_error. */
json_t *store_role_update(struct store *st, const char *project_id, const char *role_id,
                          const struct role_fields *f, const char *scope,
                          struct api_error *err);

/* Sort keys of the list, in the order of the API's sort_by values. */
enum role_sort {
	ROLE_SORT_CREATED_AT,
	ROLE_SORT_UPDATED_AT,
	ROLE_SORT_NAME,
	ROLE_SORT_CODE,
	ROLE_SORT__COUNT
};

struct role_query {
	enum role_sort sort;   /* name and code ignore case; ties by id, same direction */
	bool desc;
	const char *like;      /* LIKE pattern over code, name, description (ESCAPE '\'), or NULL */
	long long limit;
	long long offset;
};

/* One page of the project's roles as a JSON array (caller owns) and, in
 * *total, how many roles match the filter in all. NULL with err
 * (system_error) on failure. */
json_t *store_role_list(struct store *st, const char *project_id, const struct role_query *q,
                        long long *total, struct api_error *err);

#endif
