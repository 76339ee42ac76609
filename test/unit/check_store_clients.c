/*
 * Unit tests for store_clients.c against a real store in a temporary
 * directory: create, update (keep / clear / replace), the order of
 * client_not_found and some_permissions_not_found, secret replacement, the
 * one record definition, and the list's filters, sorts, search, pages and
 * totals. Each test gets a fresh store with two projects from the checked
 * fixture, which removes everything afterwards. The async operations are
 * called through sync_completion (the SQLite store completes before it
 * returns), by one small adapter each.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "crypto.h"
#include "jbody.h"
#include "listing.h"
#include "store_projects.h"
#include "store.h"
#include "store_clients.h"
#include "util.h"

static struct {
	char dir[64];
	struct store *st;
	struct new_project p1, p2;
	json_t *rec;           /* the last record, parsed */
	char *text;            /* ... and as the store wrote it */
	json_t *list;
	struct api_error err;
	char *ids[4];          /* permission IDs read from the database */
} fx;

static void setup(void)
{
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_clients", fx.dir);
	ck_assert_int_eq(store_project_create(fx.st, "one", &fx.p1, &err), 0);
	ck_assert_int_eq(store_project_create(fx.st, "two", &fx.p2, &err), 0);
}

static void teardown(void)
{
	json_decref(fx.rec);
	free(fx.text);
	json_decref(fx.list);
	for (size_t i = 0; i < 4; i++)
		free(fx.ids[i]);
	store_new_project_release(&fx.p1);
	store_new_project_release(&fx.p2);
	check_store_remove(fx.st, fx.dir);
}

/* The ID of a named permission ("clients:read") of a project; owned by fx. */
static const char *perm(size_t slot, const char *project_id, const char *named)
{
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db,
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

/* 0 when the operation completed, or -1 with its error in fx.err. */
static int ended(const struct sync_result *r)
{
	ck_assert(r->done);
	if (r->failed)
		fx.err = r->err;
	return r->failed ? -1 : 0;
}

/* The record an operation handed back into fx.text and fx.rec: there is one
 * exactly when it succeeded. */
static int record_of(const struct sync_result *r, char *text)
{
	json_decref(fx.rec);
	free(fx.text);
	fx.rec = NULL;
	fx.text = text;
	if (ended(r) < 0) {
		ck_assert_ptr_null(text);
		return -1;
	}
	ck_assert_ptr_nonnull(text);
	fx.rec = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	return 0;
}

static int client_create(const char *project_id, const struct client_fields *f,
                         const char *scope)
{
	struct sync_result r;
	char *text = NULL;

	store_client_create(fx.st, &event_origin_cli, project_id, f, "hash", scope, &text, sync_completion(&r));
	return record_of(&r, text);
}

static int client_update(const char *project_id, const char *client_id,
                         const struct client_fields *f, const char *scope)
{
	struct sync_result r;
	char *text = NULL;

	store_client_update(fx.st, &event_origin_cli, project_id, client_id, f, scope, &text, sync_completion(&r));
	return record_of(&r, text);
}

static int client_set_secret(const char *project_id, const char *client_id, const char *hash,
                             const char *scope)
{
	struct sync_result r;

	store_client_set_secret(fx.st, &event_origin_cli, project_id, client_id, hash, scope, sync_completion(&r));
	return ended(&r);
}

/* A client created in project one; returns its ID (borrowed from fx.rec). */
static const char *create(const char *name, const struct jbody_id_list *ids, const char *uris)
{
	struct client_fields f = {
		.name = name, .set_description = true, .set_permissions = true,
		.permission_ids = ids, .set_redirect_uris = true, .redirect_uris = uris,
	};
	ck_assert_msg(client_create(fx.p1.project_id, &f, NULL) == 0, "%s", fx.err.description);
	return json_string_value(json_object_get(fx.rec, "id"));
}

static long long count_rows(const char *sql)
{
	sqlite3_stmt *s;
	long long n;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

START_TEST(test_create_record)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read"),
	                      perm(1, fx.p1.project_id, "clients:read") };
	struct jbody_id_list list = { true, 2, ids };
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
	struct jbody_id_list list = { true, 2, ids };
	struct client_fields f = { .name = "x", .set_description = true, .set_permissions = true,
	                           .permission_ids = &list, .set_redirect_uris = true };
	long long before = count_rows("SELECT count(*) FROM clients");

	ck_assert_int_eq(client_create(fx.p1.project_id, &f, NULL), -1);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients"), before);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
}
END_TEST

START_TEST(test_update_keeps_clears_replaces)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read") };
	struct jbody_id_list list = { true, 1, ids }, none = { true, 0, NULL };
	char *id = strdup(create("A", &list, "[\"https://a.example/\"]"));
	struct client_fields keep = { .name = "B", .is_active = false };
	struct client_fields clear = { .name = "C", .is_active = true, .set_description = true,
	                               .set_permissions = true, .permission_ids = &none,
	                               .set_redirect_uris = true };

	ck_assert_int_eq(client_update(fx.p1.project_id, id, &keep, NULL), 0);
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "name")), "B");
	ck_assert(json_is_false(json_object_get(fx.rec, "is_active")));
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "redirect_uris")), 1);

	ck_assert_int_eq(client_update(fx.p1.project_id, id, &clear, NULL), 0);
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
	struct jbody_id_list list = { true, 1, bad };
	struct client_fields f = { .name = "x", .set_permissions = true, .permission_ids = &list };

	/* unknown client, unknown permission: client_not_found first */
	ck_assert_int_eq(client_update(fx.p1.project_id, "nope", &f, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	/* another project's client is not found */
	f.set_permissions = false;
	ck_assert_int_eq(client_update(fx.p1.project_id, fx.p2.client_id, &f, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	/* known client, unknown permission: nothing changes */
	f.set_permissions = true;
	ck_assert_int_eq(client_update(fx.p1.project_id, fx.p1.client_id, &f, NULL), -1);
	ck_assert_str_eq(fx.err.code, "some_permissions_not_found");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients WHERE name = 'admin'"), 2);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
}
END_TEST

START_TEST(test_set_secret)
{
	char hash[SECRET_HASH_LEN + 1];
	struct client_auth ca;
	struct sync_result r;

	crypto_hash_secret("s3cret", 6, hash);
	ck_assert_int_eq(client_set_secret(fx.p1.project_id, fx.p1.client_id, hash, NULL), 0);
	store_client_lookup(fx.st, fx.p1.client_id, &ca, sync_completion(&r));
	ck_assert(r.done && !r.failed && ca.found);
	ck_assert_str_eq(ca.secret_hash, hash);
	ck_assert_int_eq(client_set_secret(fx.p1.project_id, "nope", hash, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	ck_assert_int_eq(client_set_secret(fx.p1.project_id, fx.p2.client_id, hash, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
}
END_TEST

/* --- one record definition --- */

/* The keys of a record, in order. */
static const char *const record_keys[] = {
	"id", "name", "description", "is_active", "permission_ids", "redirect_uris",
	"post_logout_redirect_uris", "backchannel_logout_uri", "token_endpoint_auth_method",
	"id_token_signed_response_alg", "forward_auth_urls", "device_flow", "allowed_role_ids",
	"consent_required", "created_at",
	"updated_at",
};

/* The record's keys are the record's, in its one order, and no secret. */
static void expect_record_shape(const json_t *rec)
{
	void *it = json_object_iter((json_t *)rec);

	for (size_t i = 0; i < sizeof record_keys / sizeof record_keys[0]; i++) {
		ck_assert_msg(it != NULL, "the record lacks %s", record_keys[i]);
		ck_assert_str_eq(json_object_iter_key(it), record_keys[i]);
		it = json_object_iter_next((json_t *)rec, it);
	}
	ck_assert_msg(it == NULL, "the record has a key %s", it ? json_object_iter_key(it) : "");
}

/* Create, update and a list page answer the same text for the same row. */
START_TEST(test_record_one_definition)
{
	const char *ids[] = { perm(0, fx.p1.project_id, "users:read") };
	struct jbody_id_list list = { true, 1, ids };
	struct client_fields rename = { .name = "Billing 2", .is_active = true };
	struct list_query q = LIST_QUERY_INIT;
	struct page page = { NULL, -1 };
	struct sync_result r;
	char *id, *page_text;

	id = strdup(create("Billing", &list, "[\"https://a.example/cb\"]"));
	expect_record_shape(fx.rec);
	ck_assert_ptr_null(strstr(fx.text, "hash"));
	ck_assert_int_eq(client_update(fx.p1.project_id, id, &rename, NULL), 0);
	expect_record_shape(fx.rec);
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "name")), "Billing 2");

	q.search = "Billing";
	store_client_list(fx.st, fx.p1.project_id, &q, &page, sync_completion(&r));
	ck_assert_int_eq(ended(&r), 0);
	ck_assert_int_eq(page.total, 1);
	page_text = xasprintf("[%s]", fx.text);
	ck_assert_str_eq(page.data, page_text);
	free(page_text);
	page_release(&page);
	free(id);
}
END_TEST

/* Rows another tool wrote read as well-formed records: URI lists that are
 * not JSON arrays are [], times before 1970 are formatted. */
START_TEST(test_record_odd_rows)
{
	char *id = strdup(create("odd", NULL, NULL));
	char *sql, when[TIMESTAMP_LEN];
	struct client_fields same = { .name = "odd", .is_active = true };
	const char *const uris[] = { "not json", "{\"a\":1}", "\"https://a.example/\"" };

	for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++) {
		sql = sqlite3_mprintf("UPDATE clients SET redirect_uris = %Q,"
		                      " post_logout_redirect_uris = %Q, created_at = -1"
		                      " WHERE id = %Q", uris[i], uris[i], id);
		ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db, sql, NULL, NULL, NULL),
		                 SQLITE_OK);
		sqlite3_free(sql);
		ck_assert_int_eq(client_update(fx.p1.project_id, id, &same, NULL), 0);
		expect_record_shape(fx.rec);
		ck_assert(json_is_array(json_object_get(fx.rec, "redirect_uris")));
		ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "redirect_uris")), 0);
		ck_assert(json_is_array(json_object_get(fx.rec, "post_logout_redirect_uris")));
		ck_assert_int_eq(json_array_size(json_object_get(fx.rec, "post_logout_redirect_uris")),
		                 0);
	}
	format_timestamp(-1, when);
	ck_assert_str_eq(json_string_value(json_object_get(fx.rec, "created_at")), when);
	free(id);
}
END_TEST

/* store_client_insert and store_client_grant_admin, as project creation
 * and `project admin-client` use them: the client gets the twelve
 * permissions of its own project's default resources, none of another
 * project's and none of a resource the project added. */
START_TEST(test_insert_grant_admin)
{
	struct client_fields f = { .name = "second admin", .redirect_uris = "[]" };

	check_sql(sqlite_of(fx.st)->db,
	          "INSERT INTO resources (id, project_id, name, code, is_default,"
	          " created_at, updated_at) VALUES ('ro', %Q, 'Orders', 'orders', 0, 1, 1);"
	          " INSERT INTO permissions (id, resource_id, project_id, name, code, position)"
	          " VALUES ('po', 'ro', %Q, 'Read', 'read', 0)", fx.p2.project_id,
	          fx.p2.project_id);
	ck_assert_int_eq(store_begin(fx.st, &fx.err), 0);
	ck_assert_int_eq(store_client_insert(fx.st, fx.p2.project_id, "c2", &f, "hash", 5, &fx.err),
	                 0);
	ck_assert_int_eq(store_client_grant_admin(fx.st, "c2", &fx.err), 0);
	ck_assert_int_eq(store_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM client_permissions cp JOIN permissions pm"
	                            " ON pm.id = cp.permission_id JOIN resources r"
	                            " ON r.id = pm.resource_id WHERE cp.client_id = 'c2'"
	                            " AND r.is_default AND pm.project_id = (SELECT project_id"
	                            " FROM clients WHERE id = 'c2')"), 12);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM client_permissions"
	                            " WHERE client_id = 'c2'"), 12);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients WHERE id = 'c2' AND is_active"
	                            " AND created_at = 5 AND updated_at = 5"), 1);
}
END_TEST

/* --- the OpenID Connect fields (docs/api.md §"Records"; docs/signin.md §"OpenID Connect"; docs/api.md §"Read one and delete") --- */

/* The four fields of fx.rec as one JSON text, to compare. */
static void assert_oidc_fields(const char *want)
{
	json_t *v = json_pack("[O,O,O,O]", json_object_get(fx.rec, "post_logout_redirect_uris"),
	                      json_object_get(fx.rec, "backchannel_logout_uri"),
	                      json_object_get(fx.rec, "token_endpoint_auth_method"),
	                      json_object_get(fx.rec, "id_token_signed_response_alg"));
	char *got = json_dumps(v, JSON_COMPACT);

	ck_assert_str_eq(got, want);
	free(got);
	json_decref(v);
}

/* Written by create, kept by an update that does not set them, replaced
 * or cleared by one that does; the defaults when a create does not say. */
START_TEST(test_oidc_fields)
{
	struct client_fields f = {
		.name = "rp", .set_post_logout_redirect_uris = true,
		.post_logout_redirect_uris = "[\"https://rp.example/bye\"]",
		.set_backchannel_logout_uri = true, .backchannel_logout_uri = "https://rp.example/bc",
		.token_endpoint_auth_method = "client_secret_post",
		.id_token_signed_response_alg = "ES256",
	};
	struct client_fields keep = { .name = "rp", .is_active = true };
	struct client_fields clear = {
		.name = "rp", .is_active = true, .set_post_logout_redirect_uris = true,
		.set_backchannel_logout_uri = true, .token_endpoint_auth_method = "none",
	};
	char *id;

	create("plain", NULL, NULL);
	assert_oidc_fields("[[],null,\"none\",\"RS256\"]");
	ck_assert_int_eq(client_create(fx.p1.project_id, &f, NULL), 0);
	assert_oidc_fields("[[\"https://rp.example/bye\"],\"https://rp.example/bc\","
	                   "\"client_secret_post\",\"ES256\"]");
	id = strdup(json_string_value(json_object_get(fx.rec, "id")));
	ck_assert_int_eq(client_update(fx.p1.project_id, id, &keep, NULL), 0);
	assert_oidc_fields("[[\"https://rp.example/bye\"],\"https://rp.example/bc\","
	                   "\"client_secret_post\",\"ES256\"]");
	ck_assert_int_eq(client_update(fx.p1.project_id, id, &clear, NULL), 0);
	assert_oidc_fields("[[],null,\"none\",\"ES256\"]");
	free(id);
}
END_TEST

/* docs/signin.md §"Who may change where tokens go": setting or changing where tokens go needs all twelve
 * default-resource permissions; the same values, the defaults on create,
 * and id_token_signed_response_alg do not. A refusal changes nothing. */
static const struct {
	const char *desc;
	bool update;
	struct client_fields f;   /* name and is_active added by the test */
	bool refused;
} routing_cases[] = {
	{ "create: nothing set", false, { 0 }, false },
	{ "create: the defaults", false, { .set_redirect_uris = true, .redirect_uris = "[]",
	  .set_post_logout_redirect_uris = true, .set_backchannel_logout_uri = true,
	  .token_endpoint_auth_method = "none" }, false },
	{ "create: the alg", false, { .id_token_signed_response_alg = "ES256" }, false },
	{ "create: redirect_uris", false, { .set_redirect_uris = true,
	  .redirect_uris = "[\"https://x.example/\"]" }, true },
	{ "create: post-logout URIs", false, { .set_post_logout_redirect_uris = true,
	  .post_logout_redirect_uris = "[\"https://x.example/\"]" }, true },
	{ "create: back-channel URI", false, { .set_backchannel_logout_uri = true,
	  .backchannel_logout_uri = "https://x.example/" }, true },
	{ "create: auth method", false, { .token_endpoint_auth_method = "client_secret_basic" },
	  true },
	{ "issue31.1 create: forward_auth_urls []", false, { .set_forward_auth_urls = true,
	  .forward_auth_urls = "[]" }, false },
	{ "issue31.1 create: forward_auth_urls", false, { .set_forward_auth_urls = true,
	  .forward_auth_urls = "[\"https://x.example/\"]" }, true },
	{ "update: nothing set", true, { 0 }, false },
	{ "update: the same values", true, { .set_redirect_uris = true,
	  .redirect_uris = "[\"https://a.example/\"]", .set_post_logout_redirect_uris = true,
	  .post_logout_redirect_uris = "[\"https://a.example/bye\"]",
	  .set_backchannel_logout_uri = true, .backchannel_logout_uri = "https://a.example/bc",
	  .token_endpoint_auth_method = "client_secret_post" }, false },
	{ "update: the alg", true, { .id_token_signed_response_alg = "ES256" }, false },
	{ "update: redirect_uris", true, { .set_redirect_uris = true,
	  .redirect_uris = "[\"https://x.example/\"]" }, true },
	{ "update: redirect_uris cleared", true, { .set_redirect_uris = true }, true },
	{ "update: post-logout URIs", true, { .set_post_logout_redirect_uris = true,
	  .post_logout_redirect_uris = "[]" }, true },
	{ "update: back-channel URI cleared", true, { .set_backchannel_logout_uri = true }, true },
	{ "update: auth method", true, { .token_endpoint_auth_method = "none" }, true },
	{ "issue31.1 update: forward_auth_urls the same", true, { .set_forward_auth_urls = true,
	  .forward_auth_urls = "[\"https://a.example/app\"]" }, false },
	{ "issue31.1 update: forward_auth_urls", true, { .set_forward_auth_urls = true,
	  .forward_auth_urls = "[\"https://x.example/\"]" }, true },
	{ "issue31.1 update: forward_auth_urls cleared", true, { .set_forward_auth_urls = true },
	  true },
};

static char *client_row(const char *id)
{
	sqlite3_stmt *s;
	char *row;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db,
	                                    "SELECT json_array(name, redirect_uris,"
	                 " post_logout_redirect_uris, backchannel_logout_uri,"
	                 " token_endpoint_auth_method, id_token_signed_response_alg, forward_auth_urls,"
	                 " updated_at)"
	                 " FROM clients WHERE id = ?1", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	row = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return row;
}

START_TEST(test_routing_needs_all_twelve)
{
	static const char lesser[] = "clients:create clients:read clients:update users:read";
	struct client_fields f = routing_cases[_i].f, set = {
		.name = "app", .is_active = true, .set_redirect_uris = true,
		.redirect_uris = "[\"https://a.example/\"]", .set_post_logout_redirect_uris = true,
		.post_logout_redirect_uris = "[\"https://a.example/bye\"]",
		.set_backchannel_logout_uri = true, .backchannel_logout_uri = "https://a.example/bc",
		.token_endpoint_auth_method = "client_secret_post",
		.set_forward_auth_urls = true, .forward_auth_urls = "[\"https://a.example/app\"]",
	};
	char *id = strdup(create("app", NULL, NULL)), *before;
	long long n;
	int rc;

	ck_assert_int_eq(client_update(fx.p1.project_id, id, &set, NULL), 0);
	before = client_row(id);
	n = count_rows("SELECT count(*) FROM clients");
	f.name = "app";
	f.is_active = true;
	rc = routing_cases[_i].update ? client_update(fx.p1.project_id, id, &f, lesser)
	                              : client_create(fx.p1.project_id, &f, lesser);
	if (routing_cases[_i].refused) {
		ck_assert_msg(rc == -1, "%s: written", routing_cases[_i].desc);
		ck_assert_str_eq(fx.err.code, "insufficient_permission");
		ck_assert_ptr_nonnull(strstr(fx.err.description, "all twelve"));
		fx.text = client_row(id);
		ck_assert_str_eq(fx.text, before);
		ck_assert_int_eq(count_rows("SELECT count(*) FROM clients"), n);
		/* the same with all twelve, or no limit, is written */
		rc = routing_cases[_i].update
		     ? client_update(fx.p1.project_id, id, &f, "users:create users:update "
		                     "resources:create resources:read resources:update roles:create "
		                     "roles:read roles:update clients:create clients:read "
		                     "clients:update users:read")
		     : client_create(fx.p1.project_id, &f, NULL);
	}
	ck_assert_msg(rc == 0, "%s: %s", routing_cases[_i].desc, fx.err.description);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	free(before);
	free(id);
}
END_TEST

/* --- one client: get and delete (docs/api.md §"Read one and delete") --- */

static int client_get(const char *project_id, const char *client_id)
{
	struct sync_result r;
	char *text = NULL;

	store_client_get(fx.st, project_id, client_id, &text, sync_completion(&r));
	return record_of(&r, text);
}

static int client_delete(const char *project_id, const char *client_id, const char *scope)
{
	struct sync_result r;

	store_client_delete(fx.st, &event_origin_cli, project_id, client_id, scope, sync_completion(&r));
	return ended(&r);
}

START_TEST(test_get)
{
	char *written, *id;

	id = strdup(create("Billing", NULL, "[\"https://a.example/cb\"]"));
	written = strdup(fx.text);
	ck_assert_int_eq(client_get(fx.p1.project_id, id), 0);
	ck_assert_str_eq(fx.text, written);
	ck_assert_int_eq(client_get(fx.p1.project_id, "nope"), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	ck_assert_int_eq(client_get(fx.p2.project_id, id), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	free(written);
	free(id);
}
END_TEST

/* A deleted client's codes and refresh tokens go with it; client_not_found
 * comes before the no-escalation refusal, which changes nothing. */
START_TEST(test_delete)
{
	char *sql, *id = strdup(create("App", NULL, "[]"));

	sql = sqlite3_mprintf(
		"INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
		" VALUES ('u1', %Q, 'U', 1, 1);"
		"INSERT INTO auth_codes (hash, family_id, project_id, client_id, user_id, redirect_uri,"
		" code_challenge, created_at, expires_at) VALUES ('c1', 'f1', %Q, %Q, 'u1', 'x', 'y', 1,"
		" 9e15);"
		"INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id,"
		" access_jti, access_exp, created_at, expires_at) VALUES ('t1', 'f1', %Q, %Q, 'u1',"
		" 'j', 9e12, 1, 9e15);", fx.p1.project_id, fx.p1.project_id, id, fx.p1.project_id, id);
	check_sql(sqlite_of(fx.st)->db, "%s", sql);
	sqlite3_free(sql);

	ck_assert_int_eq(client_delete(fx.p1.project_id, "nope", ""), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	ck_assert_int_eq(client_delete(fx.p2.project_id, id, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	ck_assert_int_eq(client_delete(fx.p1.project_id, fx.p1.client_id, "clients:update"), -1);
	ck_assert_str_eq(fx.err.code, "insufficient_permission");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM clients"), 3);
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));

	ck_assert_int_eq(client_delete(fx.p1.project_id, id, "clients:update"), 0);
	ck_assert_int_eq(client_get(fx.p1.project_id, id), -1);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM auth_codes"), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM refresh_tokens"), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM users"), 1);
	ck_assert_int_eq(client_delete(fx.p1.project_id, id, NULL), -1);
	ck_assert_str_eq(fx.err.code, "client_not_found");
	free(id);
}
END_TEST

/* --- no escalation (store_grants.h) --- */

/* Every client of the store with its secret hash and permission IDs, as
 * one string (caller frees), to compare before and after. */
static char *clients_state(void)
{
	sqlite3_stmt *s;
	char *v;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db,
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
	struct jbody_id_list mine_list = { true, 1, mine_ids };
	char *mine = strdup(create("mine", &mine_list, NULL));
	const char *target = grant_cases[_i].target, *granted[1];
	struct jbody_id_list list = { grant_cases[_i].grant != NULL, grant_cases[_i].grant != NULL,
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
	if (grant_cases[_i].op == OP_SECRET)
		rc = client_set_secret(fx.p1.project_id, target, "new hash", grant_cases[_i].scope);
	else if (grant_cases[_i].op == OP_CREATE)
		rc = client_create(fx.p1.project_id, &f, grant_cases[_i].scope);
	else
		rc = client_update(fx.p1.project_id, target, &f, grant_cases[_i].scope);
	after = clients_state();
	if (grant_cases[_i].want == E__COUNT) {
		ck_assert_msg(rc == 0, "%s: %s", grant_cases[_i].desc, fx.err.description);
		ck_assert_str_ne(after, before);
	} else {
		ck_assert_msg(rc == -1 && fx.err.api_code == grant_cases[_i].want, "%s: %s",
		              grant_cases[_i].desc, fx.err.description);
		ck_assert_str_eq(after, before);
	}
	ck_assert(sqlite3_get_autocommit(sqlite_of(fx.st)->db));
	free(before);
	free(after);
	free(mine);
}
END_TEST

/* One page of project one's clients into fx.list; returns the total. */
static long long client_list(const struct list_query *q)
{
	struct page page = { NULL, -1 };
	struct sync_result r;
	long long total;

	store_client_list(fx.st, fx.p1.project_id, q, &page, sync_completion(&r));
	ck_assert_int_eq(ended(&r), 0);
	json_decref(fx.list);
	fx.list = json_loads(page.data, 0, NULL);
	ck_assert(json_is_array(fx.list));
	total = page.total;
	page_release(&page);
	return total;
}

/* Lists project one (admin + "b_x", "B%y", "a") with the given parameters;
 * returns the names joined by commas into out. */
static long long list_names(size_t sort, bool desc, const char *search, int active, char *out,
                            size_t outlen)
{
	struct list_query q = LIST_QUERY_INIT;
	long long total;
	size_t i;
	json_t *v;

	q.page_size = 100;
	q.sort = sort;
	q.desc = desc;
	q.search = search;
	q.is_active = active;
	total = client_list(&q);
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
	ck_assert_int_eq(client_update(fx.p1.project_id, a_id, &off, NULL), 0);

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

/* The search term is raw: % _ \ are literal, letters match either case. */
static const struct {
	const char *term;
	long long total;
	const char *names;    /* by name, ascending */
} search_cases[] = {
	{ "\\", 1, "x\\y" },
	{ "x_", 1, "x_y" },
	{ "%y", 1, "x%y" },
	{ "XY", 1, "xy" },
	{ "X", 4, "x%y,x\\y,x_y,xy" },
	{ "z", 0, "" },
};

START_TEST(test_list_search_literal)
{
	char names[256];

	create("x\\y", NULL, NULL);
	create("x_y", NULL, NULL);
	create("x%y", NULL, NULL);
	create("xy", NULL, NULL);
	ck_assert_int_eq(list_names(CLIENT_SORT_NAME, false, search_cases[_i].term, -1, names,
	                            sizeof names), search_cases[_i].total);
	ck_assert_str_eq(names, search_cases[_i].names);
}
END_TEST

/* Pages follow the sort without overlap; past the end a page is empty and
 * the total stays. */
START_TEST(test_list_pages)
{
	struct list_query q = LIST_QUERY_INIT;
	const char *want[] = { "a", "admin", "b", "c" };

	create("c", NULL, NULL);
	create("a", NULL, NULL);
	create("b", NULL, NULL);
	q.sort = CLIENT_SORT_NAME;
	q.desc = false;
	q.page_size = 1;
	for (size_t i = 0; i < 4; i++) {
		q.page_num = (long)i + 1;
		ck_assert_int_eq(client_list(&q), 4);
		ck_assert_int_eq(json_array_size(fx.list), 1);
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "name")),
		                 want[i]);
	}
	q.page_num = 5;
	ck_assert_int_eq(client_list(&q), 4);
	ck_assert_int_eq(json_array_size(fx.list), 0);
	q.page_num = 1;
	q.page_size = 3;
	q.desc = true;
	ck_assert_int_eq(client_list(&q), 4);
	ck_assert_int_eq(json_array_size(fx.list), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(fx.list, 0), "name")), "c");
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
	tcase_add_test(tc, test_record_one_definition);
	tcase_add_test(tc, test_record_odd_rows);
	tcase_add_test(tc, test_insert_grant_admin);
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_oidc_fields);
	tcase_add_loop_test(tc, test_routing_needs_all_twelve, 0, N_ELEMS(routing_cases));
	tcase_add_test(tc, test_list);
	tcase_add_loop_test(tc, test_list_search_literal, 0,
	                    sizeof search_cases / sizeof search_cases[0]);
	tcase_add_test(tc, test_list_pages);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_clients_suite()));
}
