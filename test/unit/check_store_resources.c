/*
 * Unit tests for store_resources.c against a real store in a temporary
 * directory: records, uniqueness, the update checks in CONTRACT.md §3's
 * order, permission IDs kept through renames and swaps, cascades to roles
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

#include "check_suite.h"
#include "listing.h"
#include "store.h"
#include "store_resources.h"


static struct {
	char dir[64];
	char path[PATH_MAX];
	struct store *st;
	struct new_project np;
	struct api_error err;
	json_t *rec;       /* the last record a store function returned */
	json_t *list;      /* the last page */
	struct permission_input items[4];
	struct resource_input in;
} fx;

static void setup(void)
{
	char errbuf[256];

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_store_resources.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.path, sizeof fx.path, "%s/test.db", fx.dir);
	fx.st = store_open(fx.path, false, errbuf, sizeof errbuf);
	ck_assert_msg(fx.st != NULL, "store_open: %s", errbuf);
	ck_assert_int_eq(store_project_create(fx.st, "test", &fx.np, &fx.err), 0);
}

static void remove_file(const char *suffix)
{
	char p[PATH_MAX + 8];
	snprintf(p, sizeof p, "%s%s", fx.path, suffix);
	unlink(p);
}

static void teardown(void)
{
	json_decref(fx.rec);
	json_decref(fx.list);
	store_new_project_release(&fx.np);
	store_close(fx.st);
	remove_file("");
	remove_file("-wal");
	remove_file("-shm");
	rmdir(fx.dir);
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

static void keep_rec(json_t *rec)
{
	json_decref(fx.rec);
	fx.rec = rec;
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

	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void exec(const char *sql)
{
	ck_assert_int_eq(sqlite3_exec(fx.st->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* Creates "orders" with read, write; leaves the record in fx.rec. */
static void create_orders(void)
{
	static const char *const codes[] = { "read", "write" };
	input("Orders", "orders", 2, codes);
	keep_rec(store_resource_create(fx.st, fx.np.project_id, &fx.in, &fx.err));
	ck_assert_ptr_nonnull(fx.rec);
}

/* The ID of the project's default resource with this code. */
static char *default_id(const char *code)
{
	char sql[256];
	sqlite3_stmt *s;
	char *id = NULL;

	snprintf(sql, sizeof sql, "SELECT id FROM resources WHERE project_id = '%s' AND code = '%s'",
	         fx.np.project_id, code);
	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db, sql, -1, &s, NULL), SQLITE_OK);
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
	ck_assert(sqlite3_get_autocommit(fx.st->db));
}
END_TEST

START_TEST(test_create_code_taken)
{
	create_orders();
	keep_rec(store_resource_create(fx.st, fx.np.project_id, &fx.in, &fx.err));
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, E_RESOURCE_CODE_ALREADY_USED);
	ck_assert_int_eq(fx.err.status, 409);
	ck_assert(sqlite3_get_autocommit(fx.st->db));   /* rolled back */
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
	keep_rec(store_resource_create(fx.st, fx.np.project_id, &fx.in, &fx.err));
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, E_INVALID_PARAMS);
	ck_assert(sqlite3_get_autocommit(fx.st->db));
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
	keep_rec(store_resource_update(fx.st, project, target, &fx.in, &fx.err));
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, want[_i].code);
	ck_assert(sqlite3_get_autocommit(fx.st->db));
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
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
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
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(rec_str("code"), "orders-2");
	ck_assert_str_eq(rec_str("description"), "d");
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permissions")), 2);
	/* absent description is kept */
	fx.in.description.state = FIELD_ABSENT;
	fx.in.description.value = NULL;
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
	ck_assert_str_eq(rec_str("description"), "d");
	fx.in.description.state = FIELD_CLEAR;
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
}
END_TEST

/* CONTRACT.md §4: permissions left out are dropped from every role and client. */
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
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_int_eq(count("SELECT count(*) FROM role_permissions WHERE role_id = 'role'"), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM client_permissions WHERE permission_id = '%s'",
	         perm_str(0, "id"));
	ck_assert_int_eq(count(sql), 1);
	input("Orders", "orders", 0, NULL);
	keep_rec(store_resource_update(fx.st, fx.np.project_id, rec_str("id"), &fx.in, &fx.err));
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_int_eq(count("SELECT count(*) FROM role_permissions"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM client_permissions"), 12);   /* the admin's */
}
END_TEST

static long long list(const char *search, int is_default, long long limit, long long offset)
{
	struct resource_filter f = { NULL, is_default, limit, offset };
	long long total = -1;
	char *like = search ? like_pattern(search) : NULL;

	f.like = like;
	json_decref(fx.list);
	ck_assert_int_eq(store_resource_list(fx.st, fx.np.project_id, &f, &fx.list, &total,
	                                     &fx.err), 0);
	free(like);
	return total;
}

START_TEST(test_list_filters)
{
	create_orders();
	ck_assert_int_eq(list(NULL, -1, 100, 0), 5);
	ck_assert_int_eq(json_array_size(fx.list), 5);
	ck_assert_int_eq(list(NULL, 1, 100, 0), 4);
	ck_assert_int_eq(list(NULL, 0, 100, 0), 1);
	ck_assert_int_eq(list("WRITE", -1, 100, 0), 1);   /* a permission code, any case */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "code")),
	                 "orders");
	ck_assert_int_eq(list("read", 1, 2, 0), 4);
	ck_assert_int_eq(json_array_size(fx.list), 2);
	ck_assert_int_eq(list("read", 1, 2, 4), 4);
	ck_assert_int_eq(json_array_size(fx.list), 0);
	ck_assert_int_eq(list("re_d", -1, 100, 0), 0);     /* _ is literal */
	ck_assert_int_eq(list("%", -1, 100, 0), 0);        /* % is literal */
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
	tcase_add_test(tc, test_list_filters);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_resources_suite()));
}
