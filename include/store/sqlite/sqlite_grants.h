#ifndef EDGEAUTH_SQLITE_GRANTS_H
#define EDGEAUTH_SQLITE_GRANTS_H
/*
 * No escalation on SQLite (the rule: store_grants.h). The SQLite writes of
 * roles, clients, users and codes run these inside their transaction, after
 * their *_not_found checks and before their conflicts, so what is checked
 * is what is written. A delete calls sqlite_grant_check_holder on the
 * record it removes. (PostgreSQL's writes make the same checks in their
 * statements: schema/postgres/010_grants.sql.) Only the SQLite backend's
 * files include this.
 *
 * scope is the caller's, as store_grants.h says; NULL means no limit.
 */
#include "error.h"
#include "jbody.h"
#include "sqlite_stmt.h"
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
int sqlite_grant_check_ids(struct store *st, const char *project_id, const char *scope,
                           const struct jbody_id_list *ids, struct api_error *err);

/* 0 when scope carries every default-resource permission that the role,
 * client or user id holds (none when there is no such record), else -1 with
 * insufficient_permission naming one it lacks, or system_error. */
int sqlite_grant_check_holder(struct store *st, const char *scope, enum grant_holder holder,
                              const char *id, struct api_error *err);

/* 0 when scope carries all twelve named permissions of the project's
 * default resources (docs/signin.md §"Who may change where tokens go": who may change where a client's
 * tokens go), else -1 with insufficient_permission naming one it lacks,
 * or system_error. */
int sqlite_grant_check_admin(struct store *st, const char *project_id, const char *scope,
                             struct api_error *err);

/* Deletes the role, client or user id of the project as
 * store_delete_record does (store.h: find, then remove, the statements of
 * its area; missing when find gives no row), refused as
 * sqlite_grant_check_holder refuses, after missing and before the row
 * goes (docs/api.md §"No escalation"). ev (NULL: none) is recorded in its transaction. */
void sqlite_grant_delete_holder(struct store *st, enum grant_holder holder, sqlite3_stmt *find,
                                sqlite3_stmt *remove, const struct record_missing *missing,
                                const char *id, const char *project_id, const char *scope,
                                const struct event *ev, struct completion done);

/* Fails with some_permissions_not_found unless every ID names a permission
 * of the project. Returns 0 or -1. */
int sqlite_permissions_check(struct store *st, const char *project_id,
                             const struct jbody_id_list *ids, struct api_error *err);

#endif
