/*
 * Roles on PostgreSQL (store_roles_ops, store_backend.h). Every write is
 * one call of a function of schema/postgres/015_resources_roles.sql that
 * checks (no escalation included), writes and answers the record; every
 * read is one statement.
 */
#include <assert.h>
#include <stdlib.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_roles.h"
#include "store_pg.h"

enum {
	PR_CREATE,
	PR_UPDATE,
	PR_GET,
	PR_DELETE,
	PR_LIST,   /* first of the list variants: PR_LIST + 2 * sort + desc */
	PR__COUNT = PR_LIST + 2 * ROLE_SORT__COUNT
};

/* $1 the project, $2 a search term or NULL (docs/api.md §"Lists": in the code,
 * name or description). */
#define LIST_FILTER \
	" WHERE project_id = $1 AND ($2::ctext IS NULL OR" PG_SQL_CONTAINS("code", "$2::ctext") \
	" OR" PG_SQL_CONTAINS("name", "$2::ctext") " OR" PG_SQL_CONTAINS("description", "$2::ctext") \
	")"
/* The number of all matches and the page's records, ties broken by id in
 * the sort's direction (ROLE_LIST's order, src/store/store_roles.c). */
#define LIST(name, order) \
	{ "roles_list_" name, \
	  PG_SQL_PAGE("roles", LIST_FILTER, "edgeauth_role_json(r)", order, "$3", "$4"), 4, false }
#define LIST_PAIR(key, name, col) \
	[PR_LIST + 2 * (key)] = LIST(name, col ", id"), \
	[PR_LIST + 2 * (key) + 1] = LIST(name "_desc", col " DESC, id DESC")

static const struct pg_statement statements[PR__COUNT] = {
	[PR_CREATE] = { "roles_create",
		"SELECT * FROM edgeauth_role_create($1, $2, $3, $4, $5, $6, $7, $8, $9)", 9, true },
	[PR_UPDATE] = { "roles_update",
		"SELECT * FROM edgeauth_role_update($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
		10, true },
	[PR_GET] = { "roles_get", "SELECT edgeauth_role_json(r)::text FROM roles r"
		" WHERE r.id = $1 AND r.project_id = $2", 2, false },
	[PR_DELETE] = { "roles_delete", "SELECT * FROM edgeauth_role_delete($1, $2, $3, $4)", 4,
		true },
	LIST_PAIR(ROLE_SORT_CREATED_AT, "created_at", "created_at"),
	LIST_PAIR(ROLE_SORT_UPDATED_AT, "updated_at", "updated_at"),
	LIST_PAIR(ROLE_SORT_NAME, "name", "lower(name)"),
	LIST_PAIR(ROLE_SORT_CODE, "code", "lower(code)"),
};

const struct pg_statement_set pg_roles_statements = { statements, PR__COUNT };

/* What the writes answer: role_not_found, a refusal (store_pg.h), or a
 * taken code. */
static const struct pg_outcomes *role_outcomes(void)
{
	static const struct pg_conflict conflicts[] = {
		{ "code_taken", E_ROLE_CODE_ALREADY_USED, ROLE_CODE_TAKEN },
	};
	static struct pg_outcomes o;

	o = (struct pg_outcomes){ store_role_missing, conflicts, 1 };
	return &o;
}

/* The permission IDs a write gives, as the statements take them: NULL when
 * the body left them out (create: none; update: keep them). Caller frees. */
static char *given_ids(const struct role_fields *f)
{
	return f->permission_ids && f->permission_ids->present ? pg_json_ids(f->permission_ids)
	                                                        : NULL;
}

static void pg_role_create(struct store *st, const struct event_origin *by, const char *project_id,
                           const struct role_fields *f, const char *scope, char **out,
                           struct completion done)
{
	char *id = crypto_new_id(), *ids = given_ids(f);
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_ROLE_CREATE, id, NULL });

	*out = NULL;
	pg_run(st, &statements[PR_CREATE], (const char *const[]){
		project_id, id, f->code, f->name, f->description.value, ids, scope, ev,
		pg_bool_param(f->set_second_factor && f->requires_second_factor) },
		pg_map_outcome, out, role_outcomes(), done);
	free(id);
	free(ids);
	free(ev);
}

static void pg_role_update(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *role_id, const struct role_fields *f, const char *scope,
                           char **out, struct completion done)
{
	char *ids = given_ids(f);
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_ROLE_UPDATE, role_id,
	                                          NULL });

	*out = NULL;
	pg_run(st, &statements[PR_UPDATE], (const char *const[]){
		project_id, role_id, f->code, f->name,
		pg_bool_param(f->description.state == FIELD_ABSENT), f->description.value, ids,
		scope, ev, f->set_second_factor ? pg_bool_param(f->requires_second_factor) : NULL },
		pg_map_outcome, out, role_outcomes(), done);
	free(ids);
	free(ev);
}

static void pg_role_get(struct store *st, const char *project_id, const char *role_id, char **out,
                        struct completion done)
{
	pg_run(st, &statements[PR_GET], (const char *const[]){ role_id, project_id },
	       pg_map_record, out, store_role_missing, done);
}

static void pg_role_remove(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *role_id, const char *scope, struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_ROLE_DELETE, role_id,
	                                          NULL });

	pg_run(st, &statements[PR_DELETE], (const char *const[]){ project_id, role_id, scope, ev },
	       pg_map_outcome, NULL, role_outcomes(), done);
	free(ev);
}

static void pg_role_list(struct store *st, const char *project_id, const struct list_query *q,
                         struct page *out, struct completion done)
{
	char size[24], offset[24];

	assert(q->sort < ROLE_SORT__COUNT);   /* an index into api_roles.c's sort_by values */
	pg_run(st, &statements[PR_LIST + 2 * (int)q->sort + (q->desc ? 1 : 0)],
	       (const char *const[]){ project_id, q->search, pg_int_param(q->page_size, size),
	       pg_int_param(list_offset(q), offset) }, pg_map_page, out, NULL, done);
}

const struct store_roles_ops pg_roles_ops = {
	.create = pg_role_create,
	.update = pg_role_update,
	.get = pg_role_get,
	.remove = pg_role_remove,
	.list = pg_role_list,
};
