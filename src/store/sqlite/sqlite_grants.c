/*
 * No escalation on SQLite (sqlite_grants.h; the rule: store_grants.h): each
 * check is one statement that finds a permission of a default resource the
 * caller's scope lacks, among the permissions a write would grant or a
 * record holds. Statements are prepared at open (sqlite_store.c); nothing here
 * writes.
 */
#include <assert.h>
#include <string.h>

#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_grants.h"

/* The holders' statements are indexed by enum grant_holder; then one for a
 * single permission ID, and one for all those of a project (?1). */
enum { GS_PERMISSION = GRANT_HOLDER__COUNT, GS_IN_PROJECT, GS_ADMIN, GS__COUNT };

/* Of the rows of pm and r that from selects (?1 its key), the first named
 * permission of a default resource that the scope ?2 does not carry, or
 * NULL. A scope is names joined by single spaces (store_join_column; RFC
 * 6749 §3.3), so a name is in it when " name " is in " scope ". min(), not
 * ORDER BY ... LIMIT 1: the same name, without opening a sorter on every
 * check, which cost a fifth of a create's check (docs/BENCHMARKS.md). */
#define LACKED_OF(from) \
	"SELECT min(" SQL_NAMED_PERMISSION ") FROM " from " AND r.is_default" \
	" AND instr(' ' || ?2 || ' ', ' ' || " SQL_NAMED_PERMISSION " || ' ') = 0"

static const char *const sql[GS__COUNT] = {
	[GRANT_HOLDER_ROLE] = LACKED_OF(SQL_ROLE_PERMISSIONS),
	[GRANT_HOLDER_CLIENT] = LACKED_OF(SQL_CLIENT_PERMISSIONS),
	[GRANT_HOLDER_USER] = LACKED_OF(SQL_USER_PERMISSIONS),
	[GS_IN_PROJECT] = "SELECT 1 FROM permissions WHERE id = ?1 AND project_id = ?2",
	[GS_PERMISSION] = LACKED_OF(
		"permissions pm JOIN resources r ON r.id = pm.resource_id WHERE pm.id = ?1"),
	[GS_ADMIN] = LACKED_OF(
		"permissions pm JOIN resources r ON r.id = pm.resource_id WHERE pm.project_id = ?1"),
};

const struct stmt_set store_grants_sql = { GS__COUNT, sql, NULL };

/* The kinds of refusal (store_grant_refuse), by statement. */
static const char *const kinds[GS__COUNT] = {
	[GRANT_HOLDER_ROLE] = "role", [GRANT_HOLDER_CLIENT] = "client",
	[GRANT_HOLDER_USER] = "user", [GS_PERMISSION] = "permission", [GS_ADMIN] = "admin",
};

/* Runs statement which for id: 0 when scope lacks nothing, else -1 with
 * insufficient_permission or system_error. */
static int check_one(struct store *st, int which, const char *scope, const char *id,
                     struct api_error *err)
{
	sqlite3_stmt *s = sqlite_of(st)->grants.stmt[which];
	int rc;

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, scope);
	rc = store_step(st, s, err);
	if (rc == 1 && sqlite3_column_type(s, 0) != SQLITE_NULL)
		rc = store_grant_refuse(kinds[which], store_column_text(s, 0), err);
	else if (rc == 1)
		rc = 0;   /* NULL: nothing lacked */
	else if (rc == 0)
		rc = store_fail(st, err, "grant check");   /* an aggregate has its row */
	store_stmt_finish(s);
	return rc;
}

int sqlite_grant_check_ids(struct store *st, const char *project_id, const char *scope,
                          const struct jbody_id_list *ids, struct api_error *err)
{
	if (!ids)
		return 0;
	if (sqlite_permissions_check(st, project_id, ids, err) < 0)
		return -1;
	if (!scope)
		return 0;
	for (size_t i = 0; i < ids->count; i++)
		if (check_one(st, GS_PERMISSION, scope, ids->ids[i], err) < 0)
			return -1;
	return 0;
}

int sqlite_grant_check_holder(struct store *st, const char *scope, enum grant_holder holder,
                             const char *id, struct api_error *err)
{
	assert(id);
	if (!scope)
		return 0;
	return check_one(st, (int)holder, scope, id, err);
}

int sqlite_grant_check_admin(struct store *st, const char *project_id, const char *scope,
                            struct api_error *err)
{
	if (!scope)
		return 0;
	return check_one(st, GS_ADMIN, scope, project_id, err);
}

/* The delete's check: check_arg is the struct holder_delete. */
struct holder_delete {
	const char *scope;
	enum grant_holder holder;
};

static int check_deletable(struct store *st, const char *id, const void *check_arg,
                           struct api_error *err)
{
	const struct holder_delete *h = check_arg;

	return sqlite_grant_check_holder(st, h->scope, h->holder, id, err);
}

void sqlite_grant_delete_holder(struct store *st, enum grant_holder holder, sqlite3_stmt *find,
                               sqlite3_stmt *remove, const struct record_missing *missing,
                               const char *id, const char *project_id, const char *scope,
                               const struct event *ev, struct completion done)
{
	const struct holder_delete h = { scope, holder };
	const struct record_delete d = {
		.find = find, .remove = remove, .missing = *missing, .check = check_deletable,
		.check_arg = &h, .event = ev,
	};

	store_delete_record(st, &d, id, project_id, done);
}

int sqlite_permissions_check(struct store *st, const char *project_id,
                            const struct jbody_id_list *ids, struct api_error *err)
{
	sqlite3_stmt *s = sqlite_of(st)->grants.stmt[GS_IN_PROJECT];

	for (size_t i = 0; i < ids->count; i++) {
		int found = store_exists(st, s, ids->ids[i], project_id, NULL, err);

		if (found < 0)
			return -1;
		if (!found)
			return store_grant_refuse("unknown", NULL, err);
	}
	return 0;
}
