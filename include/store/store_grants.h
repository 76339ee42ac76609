#ifndef EDGEAUTH_STORE_GRANTS_H
#define EDGEAUTH_STORE_GRANTS_H
/*
 * No escalation (docs/api.md §"No escalation"): through the management API a caller may
 * grant, and may touch a record holding, only those permissions of the four
 * default resources (resources, users, roles, clients) that its own token
 * carries. A project's own resources' permissions (orders:read) are free.
 *
 * The SQLite writes of roles, clients and users run these inside their
 * transaction, after their *_not_found checks and before their conflicts,
 * so what is checked is what is written. A delete calls
 * store_grant_check_holder on the record it removes. On PostgreSQL each
 * write's statement makes the same checks (schema/postgres/010_grants.sql:
 * edgeauth_check_*), so only the SQLite backend calls these.
 *
 * scope is the caller's: its token's space-separated named permissions
 * (struct principal). NULL means no limit; only callers that are not the
 * management API pass it (unit tests; a user's own profile, PUT
 * /api/v1/users/current, which cannot change a role).
 */
#include "error.h"
#include "jbody.h"
#include "store.h"

/* The records that hold permissions: a role and a client hold theirs, a
 * user those of its role. */
enum grant_holder {
	GRANT_HOLDER_ROLE,
	GRANT_HOLDER_CLIENT,
	GRANT_HOLDER_USER,
	GRANT_HOLDER__COUNT
};

/* The permission IDs a write would grant (ids may be NULL: none), in
 * the order of docs/api.md §"Which error wins": some_permissions_not_found unless each is a
 * permission of the project, then insufficient_permission (naming one)
 * unless scope carries each of them that is of a default resource. Returns
 * 0 or -1 with err (or system_error). */
int store_grant_check_ids(struct store *st, const char *project_id, const char *scope,
                          const struct jbody_id_list *ids, struct api_error *err);

/* 0 when scope carries every default-resource permission that the role,
 * client or user id holds (none when there is no such record), else -1 with
 * insufficient_permission naming one it lacks, or system_error. */
int store_grant_check_holder(struct store *st, const char *scope, enum grant_holder holder,
                             const char *id, struct api_error *err);

/* 0 when scope carries all twelve named permissions of the project's
 * default resources (docs/signin.md §"Who may change where tokens go": who may change where a client's
 * tokens go), else -1 with insufficient_permission naming one it lacks,
 * or system_error. */
int store_grant_check_admin(struct store *st, const char *project_id, const char *scope,
                            struct api_error *err);

/* Deletes the role, client or user id of the project as
 * store_delete_record does (store.h: find, then remove, the statements of
 * its area; missing when find gives no row), refused as
 * store_grant_check_holder refuses, after missing and before the row
 * goes (docs/api.md §"No escalation"). ev (NULL: none) is recorded in its transaction. */
void store_grant_delete_holder(struct store *st, enum grant_holder holder, sqlite3_stmt *find,
                               sqlite3_stmt *remove, const struct record_missing *missing,
                               const char *id, const char *project_id, const char *scope,
                               const struct event *ev, struct completion done);

/* A refusal as both backends word it: kind "unknown" is
 * some_permissions_not_found; "role", "client" or "user" (what such a
 * holder holds), "permission" (what a write would grant) or "admin" (who
 * may change where a client's tokens go) is insufficient_permission naming
 * named, the permission the scope lacks. (The checks of schema/postgres/
 * answer these kinds.) Returns -1. */
int store_grant_refuse(const char *kind, const char *named, struct api_error *err);

/* Fails with some_permissions_not_found unless every ID names a permission
 * of the project. Returns 0 or -1. */
int store_permissions_check(struct store *st, const char *project_id,
                            const struct jbody_id_list *ids, struct api_error *err);

#endif
