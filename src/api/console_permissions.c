/*
 * The permission checkboxes of the console's forms (console_permissions.h),
 * shared by the roles and clients pages: the project's resources as the
 * store lists them, each a group of its permissions.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/keyvalq_struct.h>

#include "console.h"
#include "console_permissions.h"
#include "store_resources.h"
#include "store_roles.h"
#include "util.h"

#define RESOURCES_PAGE 100

enum step_result console_resources_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	c->resources_q = (struct list_query)LIST_QUERY_INIT;
	c->resources_q.page_size = RESOURCES_PAGE;
	store_resource_list(ctx->http.srv->store, c->project_id, &c->resources_q, &c->resources,
	                    flow_completion(f));
	return STEP_WAIT;
}

enum step_result console_resources_parse(struct flow *f)
{
	struct console *c = console_of(request_of(f));

	c->resource_list = json_loads(c->resources.data ? c->resources.data : "[]", 0, NULL);
	return c->resource_list ? STEP_NEXT
	                        : flow_fail(f, E_SYSTEM_ERROR, "The resources could not be read.");
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static bool id_in(const json_t *ids, const char *id)
{
	size_t i;
	json_t *x;

	json_array_foreach(ids, i, x)
		if (json_is_string(x) && strcmp(json_string_value(x), id) == 0)
			return true;
	return false;
}

/* One resource's group: "code:permission" labels, legend "Name (code)". */
static void resource_boxes(struct console_page *p, const json_t *r, const json_t *ids)
{
	const json_t *perms = json_object_get(r, "permissions");
	size_t n = json_array_size(perms), k;
	const char **values = xcalloc(n + 1, sizeof *values);
	char **labels = xcalloc(n + 1, sizeof *labels);
	bool *checked = xcalloc(n + 1, sizeof *checked);
	char *legend = xasprintf("%s (%s)", str(r, "name"), str(r, "code"));
	json_t *perm;

	json_array_foreach(perms, k, perm) {
		values[k] = str(perm, "id");
		labels[k] = xasprintf("%s:%s", str(r, "code"), str(perm, "code"));
		checked[k] = id_in(ids, values[k]);
	}
	console_page_checkboxes(p, "permission_ids", legend, values, (const char *const *)labels,
	                        checked, n);
	for (k = 0; k < n; k++)
		free(labels[k]);
	free(values);
	free(labels);
	free(checked);
	free(legend);
}

void console_permission_boxes(struct request_ctx *ctx, struct console_page *p, const json_t *ids)
{
	size_t i;
	json_t *r;

	json_array_foreach(console_of(ctx)->resource_list, i, r)
		resource_boxes(p, r, ids);
}

enum step_result console_roles_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console *c = console_of(ctx);

	if (!console_may(ctx, "roles:read"))
		return STEP_NEXT;
	c->roles_q = (struct list_query)LIST_QUERY_INIT;
	c->roles_q.page_size = RESOURCES_PAGE;
	store_role_list(ctx->http.srv->store, c->project_id, &c->roles_q, &c->roles,
	                flow_completion(f));
	return STEP_WAIT;
}

void console_role_field(struct request_ctx *ctx, struct console_page *p, const char *value,
                        const char *empty_label, const char *err)
{
	json_t *roles = json_loads(console_of(ctx)->roles.data ? console_of(ctx)->roles.data : "",
	                           0, NULL), *r;
	size_t n = json_array_size(roles), i;
	const char **values = xcalloc(n + 1, sizeof *values), **labels = xcalloc(n + 1, sizeof *labels);

	if (!roles) {   /* not read */
		console_page_field(p, &(struct console_field){ .name = "role_id", .label = "Role ID",
			.type = "text", .value = value, .error = err });
	} else {
		values[0] = "";
		labels[0] = empty_label;
		json_array_foreach(roles, i, r) {
			values[i + 1] = str(r, "id");
			labels[i + 1] = str(r, "name");
		}
		console_page_select(p, "role_id", "Role", values, labels, n + 1, value ? value : "");
		if (err)
			console_page_error(p, err);
	}
	free(values);
	free(labels);
	json_decref(roles);
}

json_t *console_form_ids(struct request_ctx *ctx, const char *name)
{
	json_t *ids = json_array();
	struct evkeyval *kv;

	TAILQ_FOREACH(kv, &ctx->form, next)
		if (strcmp(kv->key, name) == 0)
			json_array_append_new(ids, json_string(kv->value));
	return ids;
}
