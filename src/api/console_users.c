/*
 * The console's users pages (console_users.h). Reads ask the store as the
 * users API does; writes build the API's JSON body from the form and run
 * the API's steps (api_users.h), so the rules, their order and their
 * sentences are the API's, no-escalation included, with the session's
 * user as the caller. A failed write shows its form again with the
 * sentence beside the field it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "api_records.h"
#include "api_users.h"
#include "console.h"
#include "console_permissions.h"
#include "console_sessions.h"
#include "console_users.h"
#include "form.h"
#include "html.h"
#include "json_rows.h"
#include "list_params.h"
#include "store_users.h"
#include "util.h"

/* A page's own state: the list, or one user's record. */
struct users_view {
	struct evkeyvalq query;    /* the list's query, empty values left out */
	struct list_query q;
	struct page page;
};

static void users_view_release(void *state)
{
	struct users_view *v = state;

	evhttp_clear_headers(&v->query);
	page_release(&v->page);
}

static struct users_view *view_of(struct request_ctx *ctx)
{
	struct users_view *v = console_view_state(ctx, sizeof *v, users_view_release);

	if (!v->query.tqh_last)
		TAILQ_INIT(&v->query);
	return v;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *yes_no(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key)) ? "yes" : "no";
}


/* ---- the forms ---- */

/* A form's fields as the API's body names them. */
struct form_field {
	const char *name;
	const char *label;
	const char *type;
	bool required;
};

static const struct form_field create_fields[] = {
	{ "display_name", "Name", "text", true },
	{ "email", "Email", "email", false },
	{ "password", "Password", "password", false },
	{ "external_user_id", "External user ID", "text", false },
	{ "avatar_url", "Avatar URL", "url", false },
	{ "role_id", "Role ID", "text", false },
};
static const struct form_field edit_fields[] = {
	{ "display_name", "Name", "text", true },
	{ "email", "Email", "email", false },
	{ "external_user_id", "External user ID", "text", false },
	{ "avatar_url", "Avatar URL", "url", false },
	{ "role_id", "Role ID", "text", false },
};
#define N_CREATE (sizeof create_fields / sizeof create_fields[0])
#define N_EDIT (sizeof edit_fields / sizeof edit_fields[0])

/* The field an error names: the API's sentences start with the field's
 * name ("email must look like an email."), its conflicts' codes too
 * (email_already_used). NULL: the form's. */
/* The codes that name a field of the user's by their record. */
static bool field_of_code(const char *code, const char *field)
{
	static const char *const map[][2] = {
		{ "user_email_already_used", "email" },
		{ "user_external_id_already_used", "external_user_id" },
		{ "role_not_found", "role_id" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(code, map[i][0]) == 0)
			return strcmp(field, map[i][1]) == 0;
	return false;
}

static const char *error_field(const struct api_error *err, const struct form_field *fields,
                               size_t n)
{
	for (size_t i = 0; err && i < n; i++) {
		size_t len = strlen(fields[i].name);
		if ((strncmp(err->description, fields[i].name, len) == 0 &&
		     err->description[len] == ' ') ||
		    field_of_code(err->code, fields[i].name))
			return fields[i].name;
	}
	return NULL;
}

/* The form of fields posting to action, the values from value(arg, name),
 * err's sentence beside its field (or above the form). */
static void write_form(struct request_ctx *ctx, struct console_page *p, const char *action,
                       const struct form_field *fields, size_t n, const json_t *values,
                       const struct api_error *err, const char *submit)
{
	const char *at = error_field(err, fields, n);

	if (err && !at)
		console_page_error(p, err->description);
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	for (size_t i = 0; i < n; i++) {
		const char *why = at && strcmp(at, fields[i].name) == 0 ? err->description : NULL;
		if (strcmp(fields[i].name, "role_id") == 0) {
			console_role_field(ctx, p, str(values, "role_id"), "no role", why);
			continue;
		}
		console_page_field(p, &(struct console_field){
			.name = fields[i].name, .label = fields[i].label, .type = fields[i].type,
			.value = str(values, fields[i].name), .required = fields[i].required,
			.error = why });
	}
	console_page_submit(p, submit);
	console_page_form_end(p);
}

/* The posted form's fields as the API's JSON body: every field of the
 * form as sent (keep_empty: "" clears, as in a PUT), else only those with
 * a value. The body is the request's, read by the API's steps. */
static json_t *form_body(struct request_ctx *ctx, const struct form_field *fields, size_t n,
                         bool keep_empty)
{
	json_t *body = json_object();
	struct api_error err;

	for (size_t i = 0; i < n; i++) {
		const char *v = NULL;
		if (form_get(&ctx->form, fields[i].name, &v, &err) == 0 && v && (*v || keep_empty))
			json_object_set_new(body, fields[i].name, json_string(v));
	}
	return body;
}

/* ---- the list ---- */


static enum step_result need_read(struct flow *f)
{
	return console_need(f, "users:read", "Your role may not read the project's users.");
}

static enum step_result need_create(struct flow *f)
{
	return console_need(f, "users:create", "Your role may not create users. Nothing was changed.");
}

static enum step_result need_update(struct flow *f)
{
	return console_need(f, "users:update", "Your role may not change users. Nothing was changed.");
}

/* The API's list query, without the empty values a search form sends for
 * "any". */
static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct users_view *v = view_of(ctx);
	struct evkeyval *kv;
	struct api_error err;

	TAILQ_FOREACH(kv, &ctx->query, next)
		if (*kv->value)
			evhttp_add_header(&v->query, kv->key, kv->value);
	if (users_list_read_query(&v->query, &v->q, &err) < 0)
		return flow_error(f, &err);
	store_user_list(ctx->http.srv->store, console_of(ctx)->project_id, &v->q, &v->page,
	                flow_completion(f));
	return STEP_WAIT;
}

static void list_search_form(struct request_ctx *ctx, struct console_page *p,
                             const struct users_view *v)
{
	static const char *const active_values[] = { "", "true", "false" };
	static const char *const active_labels[] = { "any", "active", "inactive" };
	static const char *const sort_values[] = { "created_at", "updated_at", "display_name",
	                                           "email", "is_active", "external_user_id",
	                                           "role_name" };
	static const char *const sort_labels[] = { "created", "updated", "name", "email",
	                                           "active", "external ID", "role" };
	static const char *const dir_values[] = { "desc", "asc" };
	static const char *const dir_labels[] = { "descending", "ascending" };
	char *action = console_path(ctx, "users");

	console_page_form_begin(p, action, "get", NULL);
	console_page_field(p, &(struct console_field){ .name = "search", .label = "Search",
		.type = "search", .value = v->q.search });
	console_page_select(p, "is_active", "Active", active_values, active_labels, 3,
	                    evhttp_find_header(&v->query, "is_active"));
	console_role_field(ctx, p, v->q.role_id, "any", NULL);
	console_page_select(p, "sort_by", "Sort by", sort_values, sort_labels, 7,
	                    users_sort_key(v->q.sort));
	console_page_select(p, "sort_dir", "Order", dir_values, dir_labels, 2,
	                    v->q.desc ? "desc" : "asc");
	console_page_submit(p, "Show");
	console_page_form_end(p);
	free(action);
}

/* The list's link to page n, with the same query. */
static void page_link(struct request_ctx *ctx, struct console_page *p, const struct users_view *v,
                      long n, const char *text)
{
	static const char *const keep[] = { "search", "is_active", "role_id", "sort_by", "sort_dir",
	                                    "page_size" };
	const char *names[7], *values[7];
	char num[24], *base = console_path(ctx, "users"), *href;

	for (size_t i = 0; i < 6; i++) {
		names[i] = keep[i];
		values[i] = evhttp_find_header(&v->query, keep[i]);
	}
	snprintf(num, sizeof num, "%ld", n);
	names[6] = "page_num";
	values[6] = num;
	href = html_redirect_url(base, names, values, 7);
	console_page_link(p, href, text);
	evbuffer_add_printf(p->buf, "\n");
	free(href);
	free(base);
}

/* The page's records read in place (json_rows.h: a jansson tree of them
 * cost more than the store's read). -1 when the store's text is unreadable. */
static int list_rows(struct request_ctx *ctx, struct console_page *p, const char *data)
{
	enum { ID, NAME, EMAIL, EXTERNAL, ROLE, ACTIVE, N };
	static const char *const keys[N] = { "id", "display_name", "email", "external_user_id",
	                                     "role_name", "is_active" };
	static const char *const heads[] = { "Name", "Email", "External ID", "Role", "Active" };
	const char *u[N];
	struct json_rows rows;
	int rc;

	json_rows_open(&rows, data);
	console_page_table_begin(p, "Users", heads, 5);
	while ((rc = json_rows_next(&rows, keys, N, u)) == 1) {
		char *rest = xasprintf("users/%s", u[ID] ? u[ID] : "");
		char *href = console_path(ctx, rest);
		console_page_table_row_link(p, href, u[NAME], (const char *const[]){
			u[EMAIL], u[EXTERNAL], u[ROLE],
			u[ACTIVE] && strcmp(u[ACTIVE], "true") == 0 ? "yes" : "no" }, 4);
		free(href);
		free(rest);
	}
	console_page_table_end(p);
	json_rows_close(&rows);
	return rc;
}

static enum step_result list_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct users_view *v = view_of(ctx);
	long pages = (long)((v->page.total + v->q.page_size - 1) / v->q.page_size);
	struct console_page p;
	char line[96];

	console_begin(ctx, &p, "Users");
	if (console_may(ctx, "users:create")) {
		char *href = console_path(ctx, "new-user");
		console_page_link(&p, href, "Create a user");
		free(href);
	}
	list_search_form(ctx, &p, v);
	if (list_rows(ctx, &p, v->page.data) < 0) {
		evbuffer_free(p.buf);   /* never sent */
		return flow_fail(f, E_SYSTEM_ERROR, "The list could not be read.");
	}
	snprintf(line, sizeof line, "Page %ld of %ld, %lld users.", v->q.page_num,
	         pages ? pages : 1, v->page.total);
	console_page_text(&p, line);
	if (v->q.page_num > 1)
		page_link(ctx, &p, v, v->q.page_num - 1, "Previous page");
	if (v->q.page_num < pages)
		page_link(ctx, &p, v, v->q.page_num + 1, "Next page");
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_users_list_steps[] = {
	CONSOLE_SIGNED_IN, need_read, list_get, list_show, NULL,
};

/* ---- create ---- */

static void create_page(struct request_ctx *ctx, int status, const json_t *values,
                        const struct api_error *err)
{
	struct console_page p;
	char *action = console_path(ctx, "users");

	console_begin(ctx, &p, "Create a user");
	console_page_text(&p, "A user with an email signs in with it and the password; one "
	                  "without needs an external user ID.");
	write_form(ctx, &p, action, create_fields, N_CREATE, values, err, "Create");
	console_page_reply(ctx, status, &p);
	free(action);
}

static enum step_result new_show(struct flow *f)
{
	create_page(request_of(f), 200, NULL, NULL);
	return STEP_DONE;
}

flow_step *const console_user_new_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_roles_get, new_show, NULL,
};

static void create_failed(struct request_ctx *ctx, const struct api_error *err)
{
	create_page(ctx, err->status, ctx->body, err);
}

static enum step_result create_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx, create_fields, N_CREATE, false);
	ctx->fail_page = create_failed;
	return STEP_NEXT;
}

/* After a write: to the user's page (a reload does not post again). */
static enum step_result written(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	return console_show_record(ctx, users_write_record(ctx), "users");
}

flow_step *const console_user_create_steps[] = {
	CONSOLE_SIGNED_IN, need_create, console_roles_get, create_body, users_create_read, users_write_check,
	users_write_hash, users_write_store, written, NULL,
};

/* ---- one user ---- */

static enum step_result user_get(struct flow *f)
{
	return console_record_get(f, store_user_get, "user_id");
}

static void user_details(struct console_page *p, const json_t *u)
{
	static const char *const heads[] = { "Field", "Value" };
	static const char *const keys[] = { "id", "display_name", "email", "external_user_id",
	                                    "role_name", "created_at", "updated_at" };
	static const char *const labels[] = { "ID", "Name", "Email", "External user ID", "Role",
	                                      "Created", "Updated" };

	console_page_table_begin(p, "The user", heads, 2);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		console_page_table_row(p, (const char *const[]){ labels[i], str(u, keys[i]) }, 2);
	console_page_table_row(p, (const char *const[]){ "Active", yes_no(u, "is_active") }, 2);
	console_page_table_end(p);
}

/* The form of the user's page that posts one password to rest/password. */
static void password_form(struct request_ctx *ctx, struct console_page *p, const char *rest,
                          const struct api_error *err)
{
	char *sub = xasprintf("%s/password", rest);
	char *action = console_path(ctx, sub);

	console_page_heading(p, "Set a password");
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	console_page_field(p, &(struct console_field){ .name = "password", .label = "New password",
		.type = "password", .required = true, .error = err ? err->description : NULL });
	console_page_submit(p, "Set the password");
	console_page_form_end(p);
	free(action);
	free(sub);
}

/* The forms of the user's page, for users:update; err beside the edit
 * form's field it names, values the edit form's. */
static void user_forms(struct request_ctx *ctx, struct console_page *p, const char *rest,
                       bool active, const json_t *values, const struct api_error *err)
{
	static const struct form_field password_field[] = { { "password", "", "", true } };
	bool of_password = error_field(err, password_field, 1) != NULL;
	char *action = console_path(ctx, rest);
	char *sub;

	console_page_heading(p, "Edit");
	write_form(ctx, p, action, edit_fields, N_EDIT, values, of_password ? NULL : err, "Save");
	password_form(ctx, p, rest, of_password ? err : NULL);
	console_page_heading(p, active ? "Disable" : "Enable");
	sub = xasprintf("%s/active", rest);
	console_button_form(ctx, p, sub, "is_active", active ? "false" : "true",
	            active ? "Disable the user" : "Enable the user");
	free(sub);
	console_page_heading(p, "Delete");
	sub = xasprintf("%s/delete", rest);
	free(action);
	action = console_path(ctx, sub);
	console_page_link(p, action, "Delete the user");
	free(action);
	free(sub);
}

static void user_page(struct request_ctx *ctx, int status, const json_t *u, const json_t *values,
                      const struct api_error *err)
{
	char *rest = xasprintf("users/%s", request_param(ctx, "user_id"));
	struct console_page p;

	console_begin(ctx, &p, str(u, "display_name") ? str(u, "display_name") : "User");
	if (u)
		user_details(&p, u);
	console_user_sessions(ctx, &p, u);
	if (console_may(ctx, "users:update"))
		user_forms(ctx, &p, rest, json_is_true(json_object_get(u, "is_active")), values, err);
	console_page_reply(ctx, status, &p);
	free(rest);
}

static enum step_result user_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	user_page(ctx, 200, console_record(ctx), console_record(ctx), NULL);
	return STEP_DONE;
}

flow_step *const console_user_steps[] = {
	CONSOLE_SIGNED_IN, need_read, user_get, console_record_parse, console_user_sessions_get,
	console_roles_get, user_show, NULL,
};

/* ---- edit, password, enable/disable ---- */

static void update_failed(struct request_ctx *ctx, const struct api_error *err)
{
	user_page(ctx, err->status, console_record(ctx), ctx->body, err);
}

/* A PUT carries is_active (docs/api.md §"Users": required); the stored one
 * unless the post changes it. */
static void keep_active(struct request_ctx *ctx)
{
	json_object_set(ctx->body, "is_active", json_object_get(console_record(ctx), "is_active"));
}

static enum step_result edit_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->body = form_body(ctx, edit_fields, N_EDIT, true);
	keep_active(ctx);
	ctx->fail_page = update_failed;
	return STEP_NEXT;
}

flow_step *const console_user_update_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, console_user_sessions_get,
	console_roles_get, edit_body, users_update_read,
	users_write_check, users_write_hash, users_write_store, written, NULL,
};

/* The PUT body that changes field alone: the stored name, the email or
 * external ID the body must carry (docs/api.md §"Users") and is_active, kept. */
static enum step_result one_field_body(struct flow *f, const char *field, json_t *value)
{
	struct request_ctx *ctx = request_of(f);
	const char *keep[] = { "display_name", "email", "external_user_id" };
	const json_t *user = console_record(ctx);

	ctx->body = json_object();
	for (size_t i = 0; i < 3; i++)
		if (str(user, keep[i]))
			json_object_set_new(ctx->body, keep[i], json_string(str(user, keep[i])));
	keep_active(ctx);
	json_object_set_new(ctx->body, field, value);
	ctx->fail_page = update_failed;
	return STEP_NEXT;
}

static enum step_result password_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *password = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "password", &password, &err) < 0 || !password || !*password)
		return flow_fail(f, E_INVALID_PARAMS, "password is required.");
	return one_field_body(f, "password", json_string(password));
}

static enum step_result active_body(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	int active = -1;
	struct api_error err;

	if (form_read_bool(&ctx->form, "is_active", &active, &err) < 0 || active < 0)
		return flow_fail(f, E_INVALID_PARAMS, "is_active must be true or false.");
	return one_field_body(f, "is_active", json_boolean(active));
}

flow_step *const console_user_password_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, console_user_sessions_get,
	console_roles_get, password_body, users_update_read,
	users_write_check, users_write_hash, users_write_store, written, NULL,
};
flow_step *const console_user_active_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, console_user_sessions_get,
	console_roles_get, active_body, users_update_read,
	users_write_check, users_write_hash, users_write_store, written, NULL,
};

/* ---- delete, after a confirmation ---- */

static enum step_result delete_ask(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *rest = xasprintf("users/%s/delete", request_param(ctx, "user_id"));

	console_confirm(ctx, "Delete a user",
	                "Deleting a user cannot be undone: their sessions and sign-ins end.",
	                user_details, rest, "Delete this user");
	free(rest);
	return STEP_DONE;
}

flow_step *const console_user_delete_ask_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, delete_ask, NULL,
};

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_user_delete, "user_id");
}

static enum step_result deleted(struct flow *f)
{
	return console_show_list(request_of(f), "users");
}

flow_step *const console_user_delete_steps[] = {
	CONSOLE_SIGNED_IN, need_update, user_get, console_record_parse, delete, deleted, NULL,
};
