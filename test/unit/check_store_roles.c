/*
 * Unit tests for store_roles.c against a real store in a temporary
 * directory: records, keep/clear rules, the order of not-found and conflict
 * errors, rollback on failure, and list order, search and paging. Each test
 * gets a fresh store with two projects from the fixture `fx`; the checked
 * teardown closes and removes it even when an assertion fails.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "jbody.h"
#include "listing.h"
#include "store_projects.h"
#include "store.h"
#include "store_roles.h"

#define MAX_PERMS 16

static struct {
	char dir[64];
	struct store *st;
	struct new_project p, other;
	char *perm[MAX_PERMS];     /* the project's permission IDs, sorted */
	size_t nperm;
	char *other_perm;          /* a permission of the other project */
	json_t *rec;               /* the record a test got back */
	json_t *list;
	const char *ids[MAX_PERMS];
	struct jbody_id_list idl;
	struct api_error err;
} fx;

/* The first column of every row of a query over the test's store. */
static size_t query_texts(const char *sql, const char *arg, char **out, size_t max)
{
	sqlite3_stmt *s;
	size_t n = 0;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.st)->db, sql, -1, &s, NULL), SQLITE_OK);
	if (arg)
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
	while (n < max && sqlite3_step(s) == SQLITE_ROW)
		out[n++] = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return n;
}

static long long query_count(const char *sql, const char *arg)
{
	char *v = NULL;
	long long n;

	ck_assert_uint_eq(query_texts(sql, arg, &v, 1), 1);
	n = atoll(v);
	free(v);
	return n;
}

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_roles", fx.dir);
	ck_assert_int_eq(store_project_create(fx.st, "p", &fx.p, &fx.err), 0);
	ck_assert_int_eq(store_project_create(fx.st, "other", &fx.other, &fx.err), 0);
	fx.nperm = query_texts("SELECT id FROM permissions WHERE project_id = ?1 ORDER BY id",
	                       fx.p.project_id, fx.perm, MAX_PERMS);
	ck_assert_uint_eq(fx.nperm, 12);
	ck_assert_uint_eq(query_texts("SELECT id FROM permissions WHERE project_id = ?1 LIMIT 1",
	                              fx.other.project_id, &fx.other_perm, 1), 1);
	fx.idl = (struct jbody_id_list)ID_LIST_INIT;
}

static void teardown(void)
{
	json_decref(fx.rec);
	json_decref(fx.list);
	for (size_t i = 0; i < fx.nperm; i++)
		free(fx.perm[i]);
	free(fx.other_perm);
	store_new_project_release(&fx.p);
	store_new_project_release(&fx.other);
	check_store_remove(fx.st, fx.dir);
}

/* An jbody_id_list in the fixture over the given IDs (present). */
static const struct jbody_id_list *ids_of(size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		fx.ids[i] = va_arg(ap, const char *);
	va_end(ap);
	fx.idl.present = true;
	fx.idl.count = n;
	fx.idl.ids = fx.ids;
	return &fx.idl;
}

static struct role_fields fields(const char *code, const char *name, enum field_state dstate,
                                 const char *desc, const struct jbody_id_list *ids)
{
	struct role_fields f = { code, name, { dstate, desc }, ids, false, false };
	return f;
}

/* The store's operations as these tests read them, through a completion
 * that the SQLite store runs before it returns: the record, parsed (a new
 * reference), or NULL with fx.err. */
static json_t *ended(const struct sync_result *r, char *text)
{
	json_t *rec = NULL;

	ck_assert(r->done);
	if (r->failed) {
		fx.err = r->err;
	} else {
		ck_assert_ptr_nonnull(text);
		rec = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
		ck_assert_msg(json_is_object(rec), "not a record: %s", text);
	}
	free(text);
	return rec;
}

static json_t *role_create(const char *project_id, const struct role_fields *f,
                           const char *scope)
{
	struct sync_result r;
	char *text = NULL;

	store_role_create(fx.st, &event_origin_cli, project_id, f, scope, &text, sync_completion(&r));
	return ended(&r, text);
}

static json_t *role_update(const char *project_id, const char *id, const struct role_fields *f,
                           const char *scope)
{
	struct sync_result r;
	char *text = NULL;

	store_role_update(fx.st, &event_origin_cli, project_id, id, f, scope, &text, sync_completion(&r));
	return ended(&r, text);
}

/* Page page_num of the project's roles in sort's order, page_size a page,
 * parsed (a new reference); *total: all matches. */
static json_t *role_list(const char *project_id, const struct list_query *q, long long *total)
{
	struct page page = { NULL, -1 };
	struct sync_result r;
	json_t *list;

	store_role_list(fx.st, project_id, q, &page, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	list = json_loads(page.data, JSON_REJECT_DUPLICATES, NULL);
	ck_assert_msg(json_is_array(list), "not a page: %s", page.data);
	*total = page.total;
	page_release(&page);
	return list;
}

static struct list_query query(enum role_sort sort, bool desc, long page_size, long page_num)
{
	struct list_query q = LIST_QUERY_INIT;

	q.sort = sort;
	q.desc = desc;
	q.page_size = page_size;
	q.page_num = page_num;
	return q;
}

/* Creates a role that must succeed; returns its ID (owned by fx.rec's successor). */
static char *create_ok(const char *code, const char *name, const char *desc)
{
	static const struct jbody_id_list none = ID_LIST_INIT;
	struct role_fields f = fields(code, name, desc ? FIELD_SET : FIELD_ABSENT, desc, &none);
	json_t *rec = role_create(fx.p.project_id, &f, NULL);
	char *id;

	ck_assert_msg(rec != NULL, "create %s: %s", code, fx.err.description);
	id = strdup(json_string_value(json_object_get(rec, "id")));
	json_decref(rec);
	return id;
}

static const char *str(const json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

static void assert_no_transaction(void)
{
	ck_assert_int_ne(sqlite3_get_autocommit(sqlite_of(fx.st)->db), 0);
}

/* --- create ------------------------------------------------------------- */

START_TEST(test_create_record)
{
	struct role_fields f = fields("admin", "Admin", FIELD_SET, "Runs it",
	                              ids_of(2, fx.perm[5], fx.perm[1]));
	json_t *perms;

	fx.rec = role_create(fx.p.project_id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(str(fx.rec, "code"), "admin");
	ck_assert_str_eq(str(fx.rec, "name"), "Admin");
	ck_assert_str_eq(str(fx.rec, "description"), "Runs it");
	ck_assert_str_eq(str(fx.rec, "created_at"), str(fx.rec, "updated_at"));
	ck_assert_uint_eq(strlen(str(fx.rec, "created_at")), 24);
	perms = json_object_get(fx.rec, "permission_ids");
	ck_assert_uint_eq(json_array_size(perms), 2);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 0)), fx.perm[1]);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 1)), fx.perm[5]);
	ck_assert(json_is_false(json_object_get(fx.rec, "requires_second_factor")));
	ck_assert_uint_eq(json_object_size(fx.rec), 8);
	assert_no_transaction();
}
END_TEST

START_TEST(test_create_minimal)
{
	struct role_fields f = fields("v", "V", FIELD_CLEAR, NULL, NULL);

	fx.rec = role_create(fx.p.project_id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
	ck_assert_uint_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 0);
}
END_TEST

static const struct {
	const char *desc;
	const char *perm;        /* "mine", "other", or an unknown ID */
	const char *code;
	enum api_code want;
} create_errors[] = {
	{ "unknown permission", "nope", "fresh", E_SOME_PERMISSIONS_NOT_FOUND },
	{ "other project's permission", "other", "fresh", E_SOME_PERMISSIONS_NOT_FOUND },
	{ "code taken", "mine", "taken", E_ROLE_CODE_ALREADY_USED },
	{ "not found beats conflict", "nope", "taken", E_SOME_PERMISSIONS_NOT_FOUND },
};

START_TEST(test_create_errors)
{
	const char *perm = create_errors[_i].perm;
	struct role_fields f;
	char *taken = create_ok("taken", "T", NULL);

	if (!strcmp(perm, "mine"))
		perm = fx.perm[0];
	else if (!strcmp(perm, "other"))
		perm = fx.other_perm;
	f = fields(create_errors[_i].code, "N", FIELD_ABSENT, NULL, ids_of(1, perm));
	fx.rec = role_create(fx.p.project_id, &f, NULL);
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, create_errors[_i].want);
	ck_assert_int_eq(query_count("SELECT count(*) FROM roles WHERE project_id = ?1",
	                             fx.p.project_id), 1);
	ck_assert_int_eq(query_count("SELECT count(*) FROM role_permissions", NULL), 0);
	assert_no_transaction();
	free(taken);
}
END_TEST

START_TEST(test_create_same_code_other_project)
{
	struct role_fields f = fields("admin", "A", FIELD_ABSENT, NULL, NULL);
	char *id = create_ok("admin", "A", NULL);

	fx.rec = role_create(fx.other.project_id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	free(id);
}
END_TEST

/* --- update ------------------------------------------------------------- */

START_TEST(test_update_keep_and_clear)
{
	struct role_fields f = fields("r", "R", FIELD_SET, "D", ids_of(2, fx.perm[0], fx.perm[1]));
	static const struct jbody_id_list absent = ID_LIST_INIT;
	char *id;

	fx.rec = role_create(fx.p.project_id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	id = strdup(str(fx.rec, "id"));
	json_decref(fx.rec);

	/* omitted: kept */
	f = fields("r2", "R2", FIELD_ABSENT, NULL, &absent);
	fx.rec = role_update(fx.p.project_id, id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(str(fx.rec, "code"), "r2");
	ck_assert_str_eq(str(fx.rec, "description"), "D");
	ck_assert_uint_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 2);
	json_decref(fx.rec);

	/* null / []: cleared */
	f = fields("r2", "R2", FIELD_CLEAR, NULL, ids_of(0));
	fx.rec = role_update(fx.p.project_id, id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert(json_is_null(json_object_get(fx.rec, "description")));
	ck_assert_uint_eq(json_array_size(json_object_get(fx.rec, "permission_ids")), 0);
	ck_assert_int_eq(query_count("SELECT count(*) FROM role_permissions", NULL), 0);
	json_decref(fx.rec);

	/* replaced */
	f = fields("r2", "R2", FIELD_SET, "E", ids_of(1, fx.perm[7]));
	fx.rec = role_update(fx.p.project_id, id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(str(fx.rec, "description"), "E");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(fx.rec, "permission_ids"), 0)),
	                 fx.perm[7]);
	ck_assert_str_ge(str(fx.rec, "updated_at"), str(fx.rec, "created_at"));
	assert_no_transaction();
	free(id);
}
END_TEST

static const struct {
	const char *desc;
	bool known_role;
	const char *perm;      /* "mine" or an unknown ID */
	const char *code;      /* "taken" conflicts */
	enum api_code want;
} update_errors[] = {
	{ "unknown role", false, "mine", "fresh", E_ROLE_NOT_FOUND },
	{ "role_not_found beats permissions", false, "nope", "fresh", E_ROLE_NOT_FOUND },
	{ "role_not_found beats conflict", false, "mine", "taken", E_ROLE_NOT_FOUND },
	{ "unknown permission", true, "nope", "fresh", E_SOME_PERMISSIONS_NOT_FOUND },
	{ "permissions beat conflict", true, "nope", "taken", E_SOME_PERMISSIONS_NOT_FOUND },
	{ "code taken", true, "mine", "taken", E_ROLE_CODE_ALREADY_USED },
};

START_TEST(test_update_errors)
{
	char *taken = create_ok("taken", "T", NULL);
	char *self = create_ok("self", "S", "keep me");
	const char *perm = strcmp(update_errors[_i].perm, "mine") ? update_errors[_i].perm : fx.perm[0];
	struct role_fields f = fields(update_errors[_i].code, "N", FIELD_CLEAR, NULL, ids_of(1, perm));

	fx.rec = role_update(fx.p.project_id, update_errors[_i].known_role ? self : "nope", &f,
	                     NULL);
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, update_errors[_i].want);
	ck_assert_int_eq(query_count("SELECT count(*) FROM roles WHERE code = 'self'"
	                             " AND description = 'keep me' AND id = ?1", self), 1);
	ck_assert_int_eq(query_count("SELECT count(*) FROM role_permissions", NULL), 0);
	assert_no_transaction();
	free(taken);
	free(self);
}
END_TEST

START_TEST(test_update_other_projects_role)
{
	struct role_fields f = fields("x", "X", FIELD_ABSENT, NULL, NULL);
	char *id = create_ok("mine", "M", NULL);

	fx.rec = role_update(fx.other.project_id, id, &f, NULL);
	ck_assert_ptr_null(fx.rec);
	ck_assert_int_eq(fx.err.api_code, E_ROLE_NOT_FOUND);
	free(id);
}
END_TEST

START_TEST(test_update_own_code)
{
	struct role_fields f = fields("same", "Renamed", FIELD_ABSENT, NULL, NULL);
	char *id = create_ok("same", "S", NULL);

	fx.rec = role_update(fx.p.project_id, id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert_str_eq(str(fx.rec, "name"), "Renamed");
	free(id);
}
END_TEST

/* --- no escalation (store_grants.h) ------------------------------------- */

/* The ID of the project's permission named like "users:update" (a new
 * string), or "nope" itself. */
static char *perm_named(const char *named)
{
	char *sql, *id = NULL;

	if (!strchr(named, ':'))
		return strdup(named);
	sql = sqlite3_mprintf("SELECT pm.id FROM permissions pm JOIN resources r"
	                      " ON r.id = pm.resource_id WHERE pm.project_id = %Q"
	                      " AND r.code || ':' || pm.code = ?1", fx.p.project_id);
	ck_assert_uint_eq(query_texts(sql, named, &id, 1), 1);
	sqlite3_free(sql);
	return id;
}

/* The role's code, name and permission IDs, to compare before and after. */
static char *role_state(const char *id)
{
	char *v = NULL;

	query_texts("SELECT code || '|' || name || '|' || ifnull((SELECT group_concat(permission_id)"
	            " FROM (SELECT permission_id FROM role_permissions WHERE role_id = ?1"
	            " ORDER BY 1)), '') FROM roles WHERE id = ?1", id, &v, 1);
	return v;
}

static const struct {
	const char *desc;
	bool create;           /* else update the role "self", which holds `holds` */
	const char *holds;     /* a named permission, or NULL */
	const char *grant;     /* permission_ids: a named permission or "nope"; NULL: absent */
	const char *role;      /* the update's target: "self", or an unknown ID */
	const char *code;      /* "taken" conflicts */
	const char *scope;     /* the caller's */
	enum api_code want;    /* E__COUNT: written */
} grant_cases[] = {
	{ "create: given what scope lacks", true, NULL, "users:update", NULL, "new",
	  "roles:create", E_INSUFFICIENT_PERMISSION },
	{ "create: 403 before the conflict", true, NULL, "users:update", NULL, "taken", "",
	  E_INSUFFICIENT_PERMISSION },
	{ "create: within scope", true, NULL, "roles:read", NULL, "new", "roles:read",
	  E__COUNT },
	{ "update: holds what scope lacks", false, "users:update", NULL, "self", "self",
	  "roles:update", E_INSUFFICIENT_PERMISSION },
	{ "update: given what scope lacks", false, "roles:read", "users:update", "self", "self",
	  "roles:read roles:update", E_INSUFFICIENT_PERMISSION },
	{ "update: within scope", false, "roles:read", "roles:update", "self", "self",
	  "roles:read roles:update", E__COUNT },
	{ "update: role_not_found first", false, "users:update", "users:update", "nope", "self",
	  "", E_ROLE_NOT_FOUND },
	{ "update: some_permissions_not_found first", false, "users:update", "nope", "self",
	  "self", "", E_SOME_PERMISSIONS_NOT_FOUND },
	{ "update: 403 before the conflict", false, "users:update", NULL, "self", "taken", "",
	  E_INSUFFICIENT_PERMISSION },
	{ "update: the conflict when allowed", false, "roles:read", NULL, "self", "taken",
	  "roles:read", E_ROLE_CODE_ALREADY_USED },
};

START_TEST(test_no_escalation)
{
	char *taken = create_ok("taken", "T", NULL), *self = create_ok("self", "S", NULL);
	char *held = NULL, *given = NULL, *before, *after;
	static const struct jbody_id_list absent = ID_LIST_INIT;
	struct role_fields f;
	long long roles = query_count("SELECT count(*) FROM roles", NULL);

	if (grant_cases[_i].holds) {
		held = perm_named(grant_cases[_i].holds);
		f = fields("self", "S", FIELD_ABSENT, NULL, ids_of(1, held));
		json_decref(role_update(fx.p.project_id, self, &f, NULL));
	}
	if (grant_cases[_i].grant)
		given = perm_named(grant_cases[_i].grant);
	f = fields(grant_cases[_i].code, "N", FIELD_ABSENT, NULL, given ? ids_of(1, given) : &absent);
	before = role_state(self);
	if (grant_cases[_i].create)
		fx.rec = role_create(fx.p.project_id, &f, grant_cases[_i].scope);
	else
		fx.rec = role_update(fx.p.project_id,
		                           strcmp(grant_cases[_i].role, "self") ? "nope" : self, &f,
		                           grant_cases[_i].scope);
	after = role_state(self);
	if (grant_cases[_i].want == E__COUNT) {
		ck_assert_msg(fx.rec != NULL, "%s: %s", grant_cases[_i].desc, fx.err.description);
	} else {
		ck_assert_msg(!fx.rec && fx.err.api_code == grant_cases[_i].want, "%s: %s",
		              grant_cases[_i].desc, fx.err.description);
		ck_assert_str_eq(after, before);
		ck_assert_int_eq(query_count("SELECT count(*) FROM roles", NULL), roles);
	}
	assert_no_transaction();
	free(taken);
	free(self);
	free(held);
	free(given);
	free(before);
	free(after);
}
END_TEST

/* --- one role: get and delete (docs/api.md §"Read one and delete") ---------------------------- */

static json_t *role_get(const char *project_id, const char *id)
{
	struct sync_result r;
	char *text = NULL;

	store_role_get(fx.st, project_id, id, &text, sync_completion(&r));
	return ended(&r, text);
}

/* 0, or -1 with fx.err. */
static int role_delete(const char *project_id, const char *id, const char *scope)
{
	struct sync_result r;

	store_role_delete(fx.st, &event_origin_cli, project_id, id, scope, sync_completion(&r));
	ck_assert(r.done);
	fx.err = r.err;
	return r.failed ? -1 : 0;
}

START_TEST(test_get)
{
	struct role_fields f = fields("clerk", "Clerk", FIELD_SET, "d", ids_of(1, fx.perm[3]));
	json_t *created = role_create(fx.p.project_id, &f, NULL);
	const char *id = str(created, "id");

	fx.rec = role_get(fx.p.project_id, id);
	ck_assert_ptr_nonnull(fx.rec);
	ck_assert(json_equal(fx.rec, created));
	ck_assert_ptr_null(role_get(fx.p.project_id, "nope"));
	ck_assert_str_eq(fx.err.code, "role_not_found");
	ck_assert_ptr_null(role_get(fx.other.project_id, id));
	ck_assert_str_eq(fx.err.code, "role_not_found");
	json_decref(created);
}
END_TEST

/* A deleted role's users have no role, its grants go; role_not_found comes
 * before the no-escalation refusal, and a refusal changes nothing. */
START_TEST(test_delete)
{
	char *full = perm_named("users:update"), *id = create_ok("clerk", "Clerk", NULL);
	struct role_fields f = fields("clerk", "Clerk", FIELD_ABSENT, NULL, ids_of(1, full));
	char *sql;

	json_decref(role_update(fx.p.project_id, id, &f, NULL));
	sql = sqlite3_mprintf("INSERT INTO users (id, project_id, display_name, role_id,"
	                      " created_at, updated_at) VALUES ('u1', %Q, 'U', %Q, 1, 1)",
	                      fx.p.project_id, id);
	ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);

	ck_assert_int_eq(role_delete(fx.p.project_id, "nope", ""), -1);
	ck_assert_str_eq(fx.err.code, "role_not_found");
	ck_assert_int_eq(role_delete(fx.other.project_id, id, NULL), -1);
	ck_assert_str_eq(fx.err.code, "role_not_found");
	ck_assert_int_eq(role_delete(fx.p.project_id, id, "roles:update"), -1);
	ck_assert_str_eq(fx.err.code, "insufficient_permission");
	ck_assert_int_eq(query_count("SELECT count(*) FROM role_permissions WHERE role_id = ?1", id),
	                 1);
	assert_no_transaction();

	ck_assert_int_eq(role_delete(fx.p.project_id, id, "roles:update users:update"), 0);
	ck_assert_ptr_null(role_get(fx.p.project_id, id));
	ck_assert_int_eq(query_count("SELECT count(*) FROM role_permissions WHERE role_id = ?1", id),
	                 0);
	ck_assert_int_eq(query_count("SELECT count(*) FROM users WHERE id = 'u1'"
	                             " AND role_id IS NULL", NULL), 1);
	ck_assert_int_eq(role_delete(fx.p.project_id, id, NULL), -1);
	ck_assert_str_eq(fx.err.code, "role_not_found");
	free(full);
	free(id);
}
END_TEST

/* --- list --------------------------------------------------------------- */

/* Codes and names chosen so that case and ties matter. */
static const char *const seed[][3] = {
	{ "b", "beta", NULL },
	{ "A", "Alpha", "has 100% and a_b" },
	{ "a", "alpha", NULL },
	{ "C", "ALPHA", "plain" },
	{ "d_1", "Delta", "x\\y" },
};

static void seed_roles(void)
{
	for (size_t i = 0; i < N_ELEMS(seed); i++)
		free(create_ok(seed[i][0], seed[i][1], seed[i][2]));
}

/* The codes of one page, joined with ','. */
static void list_codes(const struct list_query *q, long long *total, char *out, size_t len)
{
	json_t *rec;
	size_t i;

	json_decref(fx.list);
	fx.list = role_list(fx.p.project_id, q, total);
	out[0] = '\0';
	json_array_foreach(fx.list, i, rec) {
		if (i)
			strncat(out, ",", len - strlen(out) - 1);
		strncat(out, str(rec, "code"), len - strlen(out) - 1);
	}
	assert_no_transaction();
}

START_TEST(test_list_name_order_and_ties)
{
	struct list_query q = query(ROLE_SORT_NAME, false, 100, 1);
	char codes[128], want[128] = "";
	long long total;
	char *alpha[3];

	seed_roles();
	list_codes(&q, &total, codes, sizeof codes);
	ck_assert_int_eq(total, 5);
	/* the three "alpha"s tie under NOCASE: by id */
	ck_assert_uint_eq(query_texts("SELECT code FROM roles WHERE lower(name) = 'alpha' ORDER BY id",
	                              NULL, alpha, 3), 3);
	snprintf(want, sizeof want, "%s,%s,%s,b,d_1", alpha[0], alpha[1], alpha[2]);
	ck_assert_str_eq(codes, want);
	q.desc = true;
	list_codes(&q, &total, codes, sizeof codes);
	snprintf(want, sizeof want, "d_1,b,%s,%s,%s", alpha[2], alpha[1], alpha[0]);
	ck_assert_str_eq(codes, want);
	for (size_t i = 0; i < 3; i++)
		free(alpha[i]);
}
END_TEST

START_TEST(test_list_code_order)
{
	struct list_query q = query(ROLE_SORT_CODE, false, 100, 1);
	char codes[128], want[128];
	long long total;
	char *aa[2];

	seed_roles();
	list_codes(&q, &total, codes, sizeof codes);
	ck_assert_uint_eq(query_texts("SELECT code FROM roles WHERE lower(code) = 'a' ORDER BY id",
	                              NULL, aa, 2), 2);
	snprintf(want, sizeof want, "%s,%s,b,C,d_1", aa[0], aa[1]);
	ck_assert_str_eq(codes, want);
	free(aa[0]);
	free(aa[1]);
}
END_TEST

START_TEST(test_list_created_default_desc)
{
	struct list_query q = query(ROLE_SORT_CREATED_AT, true, 2, 1);
	char codes[128], want[128];
	char *newest[2];
	long long total;

	seed_roles();
	/* same-millisecond creations tie: the newest by (created_at, id) */
	list_codes(&q, &total, codes, sizeof codes);
	ck_assert_int_eq(total, 5);
	ck_assert_uint_eq(query_texts("SELECT code FROM roles ORDER BY created_at DESC, id DESC",
	                              NULL, newest, 2), 2);
	snprintf(want, sizeof want, "%s,%s", newest[0], newest[1]);
	ck_assert_str_eq(codes, want);
	free(newest[0]);
	free(newest[1]);
}
END_TEST

static const struct {
	const char *term;
	long long total;
	const char *codes;   /* sorted by code asc; NULL: ties make the order the store's */
} searches[] = {
	{ "ALPHA", 3, NULL },
	{ "beta", 1, "b" },
	{ "%", 1, "A" },
	{ "_", 2, "A,d_1" },
	{ "a_b", 1, "A" },
	{ "\\", 1, "d_1" },
	{ "plain", 1, "C" },
	{ "' OR 1=1 --", 0, "" },
	{ "zzz", 0, "" },
};

START_TEST(test_list_search)
{
	struct list_query q = query(ROLE_SORT_CODE, false, 100, 1);
	char codes[128];
	long long total;

	seed_roles();
	q.search = searches[_i].term;   /* raw: the store escapes it */
	list_codes(&q, &total, codes, sizeof codes);
	ck_assert_int_eq(total, searches[_i].total);
	ck_assert_uint_eq(json_array_size(fx.list), (size_t)searches[_i].total);
	if (searches[_i].codes)
		ck_assert_str_eq(codes, searches[_i].codes);
}
END_TEST

START_TEST(test_list_paging)
{
	struct list_query q = query(ROLE_SORT_CODE, false, 2, 1);
	char page[3][64], all[256];
	long long total;

	seed_roles();
	for (int i = 0; i < 3; i++) {
		q.page_num = i + 1;
		list_codes(&q, &total, page[i], sizeof page[i]);
		ck_assert_int_eq(total, 5);
	}
	snprintf(all, sizeof all, "%s,%s,%s", page[0], page[1], page[2]);
	q = query(ROLE_SORT_CODE, false, 100, 1);
	list_codes(&q, &total, page[0], sizeof page[0]);
	ck_assert_str_eq(all, page[0]);
	q = query(ROLE_SORT_CODE, false, 5, 2);   /* just past the end */
	list_codes(&q, &total, page[0], sizeof page[0]);
	ck_assert_str_eq(page[0], "");
	ck_assert_int_eq(total, 5);
}
END_TEST

START_TEST(test_list_other_project_and_permissions)
{
	struct list_query q = query(ROLE_SORT_CREATED_AT, true, 10, 1);
	struct role_fields f = fields("p", "P", FIELD_ABSENT, NULL, ids_of(2, fx.perm[3], fx.perm[2]));
	json_t *perms;
	long long total;

	fx.rec = role_create(fx.p.project_id, &f, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	fx.list = role_list(fx.other.project_id, &q, &total);
	ck_assert_int_eq(total, 0);
	ck_assert_uint_eq(json_array_size(fx.list), 0);
	json_decref(fx.list);
	fx.list = role_list(fx.p.project_id, &q, &total);
	perms = json_object_get(json_array_get(fx.list, 0), "permission_ids");
	ck_assert_uint_eq(json_array_size(perms), 2);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 0)), fx.perm[2]);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 1)), fx.perm[3]);
	ck_assert(json_equal(json_array_get(fx.list, 0), fx.rec));
}
END_TEST

/* The record has one definition: its text, key order included, is the same
 * in the answer to a write and in a list page (docs/api.md §"Records"). */
START_TEST(test_record_text)
{
	struct role_fields f = fields("admin", "Admin", FIELD_ABSENT, NULL,
	                              ids_of(2, fx.perm[5], fx.perm[1]));
	struct list_query q = query(ROLE_SORT_CODE, false, 10, 1);
	struct page page = { NULL, -1 };
	struct sync_result r;
	char *text = NULL, *want, *listed;

	store_role_create(fx.st, &event_origin_cli, fx.p.project_id, &f, NULL, &text, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	fx.rec = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(fx.rec);
	want = sqlite3_mprintf("{\"id\":\"%s\",\"code\":\"admin\",\"name\":\"Admin\","
	                       "\"description\":null,\"permission_ids\":[\"%s\",\"%s\"],"
	                       "\"requires_second_factor\":false,\"created_at\":\"%s\",\"updated_at\":\"%s\"}",
	                       str(fx.rec, "id"), fx.perm[1], fx.perm[5], str(fx.rec, "created_at"),
	                       str(fx.rec, "updated_at"));
	ck_assert_str_eq(text, want);
	store_role_list(fx.st, fx.p.project_id, &q, &page, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	listed = sqlite3_mprintf("[%s]", want);
	ck_assert_str_eq(page.data, listed);
	ck_assert_int_eq(page.total, 1);
	page_release(&page);
	sqlite3_free(want);
	sqlite3_free(listed);
	free(text);
}
END_TEST

static TCase *tcase_new(const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return tc;
}

static Suite *store_roles_suite(void)
{
	Suite *s = suite_create("store_roles");
	TCase *tc;

	tc = tcase_new("create");
	tcase_add_test(tc, test_create_record);
	tcase_add_test(tc, test_create_minimal);
	tcase_add_loop_test(tc, test_create_errors, 0, N_ELEMS(create_errors));
	tcase_add_test(tc, test_create_same_code_other_project);
	suite_add_tcase(s, tc);

	tc = tcase_new("update");
	tcase_add_test(tc, test_update_keep_and_clear);
	tcase_add_loop_test(tc, test_update_errors, 0, N_ELEMS(update_errors));
	tcase_add_test(tc, test_update_other_projects_role);
	tcase_add_test(tc, test_update_own_code);
	tcase_add_loop_test(tc, test_no_escalation, 0, N_ELEMS(grant_cases));
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_delete);
	suite_add_tcase(s, tc);

	tc = tcase_new("list");
	tcase_add_test(tc, test_list_name_order_and_ties);
	tcase_add_test(tc, test_list_code_order);
	tcase_add_test(tc, test_list_created_default_desc);
	tcase_add_loop_test(tc, test_list_search, 0, N_ELEMS(searches));
	tcase_add_test(tc, test_list_paging);
	tcase_add_test(tc, test_list_other_project_and_permissions);
	tcase_add_test(tc, test_record_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_roles_suite()));
}
