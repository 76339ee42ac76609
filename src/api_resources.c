/*
 * The resources endpoints (SPEC.md "Resource endpoints", CONTRACT.md §2-§4).
 * Every body and query check runs here, before the store is asked anything,
 * so that invalid_params wins over *_not_found and *_already_used. Never
 * echoes a value from the request in an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_resources.h"
#include "form.h"
#include "json_util.h"
#include "listing.h"
#include "store_resources.h"
#include "util.h"
#include "validate.h"

static const struct str_rule rule_name = { "name", true, 0, NAME_MAX_CHARS, CHECK_NONE };
/* SPEC.md: on create a code is alphanumeric, dash, underscore; on update
 * only its length is checked. */
static const struct str_rule rule_code_create = { "code", true, 0, CODE_MAX_CHARS, CHECK_CODE };
static const struct str_rule rule_code_update = { "code", true, 0, CODE_MAX_CHARS, CHECK_NONE };
static const struct str_rule rule_description =
	{ "description", false, 0, DESCRIPTION_MAX_CHARS, CHECK_NONE };
/* CONTRACT.md §4: a permission item's name is 1..50, its code as a resource
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
 * "id", as any unknown field). */
static int item_read(const json_t *item, size_t i, bool with_id, struct permission_input *out,
                     struct api_error *err)
{
	struct str_field name, code;

	if (!json_is_object(item))
		return api_fail(err, E_INVALID_PARAMS, "permissions[%zu] must be an object", i);
	if (json_read_string(item, &rule_item_name, &name, err) < 0 ||
	    json_read_string(item, &rule_item_code, &code, err) < 0 ||
	    json_read_string(item, &rule_description, &out->description, err) < 0 ||
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

int resources_read_body(const json_t *body, bool is_update, struct resource_input *in,
                        struct api_error *err)
{
	struct str_field name, code;

	memset(in, 0, sizeof *in);
	if (json_read_string(body, &rule_name, &name, err) < 0 ||
	    json_read_string(body, is_update ? &rule_code_update : &rule_code_create, &code,
	                     err) < 0 ||
	    json_read_string(body, &rule_description, &in->description, err) < 0 ||
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

static void reply(struct request_ctx *ctx, int status, json_t *rec, const struct api_error *err)
{
	if (rec)
		http_reply_json(ctx, status, rec);
	else
		http_reply_error(ctx, err);
}

void resources_create(struct request_ctx *ctx)
{
	struct api_error err;
	struct resource_input in;
	json_t *rec = NULL;

	if (resources_read_body(ctx->body, false, &in, &err) == 0)
		rec = store_resource_create(ctx->srv->store, request_param(ctx, "project_id"), &in,
		                            &err);
	resources_input_release(&in);
	reply(ctx, 201, rec, &err);
}

void resources_update(struct request_ctx *ctx)
{
	struct api_error err;
	struct resource_input in;
	json_t *rec = NULL;

	if (resources_read_body(ctx->body, true, &in, &err) == 0)
		rec = store_resource_update(ctx->srv->store, request_param(ctx, "project_id"),
		                            request_param(ctx, "resource_id"), &in, &err);
	resources_input_release(&in);
	reply(ctx, 200, rec, &err);
}

/* CONTRACT.md §3: resources are listed oldest first; there is no sort_by,
 * so sort parameters are not read. */
void resources_list(struct request_ctx *ctx)
{
	struct api_error err;
	struct list_params lp = LIST_PARAMS_INIT;
	struct resource_filter f = { NULL, -1, 0, 0 };
	json_t *data = NULL;
	long long total = 0;

	if (list_read_params(&ctx->query, NULL, 0, &lp, &err) < 0 ||
	    form_read_bool(&ctx->query, "is_default", &f.is_default, &err) < 0)
		goto fail;
	f.like = lp.like;
	f.limit = lp.page_size;
	f.offset = list_params_offset(&lp);
	if (store_resource_list(ctx->srv->store, request_param(ctx, "project_id"), &f, &data,
	                        &total, &err) < 0)
		goto fail;
	http_reply_json(ctx, 200, list_response(data, &lp, total));
	list_params_release(&lp);
	return;
fail:
	list_params_release(&lp);
	http_reply_error(ctx, &err);
}
