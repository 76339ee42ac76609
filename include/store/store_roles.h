#ifndef EDGEAUTH_STORE_ROLES_H
#define EDGEAUTH_STORE_ROLES_H
/*
 * Roles in the store: create, update, get, delete and list, answering the role
 * record of docs/api.md §"Records" as JSON text:
 *   {id, code, name, description, permission_ids, requires_second_factor, created_at,
 *    updated_at}
 * permission_ids is sorted by ID, so that the same set always reads the same.
 * Each write checks references, authority and uniqueness inside its one
 * transaction; values were checked by the api file.
 */
#include <stdbool.h>

#include "error.h"
#include "flow.h"
#include "jbody.h"
#include "listing.h"
#include "store.h"
#include "store_events.h"

/* The most permission IDs one role may be sent with. */
#define ROLE_PERMISSION_IDS_MAX 1000

/* What a create or update writes. code and name are required. description
 * and permission_ids follow docs/api.md §"Conventions": on update FIELD_ABSENT /
 * present == false keep the stored value; FIELD_CLEAR / an empty list clear
 * it. On create, absent and clear both mean "none". */
struct role_fields {
	const char *code;
	const char *name;
	struct str_field description;
	const struct jbody_id_list *permission_ids;
	/* docs/signin.md §"Second factors": set_second_factor false keeps the
	 * stored value on update (create: false) */
	bool set_second_factor;
	bool requires_second_factor;
};

/* In the writes below, scope is the caller's token scope, for the
 * no-escalation rule (store_grants.h), checked in the write's transaction;
 * *out is the role's record (the caller frees it, whatever the result). */

/* Creates a role in the project. Errors: some_permissions_not_found,
 * insufficient_permission, role_code_already_used, system_error. */
void store_role_create(struct store *st, const struct event_origin *by, const char *project_id,
                       const struct role_fields *f, const char *scope, char **out,
                       struct completion done);

/* Replaces the role's code and name, and its description and permission
 * set unless they are to be kept. Errors, in this order: role_not_found (no
 * such role in this project), some_permissions_not_found,
 * insufficient_permission (the role holds, or would be given, a
 * default-resource permission that scope lacks), role_code_already_used,
 * system_error. */
void store_role_update(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *role_id, const struct role_fields *f, const char *scope,
                       char **out, struct completion done);

/* The role's record (caller frees), one statement. Errors: role_not_found
 * (no such role in this project), system_error. */
void store_role_get(struct store *st, const char *project_id, const char *role_id, char **out,
                    struct completion done);

/* Deletes the role: its users are left with no role (role_id null), and
 * their tokens already out keep their scope until they expire. Errors, in
 * this order: role_not_found, insufficient_permission (the role holds a
 * default-resource permission that scope lacks), system_error. */
void store_role_delete(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *role_id, const char *scope, struct completion done);

/* role_not_found, and the sentence of a taken code, as both backends
 * answer them. */
extern const struct record_missing *const store_role_missing;
#define ROLE_CODE_TAKEN "A role with this code already exists in the project."

/* Sort keys of the list: q->sort of store_role_list. Name and code ignore
 * case; ties are broken by ID in the same direction. */
enum role_sort {
	ROLE_SORT_CREATED_AT,
	ROLE_SORT_UPDATED_AT,
	ROLE_SORT_NAME,
	ROLE_SORT_CODE,
	ROLE_SORT__COUNT
};

/* One page of the project's roles in q's order, q->search over code, name
 * and description. Errors: system_error. */
void store_role_list(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done);

#endif
