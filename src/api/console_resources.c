/*
 * The console's resources pages (console_resources.h). A resource's
 * permissions are edited as rows of the form, one per permission (its ID
 * hidden, so an edited permission keeps it and the roles and clients that
 * hold it keep it), and a few empty rows for new ones; a row left empty is
 * left out of the API's body, which deletes that permission. The default
 * resources are read-only, as the API has them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/keyvalq_struct.h>

#include "api_records.h"
#include "api_resources.h"
#include "console.h"
#include "console_resources.h"
#include "form.h"
#include "html.h"
#include "list_params.h"
#include "store_resources.h"
#include "util.h"

/* The empty rows a form offers for new permissions. */
#define NEW_ROWS 3
/* The most rows a posted form is read for. */
#define ROWS_MAX 200

struct resources_view {
	struct list_query q;
	struct page page;
};

static void resources_view_release(void *state)
{
	page_release(&((struct resources_view *)state)->page);
}

static struct resources_view *view_of(struct request_ctx *ctx)
{
	return console_view_state(ctx, sizeof (struct resources_view), resources_view_release);
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static enum step_result need_read(struct flow *f)
{
	return console_need(f, "resources:read", "Your role may not read the project's resources.");
}

static enum step_result need_create(struct flow *f)
{
	return console_need(f, "resources:create",
	                    "Your role may not create resources. Nothing was changed.");
}

static enum step_result need_update(struct flow *f)
{
	return console_need(f, "resources:update",
	                    "Your role may not change resources. Nothing was changed.");
}

/* ---- the list ---- */

static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct resources_view *v = view_of(ctx);
	struct api_error err;

	v->q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, NULL, 0, &v->q, &err) < 0)
		return flow_error(f, &err);
	store_resource_list(ctx->http.srv->store, console_of(ctx)->project_id, &v->q, &v->page,
	                    flow_completion(f));
	return STEP_WAIT;
}

/* A resource's permissions, named "code:permission", comma-separated.
 * Caller frees. */
static char *permission_names(const json_t *r)
{
	size_t i;
	json_t *perm;
	char *out = xstrdup("");

	json_array_foreach(json_object_get(r, "permissions"), i, perm) {
		char *next = xasprintf("%s%s%s:%s", out, i ? ", " : "", str(r, "code") ? str(r, "code") : "",
		                       str(perm, "code") ? str(perm, "code") : "");
		free(out);
		out = next;
	}
	return out;
}

static void list_rows(struct request_ctx *ctx, struct console_page *p, const json_t *data)
{
	static const char *const heads[] = { "Name", "Code", "Permissions", "Default" };
	size_t i;
	json_t *r;

	console_page_table_begin(p, "Resources", heads, 4);
	json_array_foreach(data, i, r) {
		char *rest = xasprintf("resources/%s", str(r, "id") ? str(r, "id") : "");
		char *href = console_path(ctx, rest), *perms = permission_names(r);
		console_page_table_row_link(p, href, str(r, "name"), (const char *const[]){
			str(r, "code"), perms,
			json_is_true(json_object_get(r, "is_default")) ? "yes" : "no" }, 3);
		free(perms);
		free(href);
		free(rest);
	}
	console_page_table_end(p);
}

static enum step_result list_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct resources_view *v = view_of(ctx);
	json_t *data = json_loads(v->page.data ? v->page.data : "[]", 0, NULL);
	char *action = console_path(ctx, "resources");
	struct console_page p;

	console_begin(ctx, &p, "Resources");
	if (console_may(ctx, "resources:create")) {
		char *href = console_path(ctx, "new-resource");
		console_page_link(&p, href, "Create a resource");
		free(href);
	}
	console_page_form_begin(&p, action, "get", NULL);
	console_page_field(&p, &(struct console_field){ .name = "search", .label = "Search",
		.type = "search", .value = v->q.search });
	console_page_submit(&p, "Show");
	console_page_form_end(&p);
	list_rows(ctx, &p, data);
	console_list_pager(ctx, &p, "resources", &v->q, v->page.total, "resources");
	json_decref(data);
	free(action);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_resources_list_steps[] = {
	CONSOLE_SIGNED_IN, need_read, list_get, list_show, NULL,
};

/* ---- the form ---- */

static const char *const row_names[] = { "perm_code", "perm_name", "perm_description" };
static const char *const row_labels[] = { "Code", "Name", "Description" };

/* Row k of the permissions (perm: a permission, or NULL for an empty one). */
static void permission_row(struct console_page *p, size_t k, const json_t *perm)
{
	static const char *const keys[] = { "code", "name", "description" };
	char legend[48];

	snprintf(legend, sizeof legend, "Permission %zu", k + 1);
	console_page_fieldset_begin(p, legend);
	console_page_field(p, &(struct console_field){ .name = "perm_id", .type = "hidden",
		.value = str(perm, "id") ? str(perm, "id") : "" });
	for (size_t i = 0; i < 3; i++) {
		char id[48];
		snprintf(id, sizeof id, "p%zu-%s", k + 1, keys[i]);
		console_page_field(p, &(struct console_field){ .name = row_names[i], .id = id,
			.label = row_labels[i], .type = "text", .value = str(perm, keys[i]) });
	}
	console_page_fieldset_end(p);
}

/* The resource's form posting to action, values from a record or a body;
 * err's sentence beside its field, or above the form. */
static void resource_form(struct request_ctx *ctx, struct console_page *p, const char *action,
                          const json_t *values, const struct api_error *err, const char *submit)
{
	static const char *const names[] = { "name", "code", "description" };
	static const char *const labels[] = { "Name", "Code", "Description" };
	const char *at = console_error_field(err, names, 3);
	const json_t *perms = json_object_get(values, "permissions");
	size_t k, n = json_array_size(perms);

	if (err && !at && strcmp(err->code, "resource_code_already_used") == 0)
		at = "code";
	if (err && !at)
		console_page_error(p, err->description);
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	for (size_t i = 0; i < 3; i++)
		console_page_field(p, &(struct console_field){ .name = names[i], .label = labels[i],
			.type = "text", .value = str(values, names[i]), .required = i < 2,
			.error = at && strcmp(at, names[i]) == 0 ? err->description : NULL });
	console_page_heading(p, "Permissions");
	console_page_text(p, "Empty a permission's row to delete it; fill an empty one to add one.");
	for (k = 0; k < n; k++)
		permission_row(p, k, json_array_get(perms, k));
	for (size_t i = 0; i < NEW_ROWS; i++)
		permission_row(p, n + i, NULL);
	console_page_submit(p, submit);
	console_page_form_end(p);
}

/* The posted values of key, in order (at most ROWS_MAX). */
static size_t form_values(struct request_ctx *ctx, const char *key, const char **out)
{
	struct evkeyval *kv;
	size_t n = 0;

	TAILQ_FOREACH(kv, &ctx->form, next)
		if (n < ROWS_MAX && strcmp(kv->key, key) == 0)
			out[n++] = kv->value;
	return n;
}

/* The posted rows as the API's permissions: a row with a code or a name,
 * with its ID when it has one (an update keeps it). */
static json_t *form_permissions(struct request_ctx *ctx)
{
	static const char *const keys[] = { "code", "name", "description" };
	const char *ids[ROWS_MAX], *cols[3][ROWS_MAX];
	size_t n = form_values(ctx, "perm_id", ids);
	json_t *perms = json_array();

	for (size_t i = 0; i < 3; i++)
		if (form_values(ctx, row_names[i], cols[i]) < n)
			n = form_values(ctx, row_names[i], cols[i]);
	for (size_t k = 0; k < n; k++) {
		json_t *perm;
		if (!*cols[0][k] && !*cols[1][k])
			continue;
		perm = json_object();
		if (*ids[k])
			json_object_set_new(perm, "id", json_string(ids[k]));
		for (size_t i = 0; i < 3; i++)
			if (*cols[i][k] || i < 2)
				json_object_set_new(perm, keys[i], json_string(cols[i][k]));
		json_array_append_new(perms, perm);
	}
	return perms;
}

static json_t *form_body(struct request_ctx *ctx)
{
	static const char *const names[] = { "name", "code", "description" };
	json_t *body = json_object();
	struct api_error err;

	for (size_t i = 0; i < 3; i++) {
		const char *v = NULL;
		form_get(&ctx->form, names[i], &v, &err);
		if (v && (*v || i < 2))
			json_object_set_new(body, names[i], json_string(v));
	}
	json_object_set_new(body, "permissions", form_permissions(ctx));
	return body;
}

static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	return console_show_record(ctx, resources_write_record(ctx), "resources");
}

/* ---- create ---- */

static void create_page(struct request_ctx *ctx, int status, const json_t *values,
                        const struct api_error *err)
{
	char *action = console_path(ctx, "resources");
	struct console_page p;

	console_begin(ctx, &p, "Create a resource");
	resource_form(ctx, &p, action, values, err, "Create");
	console_page_reply(ctx, status, &p);
	free(action);
}

static enum step_result new_show(struct flow *f)
{
	create_page(request_of(f), 200, NULL, NULL);
	return STEP_DONE;
}

flow_step *const console_resource_new_steps[] = {
	CONSOLE_SIGNED_IN, need_create, new_show, NULL,
};

static void create_failed(struct request_ctx *ctx, const struct api_error *err)
{
	create_page(ctx, err->status, ctx->body, err);
}

static enum step_result create_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx);
	ctx->fail_page = create_failed;
	return STEP_NEXT;
}

flow_step *const console_resource_create_steps[] = {
	CONSOLE_SIGNED_IN, need_create, create_body, resources_create_read, resources_create_store,
	written, NULL,
};

/* ---- one resource, edit ---- */

static enum step_result resource_get(struct flow *f)
{
	return console_record_get(f, store_resource_get, "resource_id");
}

static void resource_details(struct console_page *p, const json_t *r)
{
	static const char *const heads[] = { "Permission", "Name", "Description" };
	size_t i;
	json_t *perm;

	console_page_text(p, str(r, "description"));
	console_page_table_begin(p, "Its permissions", heads, 3);
	json_array_foreach(json_object_get(r, "permissions"), i, perm) {
		char *named = xasprintf("%s:%s", str(r, "code") ? str(r, "code") : "",
		                        str(perm, "code") ? str(perm, "code") : "");
		console_page_table_row(p, (const char *const[]){ named, str(perm, "name"),
		                                                 str(perm, "description") }, 3);
		free(named);
	}
	console_page_table_end(p);
}

/* The resource's page: with resources:update (and not a default one) its
 * form and the delete link, else its permissions as a table. */
static void resource_page(struct request_ctx *ctx, int status, const json_t *values,
                          const struct api_error *err)
{
	const json_t *r = console_record(ctx);
	char *rest = xasprintf("resources/%s", request_param(ctx, "resource_id"));
	char *action = console_path(ctx, rest), *del = xasprintf("%s/delete", action);
	struct console_page p;

	console_begin(ctx, &p, str(r, "name") ? str(r, "name") : "Resource");
	if (json_is_true(json_object_get(r, "is_default"))) {
		console_page_text(&p, "A default resource: its permissions are the ones the "
		                  "management API checks, and it cannot be changed.");
		resource_details(&p, r);
	} else if (console_may(ctx, "resources:update")) {
		resource_form(ctx, &p, action, values, err, "Save");
		console_page_heading(&p, "Delete");
		console_page_link(&p, del, "Delete the resource");
	} else {
		resource_details(&p, r);
	}
	console_page_reply(ctx, status, &p);
	free(del);
	free(action);
	free(rest);
}

static enum step_result resource_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	resource_page(ctx, 200, console_record(ctx), NULL);
	return STEP_DONE;
}

flow_step *const console_resource_steps[] = {
	CONSOLE_SIGNED_IN, need_read, resource_get, console_record_parse, resource_show, NULL,
};

static void update_failed(struct request_ctx *ctx, const struct api_error *err)
{
	resource_page(ctx, err->status, ctx->body, err);
}

static enum step_result update_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx);
	ctx->fail_page = update_failed;
	return STEP_NEXT;
}

flow_step *const console_resource_update_steps[] = {
	CONSOLE_SIGNED_IN, need_update, resource_get, console_record_parse, update_body,
	resources_update_read, resources_update_store, written, NULL,
};

/* ---- delete, after a confirmation ---- */

static enum step_result delete_ask(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *rest = xasprintf("resources/%s/delete", request_param(ctx, "resource_id"));

	console_confirm(ctx, "Delete a resource",
	                "Deleting a resource cannot be undone: its permissions leave every role "
	                "and client that holds them.", resource_details, rest,
	                "Delete this resource");
	free(rest);
	return STEP_DONE;
}

flow_step *const console_resource_delete_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, resource_get, console_record_parse, delete_ask, NULL,
};

static enum step_result delete(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_resource_delete(ctx->http.srv->store, request_origin(ctx), console_of(ctx)->project_id,
	                      request_param(ctx, "resource_id"), flow_completion(f));
	return STEP_WAIT;
}

static enum step_result deleted(struct flow *f)
{
	return console_show_list(request_of(f), "resources");
}

flow_step *const console_resource_delete_steps[] = {
	CONSOLE_SIGNED_IN, need_update, resource_get, console_record_parse, delete, deleted, NULL,
};
