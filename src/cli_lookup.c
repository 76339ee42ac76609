/*
 * Finding records by what a person knows (cli_lookup.h). Each read is the
 * store operation the API uses, waited for (sync_completion); a name that
 * is not an ID is looked up in the project's list.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_lookup.h"
#include "cli_output.h"
#include "store_clients.h"
#include "store_resources.h"
#include "store_roles.h"
#include "store_users.h"
#include "validate.h"

json_t *cli_list_all(struct cli_call *c, cli_list_op *op, struct list_query q,
                     struct api_error *err)
{
	json_t *all = json_array();

	q.page_size = PAGE_SIZE_MAX;
	for (q.page_num = 1;; q.page_num++) {
		struct page page = { 0 };
		struct sync_result r;
		long long total;
		size_t got;
		json_t *rows;

		op(c->st, c->project_id, &q, &page, sync_completion(&r));
		rows = sync_wait(&r, err) < 0 ? NULL : cli_record(page.data ? page.data : "", err);
		total = page.total;
		page_release(&page);
		if (!rows) {
			json_decref(all);
			return NULL;
		}
		got = json_array_size(rows);
		json_array_extend(all, rows);
		json_decref(rows);
		if (got < (size_t)q.page_size || (long long)json_array_size(all) >= total)
			return all;
	}
}

/* A record read by op: its JSON, or NULL with err. */
static json_t *record_of(struct sync_result *r, char *text, struct api_error *err)
{
	json_t *v = sync_wait(r, err) < 0 ? NULL : cli_record(text, err);

	free(text);
	return v;
}

/* The member of list whose key is value, or NULL; *n says how many are. */
static json_t *member_where(json_t *list, const char *key, const char *value, size_t *n)
{
	json_t *found = NULL, *row;
	size_t i;

	*n = 0;
	json_array_foreach(list, i, row) {
		const char *s = json_string_value(json_object_get(row, key));
		if (s && !strcmp(s, value)) {
			found = row;
			++*n;
		}
	}
	return found;
}

/* The one record of op's list whose key is value (json_incref'd), found by
 * a search for it; NULL with err: missing when none, invalid_params when
 * several (a name that is not unique). */
static json_t *find_by(struct cli_call *c, cli_list_op *op, const char *key, const char *value,
                       const struct record_missing *missing, struct api_error *err)
{
	struct list_query q = LIST_QUERY_INIT;
	json_t *list, *found;
	size_t n;

	q.search = value;
	list = cli_list_all(c, op, q, err);
	if (!list)
		return NULL;
	found = member_where(list, key, value, &n);
	if (n == 0)
		api_fail(err, missing->code, "%s", missing->sentence);
	else if (n > 1)
		api_fail(err, E_INVALID_PARAMS, "Several records of this project have the %s"
		         " \"%.60s\"; name one by its ID.", key, value);
	found = n == 1 ? json_incref(found) : NULL;
	json_decref(list);
	return found;
}

json_t *cli_find_user(struct cli_call *c, const char *who, struct api_error *err)
{
	struct store_user_signin u = { 0 };
	struct sync_result r;
	char *text = NULL;
	json_t *v;

	store_user_get(c->st, c->project_id, who, &text, sync_completion(&r));
	v = record_of(&r, text, err);
	if (v || err->api_code != E_USER_NOT_FOUND)
		return v;
	store_signin_user(c->st, c->project_id, who, &u, sync_completion(&r));
	if (sync_wait(&r, err) < 0)
		return NULL;
	text = NULL;
	if (u.found)
		store_user_get(c->st, c->project_id, u.user_id, &text, sync_completion(&r));
	else
		store_user_get_external(c->st, c->project_id, who, false, &text, sync_completion(&r));
	store_user_signin_release(&u);
	v = record_of(&r, text, err);
	if (!v && err->api_code == E_USER_NOT_FOUND)
		api_fail(err, E_USER_NOT_FOUND, "%s", store_user_missing->sentence);
	return v;
}

/* The record op reads by ID, else the one of list's whose key is which. */
static json_t *find_record(struct cli_call *c, cli_get_op *get, cli_list_op *list,
                           const char *key, const char *which,
                           const struct record_missing *missing, struct api_error *err)
{
	struct sync_result r;
	char *text = NULL;
	json_t *v;

	get(c->st, c->project_id, which, &text, sync_completion(&r));
	v = record_of(&r, text, err);
	if (v || err->api_code != missing->code)
		return v;
	return find_by(c, list, key, which, missing, err);
}

json_t *cli_find_role(struct cli_call *c, const char *which, struct api_error *err)
{
	return find_record(c, store_role_get, store_role_list, "code", which, store_role_missing,
	                   err);
}

json_t *cli_find_client(struct cli_call *c, const char *which, struct api_error *err)
{
	return find_record(c, store_client_get, store_client_list, "name", which,
	                   store_client_missing, err);
}

int cli_list_print(struct cli_call *c, cli_list_op *op, const char *search,
                   const char *const *columns)
{
	struct list_query q = LIST_QUERY_INIT;
	struct api_error err;
	json_t *all;

	q.desc = false;
	q.search = search;
	all = cli_list_all(c, op, q, &err);
	return all ? cli_print(c, all, columns) : cli_fail(&err);
}

int cli_delete_print(struct cli_call *c, json_t *record, cli_delete_op *op,
                     const char *const *columns)
{
	struct api_error err;
	struct sync_result r;

	op(c->st, &event_origin_cli, c->project_id,
	   json_string_value(json_object_get(record, "id")), NULL, sync_completion(&r));
	if (sync_wait(&r, &err) < 0) {
		json_decref(record);
		return cli_fail(&err);
	}
	return cli_print(c, record, columns);
}

/* Appends to ids the IDs of the permissions of resources that named (one
 * named form, or "*") stands for; false when it stands for none. */
static bool add_named(json_t *ids, json_t *resources, const char *named)
{
	const char *colon = strchr(named, ':');
	json_t *res, *perm;
	size_t i, j;
	bool any = false;

	json_array_foreach(resources, i, res) {
		const char *code = json_string_value(json_object_get(res, "code"));
		bool all = !strcmp(named, "*") && json_is_true(json_object_get(res, "is_default"));

		if (!all && (!colon || !code || strlen(code) != (size_t)(colon - named) ||
		             strncmp(code, named, strlen(code)) != 0))
			continue;
		json_array_foreach(json_object_get(res, "permissions"), j, perm) {
			const char *pcode = json_string_value(json_object_get(perm, "code"));
			if (all || (pcode && !strcmp(pcode, colon + 1))) {
				json_array_append(ids, json_object_get(perm, "id"));
				any = true;
			}
		}
	}
	return any;
}

json_t *cli_permission_ids(struct cli_call *c, const char *const *named, size_t n,
                           struct api_error *err)
{
	struct list_query q = LIST_QUERY_INIT;
	json_t *resources, *ids = json_array();

	if (n == 0)
		return ids;
	resources = cli_list_all(c, store_resource_list, q, err);
	for (size_t i = 0; resources && i < n; i++)
		if (!add_named(ids, resources, named[i])) {
			api_fail(err, E_SOME_PERMISSIONS_NOT_FOUND,
			         "The permission %.60s does not exist in this project.", named[i]);
			json_decref(ids);
			ids = NULL;
			break;
		}
	if (!resources) {
		json_decref(ids);
		ids = NULL;
	}
	json_decref(resources);
	return ids;
}

int cli_body_permissions(struct cli_call *c, json_t *body, struct api_error *err)
{
	size_t n;
	const char *const *named = cli_arg_list(c, "--permission", &n);
	json_t *ids = cli_permission_ids(c, named, n, err);

	if (!ids)
		return -1;
	json_object_set_new(body, "permission_ids", ids);
	return 0;
}
