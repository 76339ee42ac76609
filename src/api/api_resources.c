/*
 * The resources endpoints (docs/api.md §"Resources", docs/api.md §"Permissions and default resources", §"Conventions", §"Records").
 * Every body and query check runs here, before the store is asked anything,
 * so that invalid_params wins over *_not_found and *_already_used. Never
 * echoes a value from the request in an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_records.h"
#include "api_resources.h"
#include "form.h"
#include "jbody.h"
#include "list_params.h"
#include "request.h"
#include "store_resources.h"
#include "util.h"
#include "validate.h"

static const struct str_rule rule_name = { "name", true, 0, NAME_MAX_CHARS, CHECK_NONE };
/* docs/api.md §"Resources": on create a code is alphanumeric, dash, underscore; on update
 * only its length is checked. */
static const struct str_rule rule_code_create = { "code", true, 0, CODE_MAX_CHARS, CHECK_CODE };
static const struct str_rule rule_code_update = { "code", true, 0, CODE_MAX_CHARS, CHECK_NONE };
static const struct str_rule rule_description =
	{ "description", false, 0, DESCRIPTION_MAX_CHARS, CHECK_NONE };
/* docs/api.md §"Records": a permission item's name is 1..50, its code as a resource
 * code on create (it becomes half of a named permission in a token's
 * space-separated scope, on update too), its description up to 200. */
static const struct str_rule rule_item_name = { "name", true, 1, NAME_MAX_CHARS, CHECK_NONE };
static const struct str_rule rule_item_code = { "code", true, 0, CODE_MAX_CHARS, CHECK_CODE };

/* Rewrites err's sentence to say which item of permissions it is about. */
static int item_fail(struct api_error *err, size_t i)
{
	char sentence[API_ERROR_DESCRIPTION_MAX];

	snprintf(sentence, sizeof sentence, "%s", err->description);
	return api_fail(err, E_INVALID_PARAMS, "permissions[%zu]: %s", i, sentence);
}

/* An item's "id" on update: absent or null is a new permission; otherwise a
 * non-empty string of at most ID_MAX_CHARS. */
static int item_read_id(const json_t *item, const char **out, struct api_error *err)
{
	const json_t *v = json_object_get(item, "id");

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    utf8_chars(json_string_value(v)) > ID_MAX_CHARS)
		return api_fail(err, E_INVALID_PARAMS,
		                "id must be a permission ID (a string of 1 to %d characters)",
		                ID_MAX_CHARS);
	*out = json_string_value(v);
	return 0;
}

/* Reads item i of "permissions"; with_id on update only (create ignores an
 * "id", a field of the record: resources_create_names). */
static int item_read(const json_t *item, size_t i, bool with_id, struct permission_input *out,
                     struct api_error *err)
{
	struct str_field name, code;

	if (!json_is_object(item))
		return api_fail(err, E_INVALID_PARAMS, "permissions[%zu] must be an object", i);
	if (jbody_read_string(item, &rule_item_name, &name, err) < 0 ||
	    jbody_read_string(item, &rule_item_code, &code, err) < 0 ||
	    jbody_read_string(item, &rule_description, &out->description, err) < 0 ||
	    (with_id && item_read_id(item, &out->id, err) < 0))
		return item_fail(err, i);
	out->name = name.value;
	out->code = code.value;
	return 0;
}

/* Fails when item i repeats the code or the ID of an earlier item: codes are
 * unique within a resource, and one permission cannot be two items. */
static int item_check_unique(const struct resource_input *in, size_t i, struct api_error *err)
{
	const struct permission_input *p = &in->permissions[i];

	for (size_t j = 0; j < i; j++) {
		const struct permission_input *q = &in->permissions[j];
		if (strcmp(p->code, q->code) == 0)
			return api_fail(err, E_INVALID_PARAMS,
			                "permissions[%zu]: code is used by an earlier permission", i);
		if (p->id && q->id && strcmp(p->id, q->id) == 0)
			return api_fail(err, E_INVALID_PARAMS,
			                "permissions[%zu]: id is used by an earlier permission", i);
	}
	return 0;
}

/* "permissions": absent keeps the stored set (update); null or [] is an
 * empty set; else an array of at most RESOURCE_PERMISSIONS_MAX items. */
static int permissions_read(const json_t *body, bool with_id, struct resource_input *in,
                            struct api_error *err)
{
	const json_t *v = json_object_get(body, "permissions");
	size_t n;

	in->permissions_present = v != NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return api_fail(err, E_INVALID_PARAMS, "permissions must be an array of objects");
	n = json_array_size(v);
	if (n > RESOURCE_PERMISSIONS_MAX)
		return api_fail(err, E_INVALID_PARAMS, "permissions must hold at most %d items",
		                RESOURCE_PERMISSIONS_MAX);
	in->permissions = xcalloc(n ? n : 1, sizeof *in->permissions);
	for (size_t i = 0; i < n; i++) {
		if (item_read(json_array_get(v, i), i, with_id, &in->permissions[i], err) < 0 ||
		    item_check_unique(in, i, err) < 0)
			return -1;
		in->n_permissions = i + 1;
	}
	return 0;
}

/* docs/api.md §"Records": the resource record and its permission items,
 * whose other fields a body may carry back (ignored): an item's id on
 * create, is_default. */
static const char *const resource_record[] = {
	"id", "name", "code", "description", "is_default", "permissions", "created_at",
	"updated_at", NULL,
};
static const char *const permission_record[] = { "id", "name", "code", "description", NULL };
static const char *const resource_taken[] = { "name", "code", "description", "permissions", NULL };
static const struct input_names item_create_names = {
	.taken = (const char *const[]){ "name", "code", "description", NULL },
	.ignored = permission_record,
};
static const struct input_names item_update_names = { .taken = permission_record };
const struct input_names resources_create_names = {
	.taken = resource_taken, .ignored = resource_record,
	.items_key = "permissions", .items = &item_create_names,
};
const struct input_names resources_update_names = {
	.taken = resource_taken, .ignored = resource_record,
	.items_key = "permissions", .items = &item_update_names,
};
const char *const resources_list_query[] = { LIST_QUERY_NAMES, "is_default", NULL };

int resources_read_body(const json_t *body, bool is_update, struct resource_input *in,
                        struct api_error *err)
{
	struct str_field name, code;

	memset(in, 0, sizeof *in);
	if (jbody_read_string(body, &rule_name, &name, err) < 0 ||
	    jbody_read_string(body, is_update ? &rule_code_update : &rule_code_create, &code,
	                     err) < 0 ||
	    jbody_read_string(body, &rule_description, &in->description, err) < 0 ||
	    permissions_read(body, is_update, in, err) < 0)
		return -1;
	in->name = name.value;
	in->code = code.value;
	return 0;
}

void resources_input_release(struct resource_input *in)
{
	free(in->permissions);
	in->permissions = NULL;
	in->n_permissions = 0;
}

/* A create or update: the body read, and the record written. */
struct resource_write {
	struct resource_input in;
	char *record;
};

static void resource_write_release(void *p)
{
	struct resource_write *w = p;

	resources_input_release(&w->in);
	free(w->record);
}

static enum step_result body_read(struct flow *f, bool is_update)
{
	struct request_ctx *ctx = request_of(f);
	struct resource_write *w = request_state(ctx, sizeof *w, resource_write_release);
	struct api_error err;

	if (resources_read_body(ctx->body, is_update, &w->in, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

/* POST creates, PUT updates. */
static enum step_result write_read(struct flow *f)
{
	return body_read(f, request_of(f)->http.method == EVHTTP_REQ_PUT);
}

static enum step_result create(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct resource_write *w = ctx->state;

	store_resource_create(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"), &w->in,
	                      &w->record, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result update(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct resource_write *w = ctx->state;

	store_resource_update(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"),
	                      request_param(ctx, "resource_id"), &w->in, &w->record,
	                      flow_completion(f));
	return STEP_WAIT;
}

/* The record as written: 201 for a create, 200 for an update. */
static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *record = ((struct resource_write *)ctx->state)->record;

	http_reply_raw(ctx, ctx->http.method == EVHTTP_REQ_POST ? 201 : 200, "application/json", record,
	               strlen(record));
	return STEP_DONE;
}

flow_step *const resources_create_steps[] = { write_read, create, written, NULL };
flow_step *const resources_update_steps[] = { write_read, update, written, NULL };

/* docs/api.md §"Lists": resources are listed oldest first; there is no sort_by,
 * so sort parameters are not read. */
static enum step_result list_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct list_state *l = request_state(ctx, sizeof *l, list_state_release);
	struct api_error err;

	l->q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, NULL, 0, &l->q, &err) < 0 ||
	    form_read_bool(&ctx->query, "is_default", &l->q.is_default, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result list(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct list_state *l = ctx->state;

	store_resource_list(ctx->http.srv->store, request_param(ctx, "project_id"), &l->q, &l->page,
	                    flow_completion(f));
	return STEP_WAIT;
}

flow_step *const resources_list_steps[] = { list_read, list, list_answer, NULL };

/* ---- one resource: GET and DELETE (docs/api.md §"Read one and delete") ---- */

static enum step_result get(struct flow *f)
{
	return record_get(f, store_resource_get, "resource_id");
}

flow_step *const resources_get_steps[] = { get, record_answer, NULL };

/* A resource holds no grants, so no escalation rule applies: the route's
 * resources:update is all it takes. */
static enum step_result delete(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_resource_delete(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"),
	                      request_param(ctx, "resource_id"), flow_completion(f));
	return STEP_WAIT;
}

flow_step *const resources_delete_steps[] = { delete, record_deleted, NULL };

/* ---- the write steps, for the console (api_resources.h) ---- */

enum step_result resources_create_read(struct flow *f) { return body_read(f, false); }
enum step_result resources_update_read(struct flow *f) { return body_read(f, true); }
enum step_result resources_create_store(struct flow *f) { return create(f); }
enum step_result resources_update_store(struct flow *f) { return update(f); }

const char *resources_write_record(struct request_ctx *ctx)
{
	return ((struct resource_write *)ctx->state)->record;
}
