/*
 * The roles endpoints (docs/api.md §"Roles"): create, update and list
 * the roles of the project in the path. The router has already checked the
 * token, the project and the permission; this file checks the body or query
 * (invalid_params) and leaves references, the caller's authority over the
 * permissions (no escalation) and conflicts to store_roles.c.
 */
#include <stdlib.h>
#include <string.h>

#include "api_records.h"
#include "api_roles.h"
#include "jbody.h"
#include "list_params.h"
#include "request.h"
#include "store_roles.h"
#include "validate.h"

/* sort_by values, in enum role_sort's order; the first is the default. */
static const char *const sort_keys[ROLE_SORT__COUNT] = {
	[ROLE_SORT_CREATED_AT] = "created_at",
	[ROLE_SORT_UPDATED_AT] = "updated_at",
	[ROLE_SORT_NAME] = "name",
	[ROLE_SORT_CODE] = "code",
};

/* docs/api.md §"Roles": create and update take the same fields and limits. */
static const struct str_rule code_rule = {
	.key = "code", .required = true, .max_chars = CODE_MAX_CHARS, .check = CHECK_CODE,
};
static const struct str_rule name_rule = {
	.key = "name", .required = true, .max_chars = NAME_MAX_CHARS,
};
static const struct str_rule description_rule = {
	.key = "description", .max_chars = DESCRIPTION_MAX_CHARS,
};

/* docs/api.md §"Records": the role record, whose other fields a body may
 * carry back (ignored). */
static const char *const role_record[] = {
	"id", "code", "name", "description", "permission_ids", "requires_second_factor",
	"created_at", "updated_at", NULL,
};
const struct input_names roles_write_names = {
	.taken = (const char *const[]){ "code", "name", "description", "permission_ids",
	                                "requires_second_factor", NULL },
	.ignored = role_record,
};
const char *const roles_list_query[] = { LIST_QUERY_NAMES, LIST_SORT_NAMES, NULL };

int roles_read_body(const json_t *body, struct role_fields *f, struct jbody_id_list *ids,
                    struct api_error *err)
{
	struct str_field code, name;
	int second_factor = -1;

	if (jbody_read_string(body, &code_rule, &code, err) < 0 ||
	    jbody_read_string(body, &name_rule, &name, err) < 0 ||
	    jbody_read_string(body, &description_rule, &f->description, err) < 0 ||
	    jbody_read_id_list(body, "permission_ids", ROLE_PERMISSION_IDS_MAX, ids, err) < 0 ||
	    jbody_read_bool(body, "requires_second_factor", false, &second_factor, err) < 0)
		return -1;
	f->set_second_factor = second_factor >= 0;
	f->requires_second_factor = second_factor == 1;
	f->code = code.value;
	f->name = name.value;
	f->permission_ids = ids;
	return 0;
}

/* A create or update: the body read, and the record written. */
struct role_write {
	struct role_fields f;
	struct jbody_id_list ids;
	char *record;
};

static void role_write_release(void *p)
{
	struct role_write *w = p;

	jbody_id_list_release(&w->ids);
	free(w->record);
}

/* docs/api.md §"Which error wins": invalid_params before role_not_found. */
enum step_result roles_write_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct role_write *w = request_state(ctx, sizeof *w, role_write_release);
	struct api_error err;

	if (roles_read_body(ctx->body, &w->f, &w->ids, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

enum step_result roles_create_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct role_write *w = ctx->state;

	store_role_create(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"), &w->f,
	                  ctx->principal.scope, &w->record, flow_completion(f));
	return STEP_WAIT;
}

enum step_result roles_update_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct role_write *w = ctx->state;

	store_role_update(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"),
	                  request_param(ctx, "role_id"), &w->f, ctx->principal.scope, &w->record,
	                  flow_completion(f));
	return STEP_WAIT;
}

/* The record as written: 201 for a create, 200 for an update. */
static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *record = ((struct role_write *)ctx->state)->record;

	http_reply_raw(ctx, ctx->http.method == EVHTTP_REQ_POST ? 201 : 200, "application/json", record,
	               strlen(record));
	return STEP_DONE;
}

const char *roles_write_record(struct request_ctx *ctx)
{
	return ((struct role_write *)ctx->state)->record;
}

flow_step *const roles_create_steps[] = { roles_write_read, roles_create_store, written, NULL };
flow_step *const roles_update_steps[] = { roles_write_read, roles_update_store, written, NULL };

static enum step_result list_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct list_state *l = request_state(ctx, sizeof *l, list_state_release);
	struct api_error err;

	l->q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, sort_keys, ROLE_SORT__COUNT, &l->q, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result list(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct list_state *l = ctx->state;

	store_role_list(ctx->http.srv->store, request_param(ctx, "project_id"), &l->q, &l->page,
	                flow_completion(f));
	return STEP_WAIT;
}

flow_step *const roles_list_steps[] = { list_read, list, list_answer, NULL };

/* ---- one role: GET and DELETE (docs/api.md §"Read one and delete") ---- */

static enum step_result get(struct flow *f)
{
	return record_get(f, store_role_get, "role_id");
}

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_role_delete, "role_id");
}

flow_step *const roles_get_steps[] = { get, record_answer, NULL };
flow_step *const roles_delete_steps[] = { delete, record_deleted, NULL };
