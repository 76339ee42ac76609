/*
 * Unit tests for store_users.c against a real store in a temporary
 * directory: records, keep/clear on update, each error code, filters, and
 * the hygiene the black-box tests cannot see (no transaction left open, no
 * statement left un-reset, no hash in a record). Each test gets a fresh store.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_users.h"
#include "util.h"

static char dir[] = "/tmp/check_store_users.XXXXXX";
static char path[sizeof dir + 16];
static struct store *st;
static struct new_project proj, other;

static void exec_sql(const char *sql)
{
	ck_assert_int_eq(sqlite3_exec(st->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

static void setup(void)
{
	char errbuf[256], *q;
	struct api_error err;

	strcpy(dir, "/tmp/check_store_users.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/test.db", dir);
	st = store_open(path, false, errbuf, sizeof errbuf);
	ck_assert_msg(st != NULL, "%s", errbuf);
	ck_assert_int_eq(store_project_create(st, "p", &proj, &err), 0);
	ck_assert_int_eq(store_project_create(st, "other", &other, &err), 0);
	q = xasprintf(
		"INSERT INTO roles VALUES ('r1', '%s', 'r1', 'Reader', NULL, 0, 0);"
		"INSERT INTO roles VALUES ('r_other', '%s', 'ro', 'Other', NULL, 0, 0);"
		"INSERT INTO role_permissions SELECT 'r1', pm.id FROM permissions pm"
		" JOIN resources r ON r.id = pm.resource_id WHERE pm.project_id = '%s'"
		" AND pm.code = 'read' AND r.code IN ('users', 'clients');",
		proj.project_id, other.project_id, proj.project_id);
	exec_sql(q);
	free(q);
}

/* Every test ends with no open transaction and every statement reset. */
static void teardown(void)
{
	ck_assert_int_ne(sqlite3_get_autocommit(st->db), 0);
	for (size_t i = 0; i < st->users.count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(st->users.stmt[i]), 0);
	store_new_project_release(&proj);
	store_new_project_release(&other);
	store_close(st);
	unlink(path);
	rmdir(dir);
}

static struct str_field set(const char *v)
{
	struct str_field f = { FIELD_SET, v };
	return f;
}

static const struct str_field clear = { FIELD_CLEAR, NULL };

/* Creates a user and returns its ID (caller frees). */
static char *create(const char *name, const char *ext, const char *email, const char *role)
{
	struct user_fields f = { .display_name = name, .is_active = -1 };
	struct api_error err;
	json_t *rec;
	char *id;

	if (ext)
		f.external_user_id = set(ext);
	if (email)
		f.email = set(email);
	if (role)
		f.role_id = set(role);
	ck_assert_int_eq(store_user_create(st, proj.project_id, &f, &rec, &err), 0);
	id = xstrdup(json_string_value(json_object_get(rec, "id")));
	json_decref(rec);
	return id;
}

START_TEST(test_create_record)
{
	struct user_fields f = { .display_name = "Ann", .is_active = -1,
		.external_user_id = { FIELD_SET, "ann" }, .email = { FIELD_SET, "Ann@x.io" },
		.role_id = { FIELD_SET, "r1" }, .password_hash = "$argon2id$fake" };
	struct api_error err;
	json_t *rec;
	char *dump;

	ck_assert_int_eq(store_user_create(st, proj.project_id, &f, &rec, &err), 0);
	ck_assert_uint_eq(json_object_size(rec), 10);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "role_name")), "Reader");
	ck_assert(json_is_true(json_object_get(rec, "is_active")));
	ck_assert(json_is_null(json_object_get(rec, "avatar_url")));
	dump = json_dumps(rec, 0);
	ck_assert_ptr_null(strstr(dump, "argon2"));
	free(dump);
	json_decref(rec);
}
END_TEST

START_TEST(test_create_errors)
{
	struct user_fields f = { .display_name = "B", .is_active = -1 };
	struct api_error err;
	json_t *rec = (json_t *)1;

	free(create("A", "ext-a", "a@x.io", NULL));
	f.external_user_id = set("ext-a");
	ck_assert_int_eq(store_user_create(st, proj.project_id, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EXTERNAL_ID_ALREADY_USED);
	ck_assert_ptr_null(rec);
	f.external_user_id = set("ext-b");
	f.email = set("A@X.IO");
	ck_assert_int_eq(store_user_create(st, proj.project_id, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EMAIL_ALREADY_USED);
	f.role_id = set("r_other");
	ck_assert_int_eq(store_user_create(st, proj.project_id, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_ROLE_NOT_FOUND);
	/* The same values are free in another project. */
	f.role_id = set("r_other");
	f.external_user_id = set("ext-a");
	ck_assert_int_eq(store_user_create(st, other.project_id, &f, &rec, &err), 0);
	json_decref(rec);
}
END_TEST

START_TEST(test_update_keep_and_clear)
{
	char *id = create("A", "ext-a", "a@x.io", "r1");
	struct user_fields f = { .display_name = "A2", .is_active = 0 };
	struct api_error err;
	json_t *rec;

	/* All optional fields absent: kept. */
	ck_assert_int_eq(store_user_update(st, proj.project_id, id, &f, &rec, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "external_user_id")), "ext-a");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "email")), "a@x.io");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "role_id")), "r1");
	ck_assert(json_is_false(json_object_get(rec, "is_active")));
	json_decref(rec);
	/* Cleared. */
	f.email = clear;
	f.role_id = clear;
	f.avatar_url = set("https://a.io/x.png");
	f.is_active = 1;
	ck_assert_int_eq(store_user_update(st, proj.project_id, id, &f, &rec, &err), 0);
	ck_assert(json_is_null(json_object_get(rec, "email")));
	ck_assert(json_is_null(json_object_get(rec, "role_name")));
	ck_assert_str_eq(json_string_value(json_object_get(rec, "avatar_url")), "https://a.io/x.png");
	json_decref(rec);
	free(id);
}
END_TEST

START_TEST(test_update_errors)
{
	char *a = create("A", "ext-a", "a@x.io", NULL);
	char *b = create("B", "ext-b", NULL, NULL);
	struct user_fields f = { .display_name = "B", .is_active = 1 };
	struct api_error err;
	json_t *rec;

	f.external_user_id = set("ext-a");
	f.role_id = set("nope");
	ck_assert_int_eq(store_user_update(st, other.project_id, b, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_NOT_FOUND);
	ck_assert_int_eq(store_user_update(st, proj.project_id, b, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_ROLE_NOT_FOUND);
	f.role_id = clear;
	f.email = set("A@x.io");
	ck_assert_int_eq(store_user_update(st, proj.project_id, b, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EXTERNAL_ID_ALREADY_USED);
	f.external_user_id = set("ext-b");
	ck_assert_int_eq(store_user_update(st, proj.project_id, b, &f, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EMAIL_ALREADY_USED);
	/* A's own values in another case are no conflict. */
	f.external_user_id = set("ext-a");
	f.email = set("A@X.io");
	ck_assert_int_eq(store_user_update(st, proj.project_id, a, &f, &rec, &err), 0);
	json_decref(rec);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_get_external)
{
	char *id = create("A", "ext-a", NULL, "r1");
	struct api_error err;
	json_t *rec, *perms;

	rec = store_user_get_external(st, proj.project_id, "ext-a", false, &err);
	ck_assert_ptr_nonnull(rec);
	ck_assert_ptr_null(json_object_get(rec, "permissions"));
	json_decref(rec);
	rec = store_user_get_external(st, proj.project_id, "ext-a", true, &err);
	perms = json_object_get(rec, "permissions");
	ck_assert_uint_eq(json_array_size(perms), 2);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 0)), "clients:read");
	ck_assert_str_eq(json_string_value(json_array_get(perms, 1)), "users:read");
	json_decref(rec);
	ck_assert_ptr_null(store_user_get_external(st, other.project_id, "ext-a", true, &err));
	ck_assert_int_eq(err.api_code, E_USER_NOT_FOUND);
	ck_assert_ptr_null(store_user_get_external(st, proj.project_id, "EXT-A", false, &err));
	free(id);
}
END_TEST

START_TEST(test_list_filters)
{
	struct list_params p = LIST_PARAMS_INIT;
	struct user_filter filter = { -1, NULL };
	struct api_error err;
	long long total;
	json_t *data;
	char *ids[4];

	ids[0] = create("alice", "e0", NULL, "r1");
	ids[1] = create("ALICE 100%", "e1", "x@y.io", NULL);
	ids[2] = create("bob", "e2", "alice@y.io", "r1");
	ids[3] = create("b_b", "e3", NULL, NULL);
	p.page_size = 2;
	p.sort = USER_SORT_DISPLAY_NAME;
	p.desc = false;
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_int_eq(total, 4);
	ck_assert_uint_eq(json_array_size(data), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(data, 1), "display_name")),
	                 "ALICE 100%");   /* alice < ALICE 100% < b_b < bob, case ignored */
	json_decref(data);
	p.like = like_pattern("ALIce");
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_int_eq(total, 3);   /* by name twice, by email once */
	json_decref(data);
	filter.role_id = "r1";
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_int_eq(total, 2);
	json_decref(data);
	list_params_release(&p);
	p.like = like_pattern("_");
	filter.role_id = NULL;
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_int_eq(total, 1);   /* "_" is literal */
	json_decref(data);
	list_params_release(&p);
	p.page_num = 3;
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_uint_eq(json_array_size(data), 0);
	ck_assert_int_eq(total, 4);
	json_decref(data);
	filter.is_active = 0;
	data = store_user_list(st, proj.project_id, &p, &filter, &total, &err);
	ck_assert_int_eq(total, 0);
	json_decref(data);
	for (int i = 0; i < 4; i++)
		free(ids[i]);
}
END_TEST

static Suite *store_users_suite(void)
{
	Suite *s = suite_create("store_users");
	TCase *tc = tcase_create("users");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_record);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_update_keep_and_clear);
	tcase_add_test(tc, test_update_errors);
	tcase_add_test(tc, test_get_external);
	tcase_add_test(tc, test_list_filters);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(store_users_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
