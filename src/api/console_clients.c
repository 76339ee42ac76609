/*
 * The console's clients pages (console_clients.h). Reads ask the store as
 * the clients API does; writes build the API's JSON body from the form and
 * run the API's steps (api_clients.h), so its rules (the no-escalation rule
 * over the twelve default permissions, who may change where tokens go),
 * its sentences and the audit trail's actor are the API's. A secret is
 * shown once, on the page that answers the post that made it, never kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/http.h>

#include "api_clients.h"
#include "api_records.h"
#include "console.h"
#include "console_clients.h"
#include "console_permissions.h"
#include "form.h"
#include "html.h"
#include "list_params.h"
#include "store_clients.h"
#include "util.h"

struct clients_view {
	struct list_query q;
	struct page page;
};

static void clients_view_release(void *state)
{
	page_release(&((struct clients_view *)state)->page);
}

static struct clients_view *view_of(struct request_ctx *ctx)
{
	return console_view_state(ctx, sizeof (struct clients_view), clients_view_release);
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static enum step_result need_read(struct flow *f)
{
	return console_need(f, "clients:read", "Your role may not read the project's clients.");
}

static enum step_result need_create(struct flow *f)
{
	return console_need(f, "clients:create",
	                    "Your role may not create clients. Nothing was changed.");
}

static enum step_result need_update(struct flow *f)
{
	return console_need(f, "clients:update",
	                    "Your role may not change clients. Nothing was changed.");
}

/* The client's own path: "clients/<id>" + tail. Caller frees. */
static char *client_rest(struct request_ctx *ctx, const char *tail)
{
	return xasprintf("clients/%s%s", request_param(ctx, "client_id"), tail);
}

/* ---- the list ---- */

static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_view *v = view_of(ctx);
	struct api_error err;

	v->q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, NULL, 0, &v->q, &err) < 0)
		return flow_error(f, &err);
	store_client_list(ctx->http.srv->store, console_of(ctx)->project_id, &v->q, &v->page,
	                  flow_completion(f));
	return STEP_WAIT;
}

static void list_rows(struct request_ctx *ctx, struct console_page *p, const json_t *data)
{
	static const char *const heads[] = { "Name", "Client ID", "Authentication", "Active" };
	size_t i;
	json_t *c;

	console_page_table_begin(p, "Clients", heads, 4);
	json_array_foreach(data, i, c) {
		char *rest = xasprintf("clients/%s", str(c, "id") ? str(c, "id") : "");
		char *href = console_path(ctx, rest);
		console_page_table_row_link(p, href, str(c, "name"), (const char *const[]){
			str(c, "id"), str(c, "token_endpoint_auth_method"),
			json_is_true(json_object_get(c, "is_active")) ? "yes" : "no" }, 3);
		free(href);
		free(rest);
	}
	console_page_table_end(p);
}

static enum step_result list_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_view *v = view_of(ctx);
	json_t *data = json_loads(v->page.data ? v->page.data : "[]", 0, NULL);
	char *action = console_path(ctx, "clients");
	struct console_page p;

	console_begin(ctx, &p, "Clients");
	if (console_may(ctx, "clients:create")) {
		char *href = console_path(ctx, "new-client");
		console_page_link(&p, href, "Create a client");
		free(href);
	}
	console_page_form_begin(&p, action, "get", NULL);
	console_page_field(&p, &(struct console_field){ .name = "search", .label = "Search by name",
		.type = "search", .value = v->q.search });
	console_page_submit(&p, "Show");
	console_page_form_end(&p);
	list_rows(ctx, &p, data);
	console_list_pager(ctx, &p, "clients", &v->q, v->page.total, "clients");
	json_decref(data);
	free(action);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_clients_list_steps[] = {
	CONSOLE_SIGNED_IN, need_read, list_get, list_show, NULL,
};

/* ---- the form ---- */

static const char *const auth_methods[] = { "none", "client_secret_basic", "client_secret_post" };
static const char *const auth_labels[] = {
	"none (a public client, with PKCE)", "client_secret_basic", "client_secret_post",
};
static const char *const algs[] = { "RS256", "ES256" };

/* The text fields of the form, by the API's names; the URI lists are one
 * URI a line. */
static const struct console_field text_fields[] = {
	{ .name = "name", .label = "Name", .type = "text", .required = true },
	{ .name = "description", .label = "Description", .type = "text" },
	{ .name = "redirect_uris", .label = "Redirect URIs, one a line", .type = "textarea" },
	{ .name = "post_logout_redirect_uris", .label = "Post-logout redirect URIs, one a line",
	  .type = "textarea" },
	{ .name = "backchannel_logout_uri", .label = "Back-channel logout URI", .type = "url" },
};
#define N_TEXT (sizeof text_fields / sizeof text_fields[0])

/* The field an error's sentence names, or NULL. */
static const char *error_field(const struct api_error *err)
{
	static const char *const names[] = { "name", "description", "redirect_uris",
	                                     "post_logout_redirect_uris", "backchannel_logout_uri",
	                                     "token_endpoint_auth_method",
	                                     "id_token_signed_response_alg", "forward_auth_urls" };

	return console_error_field(err, names, sizeof names / sizeof names[0]);
}

/* A value of the form as shown: a URI list's items one a line. Caller frees. */
static char *shown(const json_t *values, const char *name)
{
	const json_t *v = json_object_get(values, name);
	size_t i;
	json_t *item;
	char *out;

	if (!json_is_array(v))
		return xstrdup(json_string_value(v) ? json_string_value(v) : "");
	out = xstrdup("");
	json_array_foreach(v, i, item) {
		char *next = xasprintf("%s%s%s", out, i ? "\n" : "",
		                       json_string_value(item) ? json_string_value(item) : "");
		free(out);
		out = next;
	}
	return out;
}

/* ---- who may sign in, and how (docs/console.md §"What each permission shows") ---- */

/* The twelve named permissions of the default resources: changing a field
 * of this part needs them all, as through the API (docs/signin.md §"Who
 * may change where tokens go"). */
#define TWELVE "resources:create resources:update resources:read users:create users:update " \
	"users:read roles:create roles:update roles:read clients:create clients:update clients:read"
/* The form's part is posted only by a page that showed it: its marker. */
#define RULES_MARKER "access_rules"
/* The flags, as one group of checkboxes whose values are the API's names. */
#define FLAGS "flags"
static const char *const flag_names[] = { "consent_required", "device_flow" };
static const char *const flag_labels[] = {
	"Asks each user's consent (an app the box does not own)",
	"Signs in devices (the device authorization grant)",
};

/* The project's roles (console_roles_get's page; NULL: not read). */
static json_t *roles_of(struct request_ctx *ctx)
{
	const char *data = console_of(ctx)->roles.data;

	return data ? json_loads(data, 0, NULL) : NULL;
}

static const char *role_name(const json_t *roles, const char *id)
{
	size_t i;
	json_t *r;

	json_array_foreach(roles, i, r)
		if (id && str(r, "id") && strcmp(str(r, "id"), id) == 0)
			return str(r, "name");
	return NULL;
}

static bool listed(const json_t *list, const char *id)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (json_string_value(v) && strcmp(json_string_value(v), id) == 0)
			return true;
	return false;
}

/* A checkbox a role, each of the project's, then each ID of the list that
 * names none (a deleted role's stays, docs/signin.md §"Access rules"): a
 * save keeps it unless it is unticked. */
static void role_boxes(struct request_ctx *ctx, struct console_page *p, const json_t *allowed)
{
	json_t *roles = roles_of(ctx), *r, *v;
	size_t n = json_array_size(roles) + json_array_size(allowed), k = 0, i;
	const char **values = xcalloc(n + 1, sizeof *values);
	char **labels = xcalloc(n + 1, sizeof *labels);
	bool *checked = xcalloc(n + 1, sizeof *checked);

	json_array_foreach(roles, i, r) {
		values[k] = str(r, "id") ? str(r, "id") : "";
		labels[k] = xstrdup(str(r, "name") ? str(r, "name") : "");
		checked[k] = listed(allowed, values[k]);
		k++;
	}
	json_array_foreach(allowed, i, v)
		if (json_string_value(v) && !role_name(roles, json_string_value(v))) {
			values[k] = json_string_value(v);
			labels[k] = xasprintf("%s (no such role: lets no one in)", values[k]);
			checked[k] = true;
			k++;
		}
	console_page_checkboxes(p, "allowed_role_ids",
	                        "Roles whose users may sign in (none ticked: every user)", values,
	                        (const char *const *)labels, checked, k);
	for (i = 0; i < k; i++)
		free(labels[i]);
	free(labels);
	free(values);
	free(checked);
	json_decref(roles);
}

/* The part of the form for a user who holds the twelve permissions; the
 * others see it in the details only. url_error: the sentence beside the
 * URLs, or NULL. */
static void rules_fields(struct request_ctx *ctx, struct console_page *p, const json_t *values,
                         const char *url_error)
{
	bool on[2];
	char *urls;

	if (!console_may(ctx, TWELVE))
		return;
	console_page_field(p, &(struct console_field){ .name = RULES_MARKER, .type = "hidden",
		.value = "1" });
	role_boxes(ctx, p, json_object_get(values, "allowed_role_ids"));
	for (size_t i = 0; i < 2; i++)
		on[i] = json_is_true(json_object_get(values, flag_names[i]));
	console_page_checkboxes(p, FLAGS, "Sign-in", flag_names, flag_labels, on, 2);
	urls = shown(values, "forward_auth_urls");
	console_page_field(p, &(struct console_field){ .name = "forward_auth_urls",
		.label = "Forward-auth base URLs (apps behind the proxy), one a line",
		.type = "textarea", .value = urls, .error = url_error });
	free(urls);
}

static json_t *uri_lines(const char *text);

/* The part as the API's fields, when the page showed it: a forged post of
 * it by a user without the twelve permissions is the API's 403. */
static void rules_body(struct request_ctx *ctx, json_t *body)
{
	const char *urls = NULL;
	json_t *flags;
	struct api_error err;

	if (!evhttp_find_header(&ctx->form, RULES_MARKER))
		return;
	json_object_set_new(body, "allowed_role_ids", console_form_ids(ctx, "allowed_role_ids"));
	flags = console_form_ids(ctx, FLAGS);
	for (size_t i = 0; i < 2; i++)
		json_object_set_new(body, flag_names[i], json_boolean(listed(flags, flag_names[i])));
	json_decref(flags);
	form_get(&ctx->form, "forward_auth_urls", &urls, &err);
	json_object_set_new(body, "forward_auth_urls", uri_lines(urls));
}

/* The part as the client's page shows it to every reader. */
static void rules_details(struct request_ctx *ctx, struct console_page *p, const json_t *c)
{
	const json_t *allowed = json_object_get(c, "allowed_role_ids"), *v;
	json_t *roles = roles_of(ctx);
	char *who = xstrdup(json_array_size(allowed) ? "" : "every user of the project");
	char *urls = shown(c, "forward_auth_urls");
	size_t i;

	json_array_foreach(allowed, i, v) {
		const char *name = role_name(roles, json_string_value(v));
		char *next = xasprintf("%s%s%s", who, i ? ", " : "",
		                       name ? name : json_string_value(v) ? json_string_value(v) : "");
		free(who);
		who = next;
	}
	console_page_table_begin(p, "Who may sign in, and how",
	                         (const char *const[]){ "Field", "Value" }, 2);
	console_page_table_row(p, (const char *const[]){ "Roles whose users may sign in", who }, 2);
	for (i = 0; i < 2; i++)
		console_page_table_row(p, (const char *const[]){ flag_labels[i],
			json_is_true(json_object_get(c, flag_names[i])) ? "yes" : "no" }, 2);
	console_page_table_row(p, (const char *const[]){ "Forward-auth base URLs", urls }, 2);
	console_page_table_end(p);
	free(urls);
	free(who);
	json_decref(roles);
}

/* The client's form posting to action, values from a record or a body;
 * err's sentence beside the field it names, or above the form. */
static void client_form(struct request_ctx *ctx, struct console_page *p, const char *action,
                        const json_t *values, const struct api_error *err, const char *submit)
{
	const char *at = error_field(err);

	if (err && !at)
		console_page_error(p, err->description);
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	for (size_t i = 0; i < N_TEXT; i++) {
		struct console_field field = text_fields[i];
		char *value = shown(values, field.name);
		field.value = value;
		field.error = at && strcmp(at, field.name) == 0 ? err->description : NULL;
		console_page_field(p, &field);
		free(value);
	}
	console_page_select(p, "token_endpoint_auth_method", "Authentication at the token endpoint",
	                    auth_methods, auth_labels, 3,
	                    str(values, "token_endpoint_auth_method"));
	console_page_select(p, "id_token_signed_response_alg", "ID token signing", algs, algs, 2,
	                    str(values, "id_token_signed_response_alg"));
	console_permission_boxes(ctx, p, json_object_get(values, "permission_ids"));
	rules_fields(ctx, p, values, at && strcmp(at, "forward_auth_urls") == 0 ? err->description
	                                                                       : NULL);
	console_page_submit(p, submit);
	console_page_form_end(p);
}

/* A posted URI list, one a line, as the API's JSON array (blank lines left out). */
static json_t *uri_lines(const char *text)
{
	json_t *list = json_array();
	char *copy = xstrdup(text ? text : ""), *save = NULL;

	for (char *line = strtok_r(copy, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line)
			json_array_append_new(list, json_string(line));
	}
	free(copy);
	return list;
}

/* The posted form as the API's body. On update every field is sent (an
 * empty one clears: null), the stored is_active kept; on create an empty
 * optional one is left out. */
static json_t *form_body(struct request_ctx *ctx, bool update)
{
	static const char *const singles[] = { "name", "description", "backchannel_logout_uri",
	                                       "token_endpoint_auth_method",
	                                       "id_token_signed_response_alg" };
	static const char *const lists[] = { "redirect_uris", "post_logout_redirect_uris" };
	json_t *body = json_object();
	struct api_error err;

	for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
		const char *v = NULL;
		form_get(&ctx->form, singles[i], &v, &err);
		if (v && (*v || i == 0))
			json_object_set_new(body, singles[i], json_string(v));
		else if (update)
			json_object_set_new(body, singles[i], json_null());
	}
	for (size_t i = 0; i < 2; i++) {
		const char *v = NULL;
		form_get(&ctx->form, lists[i], &v, &err);
		json_object_set_new(body, lists[i], uri_lines(v));
	}
	json_object_set_new(body, "permission_ids", console_form_ids(ctx, "permission_ids"));
	if (update)
		json_object_set(body, "is_active", json_object_get(console_record(ctx), "is_active"));
	rules_body(ctx, body);
	return body;
}

/* ---- create: the secret shown once ---- */

static void create_page(struct request_ctx *ctx, int status, const json_t *values,
                        const struct api_error *err)
{
	char *action = console_path(ctx, "clients");
	struct console_page p;

	console_begin(ctx, &p, "Create a client");
	client_form(ctx, &p, action, values, err, "Create");
	console_page_reply(ctx, status, &p);
	free(action);
}

static enum step_result new_show(struct flow *f)
{
	create_page(request_of(f), 200, NULL, NULL);
	return STEP_DONE;
}

flow_step *const console_client_new_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_resources_get, console_resources_parse,
	console_roles_get, new_show,
	NULL,
};

static void create_failed(struct request_ctx *ctx, const struct api_error *err)
{
	create_page(ctx, err->status, ctx->body, err);
}

static enum step_result create_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx, false);
	ctx->fail_page = create_failed;
	return STEP_NEXT;
}

/* The page that shows a new secret, once: it is not stored but as a hash,
 * and the route is no-store. */
static void secret_page(struct request_ctx *ctx, int status, const char *title,
                        const char *client_id)
{
	char *rest = xasprintf("clients/%s", client_id ? client_id : "");
	char *href = console_path(ctx, rest);
	struct console_page p;

	console_begin(ctx, &p, title);
	console_page_table_begin(&p, "The client's credentials",
	                         (const char *const[]){ "Field", "Value" }, 2);
	console_page_table_row(&p, (const char *const[]){ "Client ID", client_id }, 2);
	console_page_table_row(&p, (const char *const[]){ "Client secret",
	                                                  clients_write_secret(ctx) }, 2);
	console_page_table_end(&p);
	console_page_text(&p, "Copy the secret now: it is shown this once and cannot be shown "
	                  "again (rotate it for a new one).");
	console_page_link(&p, href, "Open the client");
	console_page_reply(ctx, status, &p);
	free(href);
	free(rest);
}

static enum step_result created(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	json_t *r = json_loads(clients_write_record(ctx), 0, NULL);

	secret_page(ctx, 201, "Client created", str(r, "id"));
	json_decref(r);
	return STEP_DONE;
}

flow_step *const console_client_create_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_resources_get, console_resources_parse,
	console_roles_get, create_body, clients_create_read, clients_create_write, created, NULL,
};

/* ---- one client ---- */

static enum step_result client_get(struct flow *f)
{
	return console_record_get(f, store_client_get, "client_id");
}

static void client_details(struct console_page *p, const json_t *c)
{
	static const char *const keys[] = { "id", "name", "description", "token_endpoint_auth_method",
	                                    "id_token_signed_response_alg", "backchannel_logout_uri",
	                                    "created_at", "updated_at" };
	static const char *const labels[] = { "Client ID", "Name", "Description", "Authentication",
	                                      "ID token signing", "Back-channel logout URI",
	                                      "Created", "Updated" };
	char *uris = shown(c, "redirect_uris"), *post = shown(c, "post_logout_redirect_uris");

	console_page_table_begin(p, "The client", (const char *const[]){ "Field", "Value" }, 2);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		console_page_table_row(p, (const char *const[]){ labels[i], str(c, keys[i]) }, 2);
	console_page_table_row(p, (const char *const[]){ "Redirect URIs", uris }, 2);
	console_page_table_row(p, (const char *const[]){ "Post-logout redirect URIs", post }, 2);
	console_page_table_row(p, (const char *const[]){ "Active",
		json_is_true(json_object_get(c, "is_active")) ? "yes" : "no" }, 2);
	console_page_table_end(p);
	free(uris);
	free(post);
}

/* The forms of the client's page, for clients:update. */
static void client_forms(struct request_ctx *ctx, struct console_page *p, const json_t *values,
                         const struct api_error *err)
{
	bool active = json_is_true(json_object_get(console_record(ctx), "is_active"));
	char *rest = client_rest(ctx, ""), *action = console_path(ctx, rest);
	char *sub = client_rest(ctx, "/active");

	console_page_heading(p, "Edit");
	client_form(ctx, p, action, values, err, "Save");
	console_page_heading(p, active ? "Disable" : "Enable");
	console_button_form(ctx, p, sub, "is_active", active ? "false" : "true",
	                    active ? "Disable the client" : "Enable the client");
	free(sub);
	free(action);
	console_page_heading(p, "Secret and deletion");
	sub = client_rest(ctx, "/secret");
	action = console_path(ctx, sub);
	console_page_link(p, action, "Rotate the secret");
	evbuffer_add_printf(p->buf, " ");
	free(action);
	free(sub);
	sub = client_rest(ctx, "/delete");
	action = console_path(ctx, sub);
	console_page_link(p, action, "Delete the client");
	free(action);
	free(sub);
	free(rest);
}

static void client_page(struct request_ctx *ctx, int status, const json_t *values,
                        const struct api_error *err)
{
	const json_t *c = console_record(ctx);
	struct console_page p;

	console_begin(ctx, &p, str(c, "name") ? str(c, "name") : "Client");
	client_details(&p, c);
	rules_details(ctx, &p, c);
	if (console_may(ctx, "clients:update")) {
		client_forms(ctx, &p, values, err);
	} else {
		console_page_heading(&p, "Permissions");
		console_permission_boxes(ctx, &p, json_object_get(c, "permission_ids"));
	}
	console_page_reply(ctx, status, &p);
}

static enum step_result client_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	client_page(ctx, 200, console_record(ctx), NULL);
	return STEP_DONE;
}

flow_step *const console_client_steps[] = {
	CONSOLE_SIGNED_IN, need_read, client_get, console_record_parse, console_resources_get,
	console_resources_parse, console_roles_get, client_show, NULL,
};

/* ---- edit, enable/disable ---- */

static void update_failed(struct request_ctx *ctx, const struct api_error *err)
{
	client_page(ctx, err->status, ctx->body, err);
}

static enum step_result update_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx, true);
	ctx->fail_page = update_failed;
	return STEP_NEXT;
}

/* An update's body that changes is_active alone: the name it must carry,
 * every other field omitted (kept). */
static enum step_result active_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	int active = -1;
	struct api_error err;

	ctx->fail_page = update_failed;
	if (form_read_bool(&ctx->form, "is_active", &active, &err) < 0 || active < 0)
		return flow_fail(f, E_INVALID_PARAMS, "is_active must be true or false.");
	ctx->body = json_pack("{s:s?, s:b}", "name", str(console_record(ctx), "name"),
	                      "is_active", active);
	return STEP_NEXT;
}

static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	return console_show_record(ctx, clients_write_record(ctx), "clients");
}

flow_step *const console_client_update_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, console_resources_get,
	console_resources_parse, console_roles_get, update_body, clients_update_read,
	clients_update_write, written, NULL,
};
flow_step *const console_client_active_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, console_resources_get,
	console_resources_parse, console_roles_get, active_body, clients_update_read,
	clients_update_write, written, NULL,
};

/* ---- rotate the secret, delete: each after a confirmation ---- */

/* The confirmation page of tail ("/secret", "/delete"). */
static void ask_page(struct request_ctx *ctx, const char *title, const char *text,
                     const char *tail, const char *label)
{
	char *rest = client_rest(ctx, tail);

	console_confirm(ctx, title, text, client_details, rest, label);
	free(rest);
}

static enum step_result rotate_ask(struct flow *f)
{
	ask_page(request_of(f), "Rotate a client's secret",
	         "A new secret replaces the client's at once: the old one stops working, and the "
	         "new one is shown once.", "/secret", "Rotate the secret");
	return STEP_DONE;
}

flow_step *const console_client_rotate_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, rotate_ask, NULL,
};

static enum step_result rotated(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	secret_page(ctx, 200, "Secret rotated", request_param(ctx, "client_id"));
	return STEP_DONE;
}

flow_step *const console_client_rotate_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, clients_rotate_write,
	rotated, NULL,
};

static enum step_result delete_ask(struct flow *f)
{
	ask_page(request_of(f), "Delete a client",
	         "Deleting a client cannot be undone: its tokens stop working and its apps can no "
	         "longer sign users in.", "/delete", "Delete this client");
	return STEP_DONE;
}

flow_step *const console_client_delete_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, delete_ask, NULL,
};

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_client_delete, "client_id");
}

static enum step_result deleted(struct flow *f)
{
	return console_show_list(request_of(f), "clients");
}

flow_step *const console_client_delete_steps[] = {
	CONSOLE_SIGNED_IN, need_update, client_get, console_record_parse, delete, deleted, NULL,
};
