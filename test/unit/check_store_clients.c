/*
 * Unit tests for store_clients.c against a real store in a temporary
 * directory: create, update (keep / clear / replace), the order of
 * client_not_found and some_permissions_not_found, secret replacement, and
 * the list's filters, sorts and totals. Each test gets a fresh store with two
 * projects from the checked fixture, which removes everything afterwards.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suite.h"
#include "crypto.h"
#include "json_util.h"
#include "listing.h"
#include "store.h"
#include "store_clients.h"

static struct {
	char dir[64];
	char path[96];
	struct store *st;
	struct new_project p1, p2;
	json_t *rec;
	json_t *list;
	struct api_error err;
	char *ids[4];          /* permission IDs read from the database */
} fx;

static void setup(void)
{
	char errbuf[256];
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_store_clients.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.path, sizeof fx.path, "%s/t.db", fx.dir);
	fx.st = store_open(fx.path, false, errbuf, sizeof errbuf);
	ck_assert_msg(fx.st != NULL, "%s", errbuf);
	ck_assert_int_eq(store_project_create(fx.st, "one", &fx.p1, &err), 0);
	ck_assert_int_eq(store_project_create(fx.st, "two", &fx.p2, &err), 0);
}

static void teardown(void)
{
	char f[128];
	const char *suffix[] = { "", "-wal", "-shm" };

	json_decref(fx.rec);
	json_decref(fx.list);
	for (size_t i = 0; i < 4; i++)
		free(fx.ids[i]);
	store_new_project_release(&fx.p1);
	store_new_project_release(&fx.p2);
	store_close(fx.st);
	for (size_t i = 0; i < 3; i++) {
		snprintf(f, sizeof f, "%s%s", fx.path, suffix[i]);
		unlink(f);
	}
	rmdir(fx.dir);
}

/* The ID of a named permission ("clients:read") of a project; owned by fx. */
static const char *perm(size_t slot, const char *project_id, const char *named)
{
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db,
		"SELECT p.id FROM permissions p JOIN resources r ON r.id = p.resource_id"
		" WHERE p.project_id = ?1 AND r.code || ':' || p.code = ?2", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, project_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, named, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	free(fx.ids[slot]);
	fx.ids[slot] = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return fx.ids[slot];
}

/* A client created in project one; returns its ID (borrowed from fx.rec). */
static const char *create(const char *name, const struct id_list *ids, const char *uris)
{
	struct client_fields f = {
		.name = name, .set_description = true, .set_permissions = true,
		.permission_ids = ids, .set_redirect_uris = true, .redirect_uris = uris,
	};
	json_decref(fx.rec);
	fx.rec = store_client_create(fx.st, fx.p1.project_id, &f, "hash", NULL, &fx.err);
	ck_assert_msg(fx.rec != NULL, "%s", fx.err.description);
	return json_string_value(json_object_get(fx.rec, "id"));
}

static long long count_rows(const char *sql)
{
	sqlite3_stmt *s;
	long long n;

	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

START_TEST(test_create_record)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read"),
	                      perm(1, fx.p1.project_id, "clients:read") };
	struct id_list list = { true, 2, ids };
	json_t *pids;

	create("Billing", &list, "[\"https://a.example/cb\"]");
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "name")), "Billing");
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
	ck_assert(json_is_true(json_object_get(fx.rec, "is_active")));
	pids = json_object_get(fx.rec, "permission_ids");
	ck_assert_int_eq(json_array_size(pids), 2);
	/* sorted by ID */
	ck_assert_int_lt(strcmp(json_string_value(json_array_get(pids, 0)),
	                        json_string_value(json_array_get(pids, 1))), 0);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(fx.rec, "redirect_uris"), 0)),
	                 "https://a.example/cb");
	ck_assert_ptr_null(json_object_get(fx.rec, "client_secret"));
	ck_assert_ptr_null(json_object_get(fx.rec, "secret_hash"));
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "created_at")),
	                 json_string_value(json_object_get(fx.rec, "updated_at")));
}
END_TEST

START_TEST(test_create_unknown_permission_writes_nothing)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read"),
	                      perm(1, fx.p2.project_id, "users:read") };
	struct id_list list = { true, 2, ids };
	struct client_fields f = { .name = "x", .set_description = true, .set_permissions = true,
	                           .permission_ids = &list, .set_redirect_uris = true };
	long long before = count_rows("SELECT count(*) FROM clients");

	fx.rec = store_client_create(fx.st, fx.p1.project_id, &f, "hash", NULL, &fx.err);
	ck_assert_ptr_null(fx.rec);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients"), before);
	ck_assert(sqlite3_get_autocommit(fx.st->db));
}
END_TEST

START_TEST(test_update_keeps_clears_replaces)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read") };
	struct id_list list = { true, 1, ids }, none = { true, 0, NULL };
	char *id = strdup(create("A", &list, "[\"https://a.example/\"]"));
	struct client_fields keep = { .name = "B", .is_active = false };
	struct client_fields clear = { .name = "C", .is_active = true, .set_description = true,
	                               .set_permissions = true, .permission_ids = &none,
	                               .set_redirect_uris = true };

	json_decref(fx.rec);
	fx.rec = store_client_update(fx.st, fx.p1.project_id, id, &keep, NULL, &fx.err);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "name")), "B");
	ck_assert(json_is_false(json_object_get(fx.rec, "is_active")));
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "redirect_uris")), 1);

	json_decref(fx.rec);
	fx.rec = store_client_update(fx.st, fx.p1.project_id, id, &clear, NULL, &fx.err);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert(json_is_true(json_object_get(fx.rec, "is_active")));
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "redirect_uris")), 0);
	free(id);
}
END_TEST

START_TEST(test_update_not_found_order)
{
	const char *bad[] = { "nope" };
	struct id_list list = { true, 1, bad };
	struct client_fields f = { .name = "x", .set_permissions = true, .permission_ids = &list };
	json_t *r;

	/* unknown client, unknown permission: client_not_found first */
	r = store_client_update(fx.st, fx.p1.project_id, "nope", &f, NULL, &fx.err);
	ck_assert_ptr_null(r);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	/* another project's client is not found */
	f.set_permissions = false;
	r = store_client_update(fx.st, fx.p1.project_id, fx.p2.client_id, &f, NULL, &fx.err);
	ck_assert_ptr_null(r);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	/* known client, unknown permission: nothing changes */
	f.set_permissions = true;
	r = store_client_update(fx.st, fx.p1.project_id, fx.p1.client_id, &f, NULL, &fx.err);
	ck_assert_ptr_null(r);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients WHERE name = 'admin'"), 2);
	ck_assert(sqlite3_get_autocommit(fx.st->db));
}
END_TEST

START_TEST(test_set_secret)
{
	char hash[SECRET_HASH_LEN + 1];
	struct client_auth ca;
	struct sync_result r;

	crypto_hash_secret("s3cret", 6, hash);
	ck_assert_int_eq(store_client_set_secret(fx.st, fx.p1.project_id, fx.p1.client_id, hash, NULL,
	                                         &fx.err), 0);
	store_client_lookup(fx.st, fx.p1.client_id, &ca, sync_completion(&r));
	ck_assert(r.done && !r.failed && ca.found);
	ck_assert_str_eq(ca.secret_hash, hash);
	ck_assert_int_eq(store_client_set_secret(fx.st, fx.p1.project_id, "nope", hash, NULL,
	                                         &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	ck_assert_int_eq(store_client_set_secret(fx.st, fx.p1.project_id, fx.p2.client_id, hash, NULL,
	                                         &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
}
END_TEST

/* --- no escalation (store_grants.h) --- */

/* Every client of the store with its secret hash and permission IDs, as
 * one string (caller frees), to compare before and after. */
static char *clients_state(void)
{
	sqlite3_stmt *s;
	char *v;

	ck_assert_int_eq(sqlite3_prepare_v2(fx.st->db,
		"SELECT group_concat(c, ';') FROM (SELECT id || '|' || name || '|' || is_active || '|'"
		" || secret_hash || '|' || ifnull((SELECT group_concat(permission_id) FROM (SELECT"
		" permission_id FROM client_permissions WHERE client_id = clients.id ORDER BY 1)), '')"
		" AS c FROM clients ORDER BY id)", -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	v = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

enum grant_op { OP_CREATE, OP_UPDATE, OP_DEACTIVATE, OP_SECRET };

static const struct {
	const char *desc;
	enum grant_op op;
	const char *target;   /* "admin" (all twelve), "mine" (clients:read), or an unknown ID */
	const char *grant;    /* permission_ids: a named permission, "nope"; NULL: absent */
	const char *scope;    /* the caller's */
	enum api_code want;   /* E__COUNT: written */
} grant_cases[] = {
	{ "rename the admin client", OP_UPDATE, "admin", NULL, "clients:update",
	  E_INSUFFICIENT_PERMISSION },
	{ "deactivate the admin client", OP_DEACTIVATE, "admin", NULL, "clients:update",
	  E_INSUFFICIENT_PERMISSION },
	{ "rotate the admin client's secret", OP_SECRET, "admin", NULL, "clients:update",
	  E_INSUFFICIENT_PERMISSION },
	{ "give a client what scope lacks", OP_UPDATE, "mine", "users:read",
	  "clients:read clients:update", E_INSUFFICIENT_PERMISSION },
	{ "update within scope", OP_UPDATE, "mine", "clients:update", "clients:read clients:update",
	  E__COUNT },
	{ "rotate within scope", OP_SECRET, "mine", NULL, "clients:read", E__COUNT },
	{ "create with what scope lacks", OP_CREATE, NULL, "users:read", "clients:create",
	  E_INSUFFICIENT_PERMISSION },
	{ "create within scope", OP_CREATE, NULL, "clients:read", "clients:read", E__COUNT },
	{ "client_not_found first", OP_UPDATE, "nope", "users:read", "", E_CLIENT_NOT_FOUND },
	{ "rotate: client_not_found first", OP_SECRET, "nope", NULL, "", E_CLIENT_NOT_FOUND },
	{ "some_permissions_not_found first", OP_UPDATE, "admin", "nope", "",
	  E_SOME_PERMISSIONS_NOT_FOUND },
};

START_TEST(test_no_escalation)
{
	const char *mine_ids[] = { perm(0, fx.p1.project_id, "clients:read") };
	struct id_list mine_list = { true, 1, mine_ids };
	char *mine = strdup(create("mine", &mine_list, NULL));
	const char *target = grant_cases[_i].target, *granted[1];
	struct id_list list = { grant_cases[_i].grant != NULL, grant_cases[_i].grant != NULL,
	                        granted };
	struct client_fields f = { .name = "x", .is_active = grant_cases[_i].op != OP_DEACTIVATE,
	                           .set_permissions = list.present, .permission_ids = &list };
	char *before = clients_state(), *after;
	int rc;

	if (target && !strcmp(target, "admin"))
		target = fx.p1.client_id;
	else if (target && !strcmp(target, "mine"))
		target = mine;
	granted[0] = grant_cases[_i].grant;
	if (granted[0] && strchr(granted[0], ':'))
		granted[0] = perm(1, fx.p1.project_id, granted[0]);
	json_decref(fx.rec);
	fx.rec = NULL;
	if (grant_cases[_i].op == OP_SECRET)
		rc = store_client_set_secret(fx.st, fx.p1.project_id, target, "new hash",
		                             grant_cases[_i].scope, &fx.err);
	else if (grant_cases[_i].op == OP_CREATE)
		rc = (fx.rec = store_client_create(fx.st, fx.p1.project_id, &f, "hash",
		                                   grant_cases[_i].scope, &fx.err)) ? 0 : -1;
	else
		rc = (fx.rec = store_client_update(fx.st, fx.p1.project_id, target, &f,
		                                   grant_cases[_i].scope, &fx.err)) ? 0 : -1;
	after = clients_state();
	if (grant_cases[_i].want == E__COUNT) {
		ck_assert_msg(rc == 0, "%s: %s", grant_cases[_i].desc, fx.err.description);
		ck_assert_str_ne(after, before);
	} else {
		ck_assert_msg(rc == -1 && fx.err.api_code == grant_cases[_i].want, "%s: %s",
		              grant_cases[_i].desc, fx.err.description);
		ck_assert_str_eq(after, before);
	}
	ck_assert(sqlite3_get_autocommit(fx.st->db));
	free(before);
	free(after);
	free(mine);
}
END_TEST

/* Lists project one (admin + "b_x", "B%y", "a") with the given parameters;
 * returns the names joined by commas into out. */
static long long list_names(size_t sort, bool desc, const char *search, int active, char *out,
                            size_t outlen)
{
	struct list_params p = LIST_PARAMS_INIT;
	long long total = -1;
	size_t i;
	json_t *v;

	p.page_size = 100;
	p.sort = sort;
	p.desc = desc;
	p.like = search ? like_pattern(search) : NULL;
	json_decref(fx.list);
	fx.list = store_client_list(fx.st, fx.p1.project_id, &p, active, &total, &fx.err);
	list_params_release(&p);
	ck_assert_ptr_nonnull(fx.list);
	out[0] = '\0';
	json_array_foreach(fx.list, i, v) {
		strncat(out, i ? "," : "", outlen - strlen(out) - 1);
		strncat(out, json_string_value(json_object_get(v, "name")), outlen - strlen(out) - 1);
	}
	return total;
}

START_TEST(test_list)
{
	struct client_fields off = { .name = "a", .is_active = false };
	char names[256];
	char *a_id;

	create("b_x", NULL, NULL);
	create("B%y", NULL, NULL);
	a_id = strdup(create("a", NULL, NULL));
	usleep(2000);   /* so that its update is the latest updated_at */
	json_decref(fx.rec);
	fx.rec = store_client_update(fx.st, fx.p1.project_id, a_id, &off, NULL, &fx.err);
	ck_assert_ptr_nonnull(fx.rec);

	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, false, NULL, -1, names, sizeof names), 4);
	ck_assert_str_eq(names, "a,admin,B%y,b_x");
	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, true, NULL, -1, names, sizeof names), 4);
	ck_assert_str_eq(names, "b_x,B%y,admin,a");
	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, false, "_", -1, names, sizeof names), 1);
	ck_assert_str_eq(names, "b_x");
	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, false, "%", -1, names, sizeof names), 1);
	ck_assert_str_eq(names, "B%y");
	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, false, "B", -1, names, sizeof names), 2);
	ck_assert_int_eq(list_names(CLIENT_SORT_IS_ACTIVE, false, NULL, -1, names, sizeof names), 4);
	ck_assert(strncmp(names, "a,", 2) == 0);
	ck_assert_int_eq(list_names(CLIENT_SORT_CREATED_AT, false, NULL, 0, names, sizeof names), 1);
	ck_assert_str_eq(names, "a");
	ck_assert_int_eq(list_names(CLIENT_SORT_CREATED_AT, false, NULL, 1, names, sizeof names), 3);
	ck_assert_int_eq(list_names(CLIENT_SORT_UPDATED_AT, true, NULL, -1, names, sizeof names), 4);
	ck_assert(strncmp(names, "a,", 2) == 0);
	free(a_id);
}
END_TEST

static Suite *store_clients_suite(void)
{
	Suite *s = suite_create("store_clients");
	TCase *tc = tcase_create("store_clients");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_record);
	tcase_add_test(tc, test_create_unknown_permission_writes_nothing);
	tcase_add_test(tc, test_update_keeps_clears_replaces);
	tcase_add_test(tc, test_update_not_found_order);
	tcase_add_test(tc, test_set_secret);
	tcase_add_loop_test(tc, test_no_escalation, 0, sizeof grant_cases / sizeof grant_cases[0]);
	tcase_add_test(tc, test_list);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_clients_suite()));
}
