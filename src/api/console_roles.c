/*
 * The console's roles pages (console_roles.h). The permissions are shown
 * as checkboxes, one group per resource, from the project's resources as
 * the store lists them; a write builds the API's JSON body from the form
 * and runs the roles API's steps (api_roles.h), so its rules, no
 * escalation included, and its sentences are the API's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/keyvalq_struct.h>

#include "api_records.h"
#include "api_roles.h"
#include "console.h"
#include "console_permissions.h"
#include "console_roles.h"
#include "form.h"
#include "html.h"
#include "list_params.h"
#include "listing.h"
#include "store_roles.h"
#include "util.h"


struct roles_view {
	struct list_query q;
	struct page roles;
};

static void roles_view_release(void *state)
{
	struct roles_view *v = state;

	page_release(&v->roles);
}

static struct roles_view *view_of(struct request_ctx *ctx)
{
	return console_view_state(ctx, sizeof (struct roles_view), roles_view_release);
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}



static enum step_result need_read(struct flow *f)
{
	return console_need(f, "roles:read", "Your role may not read the project's roles.");
}

static enum step_result need_create(struct flow *f)
{
	return console_need(f, "roles:create", "Your role may not create roles. Nothing was changed.");
}

static enum step_result need_update(struct flow *f)
{
	return console_need(f, "roles:update", "Your role may not change roles. Nothing was changed.");
}

/* ---- the list ---- */

static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct roles_view *v = view_of(ctx);
	struct api_error err;

	if (list_read_query(&ctx->query, NULL, 0, &v->q, &err) < 0)
		return flow_error(f, &err);
	store_role_list(ctx->http.srv->store, console_of(ctx)->project_id, &v->q, &v->roles,
	                flow_completion(f));
	return STEP_WAIT;
}

static enum step_result list_show(struct flow *f)
{
	static const char *const heads[] = { "Name", "Code", "Permissions" };
	struct request_ctx *ctx = request_of(f);
	struct roles_view *v = view_of(ctx);
	json_t *data = json_loads(v->roles.data ? v->roles.data : "[]", 0, NULL), *r;
	char *action = console_path(ctx, "roles");
	struct console_page p;
	size_t i;

	console_begin(ctx, &p, "Roles");
	if (console_may(ctx, "roles:create")) {
		char *href = console_path(ctx, "new-role");
		console_page_link(&p, href, "Create a role");
		free(href);
	}
	console_page_form_begin(&p, action, "get", NULL);
	console_page_field(&p, &(struct console_field){ .name = "search", .label = "Search",
		.type = "search", .value = v->q.search });
	console_page_submit(&p, "Show");
	console_page_form_end(&p);
	free(action);
	console_page_table_begin(&p, "Roles", heads, 3);
	json_array_foreach(data, i, r) {
		char count[24], *rest = xasprintf("roles/%s", str(r, "id") ? str(r, "id") : "");
		char *href = console_path(ctx, rest);
		snprintf(count, sizeof count, "%zu", json_array_size(json_object_get(r, "permission_ids")));
		console_page_table_row_link(&p, href, str(r, "name"),
		                            (const char *const[]){ str(r, "code"), count }, 2);
		free(href);
		free(rest);
	}
	console_page_table_end(&p);
	console_list_pager(ctx, &p, "roles", &v->q, v->roles.total, "roles");
	json_decref(data);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_roles_list_steps[] = {
	CONSOLE_SIGNED_IN, need_read, list_get, list_show, NULL,
};

/* ---- the form ---- */

/* docs/signin.md §"Second factors": the role's requires_second_factor, as
 * one checkbox. */
#define SECOND_FACTOR "requires_second_factor"
#define SECOND_FACTOR_LABEL "Requires a second factor: its users who have none set up an " \
	"authenticator app when they sign in"

/* The role's form posting to action, values from a record or a body; err's
 * sentence beside its field (code, name, description) or above. */
static void role_form(struct request_ctx *ctx, struct console_page *p, const char *action,
                      const json_t *values, const struct api_error *err, const char *submit)
{
	static const char *const names[] = { "code", "name", "description" };
	static const char *const labels[] = { "Code", "Name", "Description" };
	const char *at = console_error_field(err, names, 3);
	if (err && !at && strcmp(err->code, "role_code_already_used") == 0)
		at = "code";
	if (err && !at)
		console_page_error(p, err->description);
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	for (size_t i = 0; i < 3; i++)
		console_page_field(p, &(struct console_field){ .name = names[i], .label = labels[i],
			.type = "text", .value = str(values, names[i]), .required = i < 2,
			.error = at && strcmp(at, names[i]) == 0 ? err->description : NULL });
	console_page_checkboxes(p, SECOND_FACTOR, "Sign-in", (const char *const[]){ "true" },
	                        (const char *const[]){ SECOND_FACTOR_LABEL },
	                        (const bool[]){ json_is_true(json_object_get(values, SECOND_FACTOR)) },
	                        1);
	console_permission_boxes(ctx, p, json_object_get(values, "permission_ids"));
	console_page_submit(p, submit);
	console_page_form_end(p);
}

/* The posted form as the API's body: permission_ids from every box ticked. */
static void form_body(struct request_ctx *ctx)
{
	static const char *const names[] = { "code", "name", "description" };
	struct evkeyval *kv;
	const char *second_factor = evhttp_find_header(&ctx->form, SECOND_FACTOR);

	ctx->body = json_object();
	TAILQ_FOREACH(kv, &ctx->form, next) {
		for (size_t i = 0; i < 3; i++)
			if (strcmp(kv->key, names[i]) == 0 && !json_object_get(ctx->body, names[i]))
				json_object_set_new(ctx->body, names[i], json_string(kv->value));
	}
	json_object_set_new(ctx->body, "permission_ids", console_form_ids(ctx, "permission_ids"));
	json_object_set_new(ctx->body, SECOND_FACTOR,
	                    json_boolean(second_factor && strcmp(second_factor, "true") == 0));
}

static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	return console_show_record(ctx, roles_write_record(ctx), "roles");
}

/* ---- create ---- */

static void create_page(struct request_ctx *ctx, int status, const json_t *values,
                        const struct api_error *err)
{
	char *action = console_path(ctx, "roles");
	struct console_page p;

	console_begin(ctx, &p, "Create a role");
	role_form(ctx, &p, action, values, err, "Create");
	console_page_reply(ctx, status, &p);
	free(action);
}

static enum step_result new_show(struct flow *f)
{
	create_page(request_of(f), 200, NULL, NULL);
	return STEP_DONE;
}

flow_step *const console_role_new_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_resources_get, console_resources_parse, new_show, NULL,
};

static void create_failed(struct request_ctx *ctx, const struct api_error *err)
{
	create_page(ctx, err->status, ctx->body, err);
}

static enum step_result create_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	form_body(ctx);
	ctx->fail_page = create_failed;
	return STEP_NEXT;
}

flow_step *const console_role_create_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_resources_get, console_resources_parse, create_body,
	roles_write_read, roles_create_store, written, NULL,
};

/* ---- one role, edit ---- */

static enum step_result role_get(struct flow *f)
{
	return console_record_get(f, store_role_get, "role_id");
}

/* The role's page: with roles:update its form (values, err), else its
 * permissions, named, as a list. */
static void role_page(struct request_ctx *ctx, int status, const json_t *values,
                      const struct api_error *err)
{
	char *rest = xasprintf("roles/%s", request_param(ctx, "role_id"));
	char *action = console_path(ctx, rest);
	struct console_page p;

	console_begin(ctx, &p, str(console_record(ctx), "name") ? str(console_record(ctx), "name") : "Role");
	if (console_may(ctx, "roles:update")) {
		char *del = xasprintf("%s/delete", action);
		role_form(ctx, &p, action, values, err, "Save");
		console_page_heading(&p, "Delete");
		console_page_link(&p, del, "Delete the role");
		free(del);
	} else {
		console_page_text(&p, str(console_record(ctx), "description"));
		if (json_is_true(json_object_get(console_record(ctx), SECOND_FACTOR)))
			console_page_text(&p, SECOND_FACTOR_LABEL ".");
		console_page_heading(&p, "Permissions");
		console_permission_boxes(ctx, &p, json_object_get(console_record(ctx), "permission_ids"));
	}
	console_page_reply(ctx, status, &p);
	free(action);
	free(rest);
}

static enum step_result role_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	role_page(ctx, 200, console_record(ctx), NULL);
	return STEP_DONE;
}

flow_step *const console_role_steps[] = {
	CONSOLE_SIGNED_IN, need_read, role_get, console_record_parse, console_resources_get,
	console_resources_parse, role_show, NULL,
};

static void update_failed(struct request_ctx *ctx, const struct api_error *err)
{
	role_page(ctx, err->status, ctx->body, err);
}

static enum step_result update_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	form_body(ctx);
	ctx->fail_page = update_failed;
	return STEP_NEXT;
}

flow_step *const console_role_update_steps[] = {
	CONSOLE_SIGNED_IN, need_update, role_get, console_record_parse, console_resources_get,
	console_resources_parse, update_body, roles_write_read, roles_update_store, written, NULL,
};

/* ---- delete, after a confirmation ---- */

static void role_details(struct console_page *p, const json_t *role)
{
	console_page_table_begin(p, "The role", (const char *const[]){ "Name", "Code" }, 2);
	console_page_table_row(p, (const char *const[]){ str(role, "name"), str(role, "code") }, 2);
	console_page_table_end(p);
}

static enum step_result delete_ask(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *rest = xasprintf("roles/%s/delete", request_param(ctx, "role_id"));

	console_confirm(ctx, "Delete a role",
	                "Deleting a role cannot be undone: its users are left without a role.",
	                role_details, rest, "Delete this role");
	free(rest);
	return STEP_DONE;
}

flow_step *const console_role_delete_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, role_get, console_record_parse, delete_ask, NULL,
};

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_role_delete, "role_id");
}

static enum step_result deleted(struct flow *f)
{
	return console_show_list(request_of(f), "roles");
}

flow_step *const console_role_delete_steps[] = {
	CONSOLE_SIGNED_IN, need_update, role_get, console_record_parse, delete, deleted, NULL,
};
