/*
 * Resources on PostgreSQL (pg_resources.h). Every write is one call of a
 * function of schema/postgres/015_resources_roles.sql that checks, writes
 * and answers the record; every read is one statement.
 */
#include <stdlib.h>
#include <jansson.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_resources.h"
#include "store_pg.h"

enum { PR_CREATE, PR_UPDATE, PR_GET, PR_DELETE, PR_LIST, PR__COUNT };

/* $1 the project, $2 is_default or NULL, $3 the search term or NULL, found
 * in the text of the resource or of one of its permissions. */
#define SEARCH(col) PG_SQL_CONTAINS(col, "$3::ctext")
#define LIST_FILTER \
	" WHERE r.project_id = $1 AND ($2::boolean IS NULL OR r.is_default = $2::boolean)" \
	" AND ($3::ctext IS NULL OR" SEARCH("r.name") " OR" SEARCH("r.code") " OR" \
	SEARCH("r.description") " OR EXISTS (SELECT 1 FROM permissions sp" \
	" WHERE sp.resource_id = r.id AND (" SEARCH("sp.name") " OR" SEARCH("sp.code") " OR" \
	SEARCH("sp.description") ")))"

static const struct pg_statement statements[PR__COUNT] = {
	[PR_CREATE] = { "resources_create",
		"SELECT * FROM edgeauth_resource_create($1, $2, $3, $4, $5, $6, $7)", 7, true },
	[PR_UPDATE] = { "resources_update",
		"SELECT * FROM edgeauth_resource_update($1, $2, $3, $4, $5, $6, $7, $8)", 8, true },
	[PR_GET] = { "resources_get", "SELECT edgeauth_resource_json(r)::text FROM resources r"
		" WHERE r.id = $1 AND r.project_id = $2", 2, false },
	[PR_DELETE] = { "resources_delete", "SELECT * FROM edgeauth_resource_delete($1, $2, $3)",
		3, true },
	/* The number of all matches and the page's records, oldest first, ties
	 * by ID (RS_LIST's order). */
	[PR_LIST] = { "resources_list", PG_SQL_PAGE("resources", LIST_FILTER,
		"edgeauth_resource_json(r)", "r.created_at, r.id", "$4", "$5"), 5, false },
};

const struct pg_statement_set pg_resources_statements = { statements, PR__COUNT };

/* What the writes answer: resource_not_found, or one of these. */
static const struct pg_outcomes *resource_outcomes(void)
{
	static const struct pg_conflict conflicts[] = {
		{ "code_taken", E_RESOURCE_CODE_ALREADY_USED, RESOURCE_CODE_TAKEN },
		{ "permission_code_taken", E_INVALID_PARAMS, RESOURCE_PERMISSION_CODE_TAKEN },
		{ "foreign_permission", E_INVALID_PARAMS, RESOURCE_FOREIGN_PERMISSION },
		{ "default_update", E_INVALID_PARAMS, RESOURCE_DEFAULT_UPDATE },
		{ "default_delete", E_INVALID_PARAMS, RESOURCE_DEFAULT_DELETE },
	};
	static struct pg_outcomes o;

	o = (struct pg_outcomes){ store_resource_missing, conflicts,
	                          sizeof conflicts / sizeof conflicts[0] };
	return &o;
}

/* The permission items of in as the write functions take them
 * (edgeauth_permission_items): an item without an ID is a new permission,
 * given a new ID here. NULL when in keeps the stored permissions. Caller
 * frees. */
static char *items_json(const struct resource_input *in)
{
	json_t *a;
	char *text;

	if (!in->permissions_present)
		return NULL;
	a = json_array();
	for (size_t i = 0; i < in->n_permissions; i++) {
		const struct permission_input *p = &in->permissions[i];
		char *id = p->id ? NULL : crypto_new_id();

		json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:s, s:s?, s:b, s:I}",
			"id", p->id ? p->id : id, "is_new", !p->id, "name", p->name, "code", p->code,
			"description", p->description.value,
			"keep_description", p->description.state == FIELD_ABSENT,
			"position", (json_int_t)i));
		free(id);
	}
	text = json_dumps(a, JSON_COMPACT);   /* jansson allocates with xmalloc */
	json_decref(a);
	return text;
}

static void pg_resource_create(struct store *st, const struct event_origin *by,
                               const char *project_id, const struct resource_input *in, char **out,
                               struct completion done)
{
	char *id = crypto_new_id(), *items = items_json(in);
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_RESOURCE_CREATE, id, NULL });

	*out = NULL;
	pg_run(st, &statements[PR_CREATE], (const char *const[]){
		project_id, id, in->name, in->code, in->description.value, items, ev },
		pg_map_outcome, out, resource_outcomes(), done);
	free(id);
	free(items);
	free(ev);
}

static void pg_resource_update(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *resource_id,
                               const struct resource_input *in, char **out, struct completion done)
{
	char *items = items_json(in);
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_RESOURCE_UPDATE,
	                                          resource_id, NULL });

	*out = NULL;
	pg_run(st, &statements[PR_UPDATE], (const char *const[]){
		project_id, resource_id, in->name, in->code,
		pg_bool_param(in->description.state == FIELD_ABSENT), in->description.value, items,
		ev }, pg_map_outcome, out, resource_outcomes(), done);
	free(items);
	free(ev);
}

static void pg_resource_get(struct store *st, const char *project_id, const char *resource_id,
                            char **out, struct completion done)
{
	pg_run(st, &statements[PR_GET], (const char *const[]){ resource_id, project_id },
	       pg_map_record, out, store_resource_missing, done);
}

static void pg_resource_remove(struct store *st, const struct event_origin *by,
                               const char *project_id, const char *resource_id,
                               struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_RESOURCE_DELETE,
	                                          resource_id, NULL });

	pg_run(st, &statements[PR_DELETE], (const char *const[]){ project_id, resource_id, ev },
	       pg_map_outcome, NULL, resource_outcomes(), done);
	free(ev);
}

static void pg_resource_list(struct store *st, const char *project_id, const struct list_query *q,
                             struct page *out, struct completion done)
{
	char size[24], offset[24];

	pg_run(st, &statements[PR_LIST], (const char *const[]){ project_id,
	       q->is_default < 0 ? NULL : pg_bool_param(q->is_default), q->search,
	       pg_int_param(q->page_size, size), pg_int_param(list_offset(q), offset) },
	       pg_map_page, out, NULL, done);
}

const struct store_resources_ops pg_resources_ops = {
	.create = pg_resource_create,
	.update = pg_resource_update,
	.get = pg_resource_get,
	.remove = pg_resource_remove,
	.list = pg_resource_list,
};
