/*
 * The roles endpoints (SPEC.md "Role endpoints"): create, update and list
 * the roles of the project in the path. The router has already checked the
 * token, the project and the permission; this file checks the body or query
 * (invalid_params) and leaves references, the caller's authority over the
 * permissions (no escalation) and conflicts to store_roles.c.
 */
#include "api_roles.h"
#include "json_util.h"
#include "listing.h"
#include "store_roles.h"
#include "validate.h"

/* sort_by values, in enum role_sort's order; the first is the default. */
static const char *const sort_keys[ROLE_SORT__COUNT] = {
	[ROLE_SORT_CREATED_AT] = "created_at",
	[ROLE_SORT_UPDATED_AT] = "updated_at",
	[ROLE_SORT_NAME] = "name",
	[ROLE_SORT_CODE] = "code",
};

/* SPEC.md "Role": create and update take the same fields and limits. */
static const struct str_rule code_rule = {
	.key = "code", .required = true, .max_chars = CODE_MAX_CHARS, .check = CHECK_CODE,
};
static const struct str_rule name_rule = {
	.key = "name", .required = true, .max_chars = NAME_MAX_CHARS,
};
static const struct str_rule description_rule = {
	.key = "description", .max_chars = DESCRIPTION_MAX_CHARS,
};

int roles_read_body(const json_t *body, struct role_fields *f, struct id_list *ids,
                    struct api_error *err)
{
	struct str_field code, name;

	if (json_read_string(body, &code_rule, &code, err) < 0 ||
	    json_read_string(body, &name_rule, &name, err) < 0 ||
	    json_read_string(body, &description_rule, &f->description, err) < 0 ||
	    json_read_id_list(body, "permission_ids", ROLE_PERMISSION_IDS_MAX, ids, err) < 0)
		return -1;
	f->code = code.value;
	f->name = name.value;
	f->permission_ids = ids;
	return 0;
}

/* Answers rec with status, or the error when rec is NULL. */
static void role_reply(struct request_ctx *ctx, int status, json_t *rec,
                       const struct api_error *err)
{
	if (rec)
		http_reply_json(ctx, status, rec);
	else
		http_reply_error(ctx, err);
}

void roles_create(struct request_ctx *ctx)
{
	struct api_error err;
	struct id_list ids = ID_LIST_INIT;
	struct role_fields f;
	json_t *rec = NULL;

	if (roles_read_body(ctx->body, &f, &ids, &err) == 0)
		rec = store_role_create(ctx->srv->store, request_param(ctx, "project_id"), &f,
		                        ctx->principal.scope, &err);
	id_list_release(&ids);
	role_reply(ctx, 201, rec, &err);
}

void roles_update(struct request_ctx *ctx)
{
	struct api_error err;
	struct id_list ids = ID_LIST_INIT;
	struct role_fields f;
	json_t *rec = NULL;

	/* CONTRACT.md §3: invalid_params before role_not_found. */
	if (roles_read_body(ctx->body, &f, &ids, &err) == 0)
		rec = store_role_update(ctx->srv->store, request_param(ctx, "project_id"),
		                        request_param(ctx, "role_id"), &f, ctx->principal.scope,
		                        &err);
	id_list_release(&ids);
	role_reply(ctx, 200, rec, &err);
}

void roles_list(struct request_ctx *ctx)
{
	struct api_error err;
	struct list_params p = LIST_PARAMS_INIT;
	struct role_query q;
	json_t *data = NULL;
	long long total = 0;

	if (list_read_params(&ctx->query, sort_keys, ROLE_SORT__COUNT, &p, &err) == 0) {
		q.sort = (enum role_sort)p.sort;
		q.desc = p.desc;
		q.like = p.like;
		q.limit = p.page_size;
		q.offset = list_params_offset(&p);
		data = store_role_list(ctx->srv->store, request_param(ctx, "project_id"), &q,
		                       &total, &err);
	}
	if (data)
		http_reply_json(ctx, 200, list_response(data, &p, total));
	else
		http_reply_error(ctx, &err);
	list_params_release(&p);
}
