#ifndef EDGEAUTH_STORE_GRANTS_H
#define EDGEAUTH_STORE_GRANTS_H
/*
 * No escalation (docs/api.md §"No escalation"): through the management API a caller may
 * grant, and may touch a record holding, only those permissions of the four
 * default resources (resources, users, roles, clients) that its own token
 * carries. A project's own resources' permissions (orders:read) are free.
 *
 * Each backend checks inside the write it refuses, so what is checked is
 * what is written: SQLite with the checks of sqlite_grants.h, run in the
 * write's transaction; PostgreSQL in each write's statement
 * (schema/postgres/010_grants.sql: edgeauth_check_*). Both word a refusal
 * here, once.
 *
 * scope is the caller's: its token's space-separated named permissions
 * (struct principal). NULL means no limit; only callers that are not the
 * management API pass it (unit tests; a user's own profile, PUT
 * /api/v1/users/current, which cannot change a role).
 */
#include "error.h"

/* A refusal as both backends word it: kind "unknown" is
 * some_permissions_not_found; "role", "client" or "user" (what such a
 * holder holds), "permission" (what a write would grant) or "admin" (who
 * may change where a client's tokens go) is insufficient_permission naming
 * named, the permission the scope lacks (NULL: "a permission"). (The
 * checks of schema/postgres/ answer these kinds.) Returns -1. */
int store_grant_refuse(const char *kind, const char *named, struct api_error *err);

#endif
