/*
 * Unit tests for store_resources.c against a real store in a temporary
 * directory: records, uniqueness, the update checks in the order of docs/api.md
 * §"Which error wins", permission IDs kept through renames and swaps, cascades to roles
 * and clients, and the list filters. Every test gets a fresh store and
 * project from the fixture, which the checked teardown removes.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "listing.h"
#include "store_projects.h"
#include "store.h"
#include "store_resources.h"


static struct {
	char dir[64];
	struct store *st;
	struct new_project np;
	struct api_error err;
	json_t *rec;       /* the last record a store function returned, parsed */
	char *text;        /* ... as the store wrote it */
	json_t *list;      /* the last page's records, parsed */
	char *page;        /* ... as the store wrote them */
	struct permission_input items[4];
	struct resource_input in;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_resources", fx.dir);
	ck_assert_int_eq(store_project_create(fx.st, "test", &fx.np, &fx.err), 0);
}

static void teardown(void)
{
	json_decref(fx.rec);
	free(fx.text);
	json_decref(fx.list);
	free(fx.page);
	store_new_project_release(&fx.np);
	check_store_remove(fx.st, fx.dir);
}

/* Fills fx.in with name, code and n permission items (codes given). */
static void input(const char *name, const char *code, size_t n, const char *const *codes)
{
	memset(&fx.in, 0, sizeof fx.in);
	memset(fx.items, 0, sizeof fx.items);
	fx.in.name = name;
	fx.in.code = code;
	fx.in.permissions_present = true;
	fx.in.n_permissions = n;
	fx.in.permissions = fx.items;
	for (size_t i = 0; i < n; i++) {
		fx.items[i].name = codes[i];
		fx.items[i].code = codes[i];
	}
}

/* The store's operations as these tests read them, through a completion
 * that the SQLite store runs before it returns. A write keeps its record in
 * fx.text and, parsed, in fx.rec (NULL when it failed, with fx.err). */
static void ended(const struct sync_result *r, char *text)
{
	ck_assert(r->done);
	json_decref(fx.rec);
	free(fx.text);
	fx.rec = NULL;
	fx.text = NULL;
	if (r->failed) {
		fx.err = r->err;
		free(text);
		return;
	}
	ck_assert_ptr_nonnull(text);
	fx.text = text;
	fx.rec = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	ck_assert_msg(json_is_object(fx.rec), "not a record: %s", text);
}

static json_t *resource_create(const char *project_id, const struct resource_input *in)
{
	struct sync_result r;
	char *text = NULL;

	store_resource_create(fx.st, &event_origin_cli, project_id, in, &text, sync_completion(&r));
	ended(&r, text);
	return fx.rec;
}

static json_t *resource_update(const char *project_id, const char *id,
                               const struct resource_input *in)
{
	struct sync_result r;
	char *text = NULL;
	char *target = strdup(id);   /* id may be fx.rec's, which the answer replaces */

	store_resource_update(fx.st, &event_origin_cli, project_id, target, in, &text, sync_completion(&r));
	free(target);
	ended(&r, text);
	return fx.rec;
}

static const char *rec_str(const char *key)
{
	return json_string_value(json_object_get(fx.rec, key));
}

static const char *perm_str(size_t i, const char *key)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(fx.rec, "permissions"), i), key));
}

static long long count(const char *sql)
{
	sqlite3_stmt *s;
	long long n = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void exec(const char *sql)
{
	ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* Creates "orders" with read, write; leaves the record in fx.rec. */
static void create_orders(void)
{
	static const char *const codes[] = { "read", "write" };
	input("Orders", "orders", 2, codes);
	ck_assert_ptr_nonnull(resource_create(fx.np.project_id, &fx.in));
}

/* The ID of the project's default resource with this code. */
static char *default_id(const char *code)
{
	char sql[256];
	sqlite3_stmt *s;
	char *id = NULL;

	snprintf(sql, sizeof sql, "SELECT id FROM resources WHERE project_id = '%s' AND code = '%s'",
	         fx.np.project_id, code);
	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		id = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	ck_assert_ptr_nonnull(id);
	return id;
}

START_TEST(test_create_record)
{
	create_orders();
	ck_assert_str_eq(rec_str("code"), "orders");
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
	ck_assert(json_is_false(json_object_get(fx.rec, "is_default")));
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permissions")), 2);
	ck_assert_str_eq(perm_str(0, "code"), "read");
	ck_assert_str_eq(perm_str(1, "code"), "write");
	ck_assert_str_eq(rec_str("created_at"), rec_str("updated_at"));
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
}
END_TEST

START_TEST(test_create_code_taken)
{
	create_orders();
	ck_assert_ptr_null(resource_create(fx.np.project_id, &fx.in));
	ck_assert_int_eq(fx.err.api_code, E_RESOURCE_CODE_ALREADY_USED);
	ck_assert_int_eq(fx.err.status, 409);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));   /* rolled back */
	ck_assert_int_eq(count("SELECT count(*) FROM resources WHERE code = 'orders'"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM permissions"), 4 * 3 + 2);
}
END_TEST

/* A UNIQUE failure the checks did not foresee (a duplicate permission code
 * the handler would have refused) rolls everything back, with a spec code. */
START_TEST(test_create_unforeseen_unique)
{
	static const char *const codes[] = { "read", "read" };
	input("Dup", "dup", 2, codes);
	ck_assert_ptr_null(resource_create(fx.np.project_id, &fx.in));
	ck_assert_int_eq(fx.err.api_code, E_INVALID_PARAMS);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	ck_assert_int_eq(count("SELECT count(*) FROM resources WHERE code = 'dup'"), 0);
}
END_TEST

enum update_case { UP_NOT_FOUND, UP_OTHER_PROJECT, UP_DEFAULT, UP_FOREIGN_ID, UP_CONFLICT };

/* Each update failure, with the code that must win when the body also
 * takes a used code ("users", a default resource's). */
START_TEST(test_update_errors)
{
	static const struct { enum api_code code; } want[] = {
		[UP_NOT_FOUND] = { E_RESOURCE_NOT_FOUND },
		[UP_OTHER_PROJECT] = { E_RESOURCE_NOT_FOUND },
		[UP_DEFAULT] = { E_INVALID_PARAMS },
		[UP_FOREIGN_ID] = { E_INVALID_PARAMS },
		[UP_CONFLICT] = { E_RESOURCE_CODE_ALREADY_USED },
	};
	static const char *const codes[] = { "read" };
	struct new_project other = { 0 };
	char *users = default_id("users");
	char *target;
	const char *project = fx.np.project_id;

	create_orders();
	target = strdup(rec_str("id"));
	input("X", "users", 0, codes);
	switch (_i) {
	case UP_NOT_FOUND:
		free(target);
		target = strdup("no-such-id");
		break;
	case UP_OTHER_PROJECT:
		ck_assert_int_eq(store_project_create(fx.st, "other", &other, &fx.err), 0);
		project = other.project_id;
		break;
	case UP_DEFAULT:
		free(target);
		target = strdup(users);
		break;
	case UP_FOREIGN_ID:
		input("X", "users", 1, codes);
		fx.items[0].id = "no-such-permission";
		break;
	case UP_CONFLICT:
		break;
	}
	ck_assert_ptr_null(resource_update(project, target, &fx.in));
	ck_assert_int_eq(fx.err.api_code, want[_i].code);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	ck_assert_int_eq(count("SELECT count(*) FROM resources WHERE code = 'users'"), 2 - (_i != UP_OTHER_PROJECT));
	free(target);
	free(users);
	store_new_project_release(&other);
}
END_TEST

START_TEST(test_update_keeps_ids_through_swap)
{
	static const char *const codes[] = { "write", "read", "new" };
	char *read_id, *write_id;

	create_orders();
	read_id = strdup(perm_str(0, "id"));
	write_id = strdup(perm_str(1, "id"));
	input("Orders", "orders", 3, codes);
	fx.items[0].id = read_id;    /* read becomes write */
	fx.items[1].id = write_id;   /* and write becomes read */
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(perm_str(0, "id"), read_id);
	ck_assert_str_eq(perm_str(0, "code"), "write");
	ck_assert_str_eq(perm_str(1, "id"), write_id);
	ck_assert_str_eq(perm_str(1, "code"), "read");
	ck_assert_str_eq(perm_str(2, "code"), "new");
	free(read_id);
	free(write_id);
}
END_TEST

START_TEST(test_update_absent_permissions_kept)
{
	create_orders();
	input("Orders 2", "orders-2", 0, NULL);
	fx.in.permissions_present = false;
	fx.in.description.state = FIELD_SET;
	fx.in.description.value = "d";
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(rec_str("code"), "orders-2");
	ck_assert_str_eq(rec_str("description"), "d");
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permissions")), 2);
	/* absent description is kept */
	fx.in.description.state = FIELD_ABSENT;
	fx.in.description.value = NULL;
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert_str_eq(rec_str("description"), "d");
	fx.in.description.state = FIELD_CLEAR;
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
}
END_TEST

/* docs/api.md §"Records": permissions left out are dropped from every role and client. */
START_TEST(test_update_cascades)
{
	static const char *const codes[] = { "read" };
	char sql[512];

	create_orders();
	snprintf(sql, sizeof sql,
	         "INSERT INTO roles (id, project_id, code, name, created_at, updated_at)"
	         " VALUES ('role', '%s', 'r', 'R', 0, 0);"
	         "INSERT INTO role_permissions VALUES ('role', '%s'), ('role', '%s');"
	         "INSERT INTO client_permissions VALUES ('%s', '%s'), ('%s', '%s');",
	         fx.np.project_id, perm_str(0, "id"), perm_str(1, "id"), fx.np.client_id,
	         perm_str(0, "id"), fx.np.client_id, perm_str(1, "id"));
	exec(sql);
	input("Orders", "orders", 1, codes);
	fx.items[0].id = perm_str(0, "id");
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_int_eq(count("SELECT count(*) FROM role_permissions WHERE role_id = 'role'"), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM client_permissions WHERE permission_id = '%s'",
	         perm_str(0, "id"));
	ck_assert_int_eq(count(sql), 1);
	input("Orders", "orders", 0, NULL);
	resource_update(fx.np.project_id, rec_str("id"), &fx.in);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_int_eq(count("SELECT count(*) FROM role_permissions"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM client_permissions"), 12);   /* the admin's */
}
END_TEST

static json_t *resource_get(const char *project_id, const char *id)
{
	struct sync_result r;
	char *text = NULL;
	char *target = strdup(id);

	store_resource_get(fx.st, project_id, target, &text, sync_completion(&r));
	free(target);
	ended(&r, text);
	return fx.rec;
}

/* 0, or -1 with fx.err. */
static int resource_delete(const char *project_id, const char *id)
{
	struct sync_result r;
	char *target = strdup(id);

	store_resource_delete(fx.st, &event_origin_cli, project_id, target, sync_completion(&r));
	free(target);
	ck_assert(r.done);
	fx.err = r.err;
	return r.failed ? -1 : 0;
}

/* docs/api.md §"Read one and delete": the one record definition, by ID, in its project only. */
START_TEST(test_get)
{
	char *written, *id;
	struct new_project other;

	create_orders();
	written = strdup(fx.text);
	id = strdup(rec_str("id"));
	ck_assert_ptr_nonnull(resource_get(fx.np.project_id, id));
	ck_assert_str_eq(fx.text, written);
	ck_assert_ptr_null(resource_get(fx.np.project_id, "nope"));
	ck_assert_str_eq(fx.err.code, "resource_not_found");
	ck_assert_int_eq(store_project_create(fx.st, "other", &other, &fx.err), 0);
	ck_assert_ptr_null(resource_get(other.project_id, id));
	ck_assert_str_eq(fx.err.code, "resource_not_found");
	store_new_project_release(&other);
	free(written);
	free(id);
}
END_TEST

/* docs/api.md §"Read one and delete": the permissions leave every role and client; a default
 * resource, an unknown one and another project's are refused, in that
 * project's order, and change nothing. */
START_TEST(test_delete)
{
	char sql[512], *id, *users = default_id("users");
	struct new_project other;

	create_orders();
	id = strdup(rec_str("id"));
	snprintf(sql, sizeof sql,
	         "INSERT INTO roles (id, project_id, code, name, created_at, updated_at)"
	         " VALUES ('role', '%s', 'r', 'R', 0, 0);"
	         "INSERT INTO role_permissions VALUES ('role', '%s'), ('role', '%s');"
	         "INSERT INTO client_permissions VALUES ('%s', '%s');",
	         fx.np.project_id, perm_str(0, "id"), perm_str(1, "id"), fx.np.client_id,
	         perm_str(0, "id"));
	exec(sql);
	ck_assert_int_eq(store_project_create(fx.st, "other", &other, &fx.err), 0);

	ck_assert_int_eq(resource_delete(fx.np.project_id, users), -1);
	check_invalid_params(&fx.err, -1, "A default resource cannot be deleted.");
	ck_assert_int_eq(resource_delete(fx.np.project_id, "nope"), -1);
	ck_assert_str_eq(fx.err.code, "resource_not_found");
	ck_assert_int_eq(resource_delete(other.project_id, id), -1);
	ck_assert_str_eq(fx.err.code, "resource_not_found");
	ck_assert_int_eq(count("SELECT count(*) FROM permissions"), 2 * 12 + 2);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));

	ck_assert_int_eq(resource_delete(fx.np.project_id, id), 0);
	ck_assert_ptr_null(resource_get(fx.np.project_id, id));
	ck_assert_int_eq(count("SELECT count(*) FROM permissions"), 2 * 12);
	ck_assert_int_eq(count("SELECT count(*) FROM role_permissions"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM client_permissions"), 2 * 12);   /* admins' */
	ck_assert_int_eq(count("SELECT count(*) FROM roles"), 1);
	ck_assert_int_eq(resource_delete(fx.np.project_id, id), -1);
	ck_assert_str_eq(fx.err.code, "resource_not_found");
	store_new_project_release(&other);
	free(users);
	free(id);
}
END_TEST

/* Page page_num of the list, page_size records each, into fx.page and,
 * parsed, fx.list; returns the total. */
static long long list(const char *search, int is_default, long page_size, long page_num)
{
	struct list_query q = LIST_QUERY_INIT;
	struct page page = { NULL, -1 };
	struct sync_result r;

	q.search = search;
	q.is_default = is_default;
	q.page_size = page_size;
	q.page_num = page_num;
	store_resource_list(fx.st, fx.np.project_id, &q, &page, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	json_decref(fx.list);
	free(fx.page);
	fx.page = page.data;
	fx.list = json_loads(fx.page, JSON_REJECT_DUPLICATES, NULL);
	ck_assert_msg(json_is_array(fx.list), "not a page: %s", fx.page);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	return page.total;
}

START_TEST(test_list_filters)
{
	create_orders();
	ck_assert_int_eq(list(NULL, -1, 100, 1), 5);
	ck_assert_int_eq(json_array_size(fx.list), 5);
	ck_assert_int_eq(list(NULL, 1, 100, 1), 4);
	ck_assert_int_eq(list(NULL, 0, 100, 1), 1);
	ck_assert_int_eq(list("WRITE", -1, 100, 1), 1);   /* a permission code, any case */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "code")),
	                 "orders");
	ck_assert_int_eq(list("read", 1, 2, 1), 4);
	ck_assert_int_eq(json_array_size(fx.list), 2);
	ck_assert_int_eq(list("read", 1, 2, 3), 4);
	ck_assert_int_eq(json_array_size(fx.list), 0);
	ck_assert_int_eq(list("re_d", -1, 100, 1), 0);     /* _ is literal */
	ck_assert_int_eq(list("%", -1, 100, 1), 0);        /* % is literal */
	ck_assert_int_eq(list("\\", -1, 100, 1), 0);       /* \ is literal */
	ck_assert_int_eq(list("rEaD", -1, 2, 1), 5);       /* any case: every resource has one */
}
END_TEST

/* The record has one definition: its text, key order included, is the same
 * in the answer to a write and in a list page (docs/api.md §"Records"). */
START_TEST(test_record_text)
{
	char *want, *page;

	create_orders();
	want = sqlite3_mprintf("{\"id\":\"%s\",\"name\":\"Orders\",\"code\":\"orders\","
	                       "\"description\":null,\"is_default\":false,\"permissions\":["
	                       "{\"id\":\"%s\",\"name\":\"read\",\"code\":\"read\",\"description\":null},"
	                       "{\"id\":\"%s\",\"name\":\"write\",\"code\":\"write\",\"description\":null}],"
	                       "\"created_at\":\"%s\",\"updated_at\":\"%s\"}",
	                       rec_str("id"), perm_str(0, "id"), perm_str(1, "id"),
	                       rec_str("created_at"), rec_str("updated_at"));
	ck_assert_str_eq(fx.text, want);
	ck_assert_int_eq(list(NULL, 0, 10, 1), 1);
	page = sqlite3_mprintf("[%s]", want);
	ck_assert_str_eq(fx.page, page);
	sqlite3_free(want);
	sqlite3_free(page);
}
END_TEST

/* A time the API never writes (another process may write the file) still
 * reads as RFC 3339. */
START_TEST(test_record_odd_times)
{
	char sql[256];

	create_orders();
	snprintf(sql, sizeof sql, "UPDATE resources SET created_at = -1, updated_at = 0"
	         " WHERE id = '%s'", rec_str("id"));
	exec(sql);
	ck_assert_int_eq(list(NULL, 0, 10, 1), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "created_at")),
	                 "1969-12-31T23:59:59.999Z");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "updated_at")),
	                 "1970-01-01T00:00:00.000Z");
}
END_TEST

/* docs/api.md §"Permissions and default resources": a new project's four default resources, as records. */
START_TEST(test_defaults)
{
	static const char *const codes[] = { "resources", "users", "roles", "clients" };
	static const char *const perms[] = { "create", "update", "read" };
	static const char *const names[] = { "Create", "Update", "Read" };

	ck_assert_int_eq(list(NULL, 1, 10, 1), 4);
	for (size_t i = 0; i < N_ELEMS(codes); i++) {
		json_t *rec = NULL, *v;
		size_t j;
		char desc[64];

		json_array_foreach(fx.list, j, v)
			if (!strcmp(json_string_value(json_object_get(v, "code")), codes[i]))
				rec = v;
		ck_assert_msg(rec != NULL, "no default resource %s", codes[i]);
		ck_assert(json_is_true(json_object_get(rec, "is_default")));
		ck_assert_uint_eq(json_array_size(json_object_get(rec, "permissions")), 3);
		json_array_foreach(json_object_get(rec, "permissions"), j, v) {
			snprintf(desc, sizeof desc, "%s %s", names[j], codes[i]);
			ck_assert_str_eq(json_string_value(json_object_get(v, "code")), perms[j]);
			ck_assert_str_eq(json_string_value(json_object_get(v, "name")), names[j]);
			ck_assert_str_eq(json_string_value(json_object_get(v, "description")), desc);
		}
	}
}
END_TEST

static Suite *store_resources_suite(void)
{
	Suite *s = suite_create("store_resources");
	TCase *tc = tcase_create("store");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_record);
	tcase_add_test(tc, test_create_code_taken);
	tcase_add_test(tc, test_create_unforeseen_unique);
	tcase_add_loop_test(tc, test_update_errors, UP_NOT_FOUND, UP_CONFLICT + 1);
	tcase_add_test(tc, test_update_keeps_ids_through_swap);
	tcase_add_test(tc, test_update_absent_permissions_kept);
	tcase_add_test(tc, test_update_cascades);
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_list_filters);
	tcase_add_test(tc, test_record_text);
	tcase_add_test(tc, test_record_odd_times);
	tcase_add_test(tc, test_defaults);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_resources_suite()));
}
