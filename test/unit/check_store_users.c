/*
 * Unit tests for store_users.c and store_users_list.c against a real store
 * in a temporary directory, through their completions: records, keep/clear
 * on update, each error code, filters, search, and the hygiene the black-box
 * tests cannot see (no transaction left open, no statement left un-reset, no
 * hash in a record). Each test gets a fresh store.
 */
#include <check.h>
#include <sys/stat.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "store_projects.h"
#include "store_users.h"
#include "util.h"

static char dir[64];
static char path[96];    /* the store, DIR/e.db */
static struct store *st;
static struct new_project proj, other;

/* A role's row, its columns named (a later one has a default) */
#define ROLE_ROW "INSERT INTO roles (id, project_id, code, name, description, created_at," \
	" updated_at) VALUES "

static void exec_sql(const char *sql)
{
	ck_assert_int_eq(sqlite3_exec(sqlite_of(st)->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

static void setup(void)
{
	char *q;
	struct api_error err;

	st = check_store_new("check_store_users", dir);
	snprintf(path, sizeof path, "%s/e.db", dir);
	ck_assert_int_eq(store_project_create(st, "p", &proj, &err), 0);
	ck_assert_int_eq(store_project_create(st, "other", &other, &err), 0);
	q = xasprintf(
		ROLE_ROW "('r1', '%s', 'r1', 'Reader', NULL, 0, 0);"
		ROLE_ROW "('r_other', '%s', 'ro', 'Other', NULL, 0, 0);"
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
	ck_assert_int_ne(sqlite3_get_autocommit(sqlite_of(st)->db), 0);
	for (size_t i = 0; i < sqlite_of(st)->users.count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(sqlite_of(st)->users.stmt[i]), 0);
	for (size_t i = 0; i < sqlite_of(st)->users_list.count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(sqlite_of(st)->users_list.stmt[i]), 0);
	store_new_project_release(&proj);
	store_new_project_release(&other);
	check_store_remove(st, dir);
}

static struct str_field set(const char *v)
{
	struct str_field f = { FIELD_SET, v };
	return f;
}

static const struct str_field clear = { FIELD_CLEAR, NULL };

/* The store's operations as these tests read them: through a completion that
 * the SQLite store runs before it returns, with the records it writes as
 * JSON text parsed. 0, or -1 with *err. */
static int ended(const struct sync_result *r, struct api_error *err)
{
	ck_assert(r->done);
	if (r->failed)
		*err = r->err;
	return r->failed ? -1 : 0;
}

/* The record text parsed (NULL stays NULL); frees text. */
static json_t *parsed(char *text)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;

	ck_assert_msg(!text || json_is_object(v), "not a JSON object: %s", text);
	free(text);
	return v;
}

static int user_check(const char *project_id, const char *user_id, const struct user_fields *f,
                      const char *scope, struct api_error *err)
{
	struct sync_result r;

	store_user_check(st, project_id, user_id, f, scope, sync_completion(&r));
	return ended(&r, err);
}

static int user_create(const char *project_id, const struct user_fields *f, const char *scope,
                       json_t **rec, struct api_error *err)
{
	struct sync_result r;
	char *text;

	store_user_create(st, &event_origin_cli, project_id, f, scope, &text, sync_completion(&r));
	*rec = parsed(text);
	return ended(&r, err);
}

static int user_update(const char *project_id, const char *user_id, const struct user_fields *f,
                       const char *scope, json_t **rec, struct api_error *err)
{
	struct sync_result r;
	char *text;

	store_user_update(st, &event_origin_cli, project_id, user_id, f, scope, &text, sync_completion(&r));
	*rec = parsed(text);
	return ended(&r, err);
}

/* The record, or NULL with *err. */
static json_t *get_external(const char *project_id, const char *ext, bool with_permissions,
                            struct api_error *err)
{
	struct sync_result r;
	char *text;

	store_user_get_external(st, project_id, ext, with_permissions, &text, sync_completion(&r));
	if (ended(&r, err) < 0) {
		ck_assert_ptr_null(text);
		return NULL;
	}
	return parsed(text);
}

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
	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &rec, &err), 0);
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

	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &rec, &err), 0);
	ck_assert_uint_eq(json_object_size(rec), 12);   /* with second_factors */
	ck_assert_str_eq(json_string_value(json_object_get(rec, "role_name")), "Reader");
	ck_assert(json_is_true(json_object_get(rec, "email_verified")));
	ck_assert(json_is_true(json_object_get(rec, "is_active")));
	ck_assert(json_is_null(json_object_get(rec, "avatar_url")));
	dump = json_dumps(rec, 0);
	ck_assert_ptr_null(strstr(dump, "argon2"));
	free(dump);
	json_decref(rec);
}
END_TEST

static json_t *list_page(const struct list_query *q, long long *total);

/* A list's records are the records that create and update answer (one
 * definition, sqlite_users_sql.h): same keys in the same order, same values
 * and types, for a full record, one with nothing optional, an inactive one
 * and one with characters JSON must escape. */
START_TEST(test_list_record_as_get)
{
	struct user_fields f = { .display_name = "Ann \"A\" \\ \x01\n\xc3\xa9", .is_active = -1,
		.external_user_id = { FIELD_SET, "ann" }, .email = { FIELD_SET, "Ann@x.io" },
		.avatar_url = { FIELD_SET, "https://x.io/a.png" },
		.role_id = { FIELD_SET, "r1" }, .password_hash = "$argon2id$fake" };
	struct list_query p = LIST_QUERY_INIT;
	struct api_error err;
	json_t *recs[3], *page;
	long long total;
	char *id;

	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &recs[0], &err), 0);
	f = (struct user_fields){ .display_name = "Bo", .is_active = -1,
		.external_user_id = { FIELD_SET, "bo" } };
	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &recs[1], &err), 0);
	f.is_active = 0;
	id = xstrdup(json_string_value(json_object_get(recs[1], "id")));
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &recs[2], &err), 0);
	p.sort = USER_SORT_EXTERNAL_USER_ID;
	p.desc = false;
	page = list_page(&p, &total);
	ck_assert_int_eq(total, 2);
	ck_assert_uint_eq(json_array_size(page), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *want = recs[i == 0 ? 0 : 2], *got = json_array_get(page, i);
		char *a = json_dumps(got, 0), *b = json_dumps(want, 0);   /* keeps key order */
		ck_assert_msg(strcmp(a, b) == 0, "list %s\nget  %s", a, b);
		free(a);
		free(b);
	}
	for (size_t i = 0; i < 3; i++)
		json_decref(recs[i]);
	json_decref(page);
	free(id);
}
END_TEST

/* --- one user: by ID and its delete (docs/api.md §"Read one and delete") --------------------- */

static json_t *user_get(const char *project_id, const char *id, struct api_error *err)
{
	struct sync_result r;
	char *text;

	store_user_get(st, project_id, id, &text, sync_completion(&r));
	if (ended(&r, err) < 0) {
		ck_assert_ptr_null(text);
		return NULL;
	}
	return parsed(text);
}

static int user_delete(const char *project_id, const char *id, const char *scope,
                       struct api_error *err)
{
	struct sync_result r;

	store_user_delete(st, &event_origin_cli, project_id, id, scope, sync_completion(&r));
	return ended(&r, err);
}

static long long count_of(const char *fmt, const char *arg)
{
	char *sql = sqlite3_mprintf(fmt, arg);
	sqlite3_stmt *s;
	long long n;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(st)->db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_free(sql);
	return n;
}

/* The rows of table. */
static long long rows_in(const char *table)
{
	return count_of("SELECT count(*) FROM %s", table);
}

/* By ID: the record create answered, in its project only. */
START_TEST(test_get)
{
	struct user_fields f = { .display_name = "Ann", .is_active = -1,
		.external_user_id = { FIELD_SET, "ann" }, .role_id = { FIELD_SET, "r1" } };
	struct api_error err;
	json_t *created, *got;
	char *a, *b;

	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &created, &err), 0);
	got = user_get(proj.project_id, json_string_value(json_object_get(created, "id")), &err);
	ck_assert_ptr_nonnull(got);
	a = json_dumps(got, 0);
	b = json_dumps(created, 0);   /* keeps key order */
	ck_assert_str_eq(a, b);
	ck_assert_ptr_null(user_get(proj.project_id, "nope", &err));
	ck_assert_str_eq(err.code, "user_not_found");
	ck_assert_ptr_null(user_get(other.project_id, json_string_value(json_object_get(created,
	                            "id")), &err));
	ck_assert_str_eq(err.code, "user_not_found");
	free(a);
	free(b);
	json_decref(got);
	json_decref(created);
}
END_TEST

/* A deleted user's session ends first (schema 008: the sign-in made in it
 * is revoked, its access token too), then its sessions, codes and refresh
 * tokens go with it. user_not_found comes before the no-escalation
 * refusal, which changes nothing. */
START_TEST(test_delete)
{
	char *id = create("Ann", "ann", NULL, "r1"), *q;
	struct api_error err;

	q = xasprintf(
		"INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,"
		" expires_at) VALUES ('s1', 'h', '%s', '%s', 1, 1, 9e15);"
		"INSERT INTO auth_codes (hash, family_id, project_id, client_id, user_id, redirect_uri,"
		" code_challenge, created_at, expires_at) VALUES ('c1', 'f1', '%s', '%s', '%s', 'x',"
		" 'y', 1, 9e15);"
		"INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id,"
		" access_jti, access_exp, created_at, expires_at, session_id) VALUES ('t1', 'f1', '%s',"
		" '%s', '%s', 'jti-1', 9e12, 1, 9e15, 's1');",
		proj.project_id, id, proj.project_id, proj.client_id, id, proj.project_id,
		proj.client_id, id);
	exec_sql(q);
	free(q);

	ck_assert_int_eq(user_delete(proj.project_id, "nope", "", &err), -1);
	ck_assert_str_eq(err.code, "user_not_found");
	ck_assert_int_eq(user_delete(other.project_id, id, NULL, &err), -1);
	ck_assert_str_eq(err.code, "user_not_found");
	ck_assert_int_eq(user_delete(proj.project_id, id, "users:update users:read", &err), -1);
	ck_assert_str_eq(err.code, "insufficient_permission");   /* r1 holds clients:read */
	ck_assert_int_eq(count_of("SELECT count(*) FROM refresh_tokens WHERE user_id = %Q", id), 1);

	ck_assert_int_eq(user_delete(proj.project_id, id, "users:read clients:read", &err), 0);
	ck_assert_ptr_null(user_get(proj.project_id, id, &err));
	ck_assert_int_eq(count_of("SELECT count(*) FROM sessions WHERE user_id = %Q", id), 0);
	ck_assert_int_eq(count_of("SELECT count(*) FROM auth_codes WHERE user_id = %Q", id), 0);
	ck_assert_int_eq(count_of("SELECT count(*) FROM refresh_tokens WHERE user_id = %Q", id), 0);
	ck_assert_int_eq(count_of("SELECT count(*) FROM revoked_tokens WHERE jti = %Q", "jti-1"), 1);
	ck_assert_int_eq(user_delete(proj.project_id, id, NULL, &err), -1);
	ck_assert_str_eq(err.code, "user_not_found");
	free(id);
}
END_TEST

/* docs/signin.md §"email_verified": email_verified is true when the management API last set
 * the email, false after the user changed it (email_by_user), kept when the
 * same email is sent back or none is; null without an email. */
START_TEST(test_email_verified)
{
	char *id = create("Ann", NULL, "ann@x.io", NULL);
	struct user_fields by_user = { .display_name = "Ann", .is_active = -1,
	                               .email = set("ann@x.io"), .email_by_user = true };
	struct user_fields by_admin = { .display_name = "Ann", .is_active = -1,
	                                .email = set("ann@x.io") };
	struct user_fields no_email = { .display_name = "Ann", .is_active = -1,
	                                .external_user_id = set("ann") };
	struct api_error err;
	json_t *rec;

#define VERIFIED(f, want) \
	do { \
		ck_assert_int_eq(user_update(proj.project_id, id, (f), NULL, &rec, &err), 0); \
		ck_assert_msg(json_equal(json_object_get(rec, "email_verified"), (want)), \
		              "line %d", __LINE__); \
		json_decref(rec); \
	} while (0)

	VERIFIED(&by_user, json_true());                /* the same email: kept */
	by_user.email = set("ann2@x.io");
	VERIFIED(&by_user, json_false());               /* changed by the user */
	VERIFIED(&by_user, json_false());               /* sent back: kept */
	VERIFIED(&no_email, json_false());              /* omitted: kept */
	by_admin.email = set("ann2@x.io");
	VERIFIED(&by_admin, json_true());               /* the administrator vouches */
	by_user.email = set("ANN2@x.io");
	VERIFIED(&by_user, json_false());               /* case is a change too */
	no_email.email = clear;
	VERIFIED(&no_email, json_null());               /* no email */
#undef VERIFIED
	free(id);
}
END_TEST

/* email_locked: a write that would change the email is refused with
 * insufficient_permission after user_not_found, before the conflicts, and
 * changes nothing; one that keeps it passes. */
START_TEST(test_email_locked)
{
	char *id = create("Ann", NULL, "ann@x.io", NULL), *other_id = create("Bo", NULL, "bo@x.io",
	                                                                       NULL);
	struct user_fields f = { .display_name = "Ann 2", .is_active = -1, .email = set("ann@x.io"),
	                         .email_by_user = true, .email_locked = true };
	struct api_error err;
	json_t *rec;

	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), 0);
	json_decref(rec);
	f.email = set("ann3@x.io");
	ck_assert_int_eq(user_update(proj.project_id, "nope", &f, NULL, &rec, &err), -1);
	ck_assert_str_eq(err.code, "user_not_found");
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), -1);
	ck_assert_str_eq(err.code, "insufficient_permission");
	ck_assert_int_eq(user_check(proj.project_id, id, &f, NULL, &err), -1);
	ck_assert_str_eq(err.code, "insufficient_permission");
	f.email = set("bo@x.io");
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), -1);
	ck_assert_str_eq(err.code, "insufficient_permission");   /* before the conflict */
	f.email = set("ANN@x.io");
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), -1);
	f.email = clear;
	f.external_user_id = set("ann");
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(count_of("SELECT count(*) FROM users WHERE id = %Q AND email = 'ann@x.io'"
	                          " AND display_name = 'Ann 2' AND external_user_id IS NULL", id), 1);
	free(id);
	free(other_id);
}
END_TEST

START_TEST(test_create_errors)
{
	struct user_fields f = { .display_name = "B", .is_active = -1 };
	struct api_error err;
	json_t *rec = (json_t *)1;

	free(create("A", "ext-a", "a@x.io", NULL));
	f.external_user_id = set("ext-a");
	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EXTERNAL_ID_ALREADY_USED);
	ck_assert_ptr_null(rec);
	f.external_user_id = set("ext-b");
	f.email = set("A@X.IO");
	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EMAIL_ALREADY_USED);
	f.role_id = set("r_other");
	ck_assert_int_eq(user_create(proj.project_id, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_ROLE_NOT_FOUND);
	/* The same values are free in another project. */
	f.role_id = set("r_other");
	f.external_user_id = set("ext-a");
	ck_assert_int_eq(user_create(other.project_id, &f, NULL, &rec, &err), 0);
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
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), 0);
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
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), 0);
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
	ck_assert_int_eq(user_update(other.project_id, b, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_NOT_FOUND);
	ck_assert_int_eq(user_update(proj.project_id, b, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_ROLE_NOT_FOUND);
	f.role_id = clear;
	f.email = set("A@x.io");
	ck_assert_int_eq(user_update(proj.project_id, b, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EXTERNAL_ID_ALREADY_USED);
	f.external_user_id = set("ext-b");
	ck_assert_int_eq(user_update(proj.project_id, b, &f, NULL, &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_USER_EMAIL_ALREADY_USED);
	/* A's own values in another case are no conflict. */
	f.external_user_id = set("ext-a");
	f.email = set("A@X.io");
	ck_assert_int_eq(user_update(proj.project_id, a, &f, NULL, &rec, &err), 0);
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

	rec = get_external(proj.project_id, "ext-a", false, &err);
	ck_assert_ptr_nonnull(rec);
	ck_assert_ptr_null(json_object_get(rec, "permissions"));
	json_decref(rec);
	rec = get_external(proj.project_id, "ext-a", true, &err);
	perms = json_object_get(rec, "permissions");
	ck_assert_uint_eq(json_array_size(perms), 2);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 0)), "clients:read");
	ck_assert_str_eq(json_string_value(json_array_get(perms, 1)), "users:read");
	json_decref(rec);
	ck_assert_ptr_null(get_external(other.project_id, "ext-a", true, &err));
	ck_assert_int_eq(err.api_code, E_USER_NOT_FOUND);
	ck_assert_ptr_null(get_external(proj.project_id, "EXT-A", false, &err));
	free(id);
}
END_TEST

/* The permissions of a user's record, joined with spaces. */
static char *external_permissions(const char *ext)
{
	struct api_error err;
	json_t *rec = get_external(proj.project_id, ext, true, &err), *v;
	char *out = xstrdup(""), *next;
	size_t i;

	ck_assert_ptr_nonnull(rec);
	json_array_foreach(json_object_get(rec, "permissions"), i, v) {
		next = xasprintf("%s%s%s", out, *out ? " " : "", json_string_value(v));
		free(out);
		out = next;
	}
	json_decref(rec);
	return out;
}

static void expect_permissions(const char *ext, const char *want)
{
	char *got = external_permissions(ext);

	ck_assert_str_eq(got, want);
	free(got);
}

/* The record lists what a token of the user carries (issue 12): a
 * permission of a resource, or with a code, that a create would refuse is
 * in no token's scope (SQL_SCOPE_CODES_OK), so not in the record either. */
START_TEST(test_external_permissions_as_scope)
{
	char *a = create("A", "ext-a", NULL, "r1"), *q;
	struct sync_result r;
	char *scope;

	q = xasprintf("UPDATE resources SET code = 'x clients' WHERE project_id = '%s'"
	              " AND code = 'clients'", proj.project_id);
	exec_sql(q);
	free(q);
	expect_permissions("ext-a", "users:read");
	q = xasprintf("UPDATE permissions SET code = 're\"ad' WHERE project_id = '%s'"
	              " AND code = 'read'", proj.project_id);
	exec_sql(q);
	free(q);
	expect_permissions("ext-a", "");
	store_user_scope(st, a, &scope, sync_completion(&r));
	ck_assert(!r.failed);
	ck_assert_str_eq(scope, "");
	free(scope);
	free(a);
}
END_TEST

static void opened_nothing(void *arg)
{
	(void)arg;
}

/* --- no escalation (store_grants.h) --- */

/* Every user's ID, name, role and external ID as one string (caller frees). */
static char *users_state(void)
{
	sqlite3_stmt *s;
	char *v;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(st)->db,
		"SELECT ifnull(group_concat(u, ';'), '') FROM (SELECT id || '|' || display_name"
		" || '|' || ifnull(role_id, '') || '|' || ifnull(external_user_id, '') AS u"
		" FROM users ORDER BY id)", -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	v = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

/* Adds the role `id` to the project, holding the permissions of its
 * default resources that match the SQL condition `which` (over r and pm). */
static void add_role(const char *id, const char *which)
{
	char *q = xasprintf(ROLE_ROW "('%s', '%s', '%s', 'R', NULL, 0, 0);"
	                    "INSERT INTO role_permissions SELECT '%s', pm.id FROM permissions pm"
	                    " JOIN resources r ON r.id = pm.resource_id WHERE pm.project_id = '%s'"
	                    " AND %s", id, proj.project_id, id, id, proj.project_id, which);
	exec_sql(q);
	free(q);
}

static const struct {
	const char *desc;
	const char *user;    /* the update's target: "boss" (r_admin), "clerk" (r1), or an
	                      * unknown ID; NULL: a create */
	const char *role;    /* role_id SET to it; "-" clears it; NULL: absent */
	const char *email;   /* SET to it, or NULL: absent */
	const char *scope;   /* the caller's */
	enum api_code want;  /* E__COUNT: written */
} grant_cases[] = {
	{ "create into a role holding what scope lacks", NULL, "r_admin", NULL, "users:create",
	  E_INSUFFICIENT_PERMISSION },
	{ "create into a role within scope", NULL, "r1", NULL, "users:read clients:read", E__COUNT },
	{ "update a user whose role holds what scope lacks", "boss", NULL, NULL, "users:update",
	  E_INSUFFICIENT_PERMISSION },
	{ "take such a user's role away", "boss", "-", NULL, "users:update",
	  E_INSUFFICIENT_PERMISSION },
	{ "move a user into such a role", "clerk", "r_admin", NULL, "users:read clients:read",
	  E_INSUFFICIENT_PERMISSION },
	{ "update within scope", "clerk", "r1", NULL, "users:read clients:read", E__COUNT },
	{ "user_not_found first", "nope", "r_admin", NULL, "", E_USER_NOT_FOUND },
	{ "role_not_found first", "boss", "r_other", NULL, "", E_ROLE_NOT_FOUND },
	{ "403 before the email conflict", NULL, "r_admin", "Taken@x.io", "",
	  E_INSUFFICIENT_PERMISSION },
	{ "the conflict when allowed", NULL, "r1", "Taken@x.io", "users:read clients:read",
	  E_USER_EMAIL_ALREADY_USED },
};

/* store_user_check, outside a transaction, and the write, inside its own,
 * give the same answer; a refused write changes nothing. */
START_TEST(test_no_escalation)
{
	char *boss, *clerk, *before, *after;
	const char *user = grant_cases[_i].user;
	struct user_fields f = { .display_name = "N", .is_active = user ? 1 : -1,
		.external_user_id = set("new-ext") };
	struct api_error err;
	json_t *rec = NULL;
	int rc;

	add_role("r_admin", "1");
	boss = create("Boss", "boss", NULL, "r_admin");
	clerk = create("Clerk", "clerk", NULL, "r1");
	free(create("T", "t", "taken@x.io", NULL));
	if (user && !strcmp(user, "boss"))
		user = boss;
	else if (user && !strcmp(user, "clerk"))
		user = clerk;
	if (grant_cases[_i].role)
		f.role_id = strcmp(grant_cases[_i].role, "-") ? set(grant_cases[_i].role) : clear;
	if (grant_cases[_i].email)
		f.email = set(grant_cases[_i].email);
	before = users_state();

	rc = user_check(proj.project_id, user, &f, grant_cases[_i].scope, &err);
	ck_assert_msg(grant_cases[_i].want == E__COUNT ? rc == 0 : err.api_code == grant_cases[_i].want,
	              "%s: check: %s", grant_cases[_i].desc, err.description);
	if (user)
		rc = user_update(proj.project_id, user, &f, grant_cases[_i].scope, &rec, &err);
	else
		rc = user_create(proj.project_id, &f, grant_cases[_i].scope, &rec, &err);
	after = users_state();
	if (grant_cases[_i].want == E__COUNT) {
		ck_assert_msg(rc == 0, "%s: %s", grant_cases[_i].desc, err.description);
	} else {
		ck_assert_msg(rc == -1 && err.api_code == grant_cases[_i].want, "%s: %s",
		              grant_cases[_i].desc, err.description);
		ck_assert_str_eq(after, before);
	}
	json_decref(rec);
	free(before);
	free(after);
	free(boss);
	free(clerk);
}
END_TEST

/* The role may change between the check before the hash and the write: the
 * write checks again in its own transaction. */
START_TEST(test_write_checks_the_role_again)
{
	struct user_fields f = { .display_name = "N", .is_active = -1,
		.external_user_id = set("n"), .role_id = set("r_grow") };
	struct api_error err;
	json_t *rec = NULL;
	char *before, *after;

	add_role("r_grow", "r.code = 'users' AND pm.code = 'read'");
	ck_assert_int_eq(user_check(proj.project_id, NULL, &f, "users:read", &err), 0);
	exec_sql("INSERT INTO role_permissions SELECT 'r_grow', pm.id FROM permissions pm"
	         " JOIN roles ro ON ro.project_id = pm.project_id AND ro.id = 'r_grow'"
	         " WHERE pm.code = 'create'");
	before = users_state();
	ck_assert_int_eq(user_create(proj.project_id, &f, "users:read", &rec, &err), -1);
	ck_assert_int_eq(err.api_code, E_INSUFFICIENT_PERMISSION);
	ck_assert_ptr_null(rec);
	after = users_state();
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
}
END_TEST

/* A role's permissions are cached, and the record still shows every change
 * at once: made in this connection, by another process, inside a group
 * commit's batch, to a resource's code, and the role taken away. */
START_TEST(test_external_permissions_follow_changes)
{
	char *a = create("A", "ext-a", NULL, "r1"), *b = create("B", "ext-b", NULL, NULL), *q;
	struct api_error err;
	sqlite3 *raw;

	expect_permissions("ext-a", "clients:read users:read");
	expect_permissions("ext-a", "clients:read users:read");
	expect_permissions("ext-b", "");

	q = xasprintf("DELETE FROM role_permissions WHERE role_id = 'r1' AND permission_id ="
	              " (SELECT pm.id FROM permissions pm JOIN resources r ON r.id = pm.resource_id"
	              " WHERE r.project_id = '%s' AND r.code = 'clients' AND pm.code = 'read')",
	              proj.project_id);
	exec_sql(q);
	free(q);
	expect_permissions("ext-a", "users:read");

	ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
	q = xasprintf("INSERT INTO role_permissions SELECT 'r1', pm.id FROM permissions pm"
	              " JOIN resources r ON r.id = pm.resource_id WHERE r.project_id = '%s'"
	              " AND r.code = 'users' AND pm.code = 'update'", proj.project_id);
	ck_assert_int_eq(sqlite3_exec(raw, q, NULL, NULL, NULL), SQLITE_OK);
	free(q);
	expect_permissions("ext-a", "users:read users:update");
	q = xasprintf("UPDATE resources SET code = 'people' WHERE project_id = '%s'"
	              " AND code = 'users'", proj.project_id);
	ck_assert_int_eq(sqlite3_exec(raw, q, NULL, NULL, NULL), SQLITE_OK);
	free(q);
	expect_permissions("ext-a", "people:read people:update");
	sqlite3_close(raw);

	store_batch_enable(st, opened_nothing, NULL);
	ck_assert_int_eq(store_begin(st, &err), 0);
	exec_sql("DELETE FROM role_permissions WHERE role_id = 'r1'");
	ck_assert_int_eq(store_commit(st, &err), 0);
	expect_permissions("ext-a", "");
	ck_assert_int_eq(store_batch_commit(st, &err), 0);

	exec_sql("INSERT INTO role_permissions SELECT 'r1', id FROM permissions"
	         " WHERE code = 'create' AND project_id = (SELECT project_id FROM roles"
	         " WHERE id = 'r1')");
	expect_permissions("ext-a", "clients:create people:create resources:create roles:create");
	exec_sql("DELETE FROM roles WHERE id = 'r1'");
	expect_permissions("ext-a", "");
	free(a);
	free(b);
}
END_TEST

/* A page of store_user_list, parsed: the store writes it as JSON text. */
static json_t *list_page(const struct list_query *q, long long *total)
{
	struct sync_result r;
	struct page page;
	json_t *data;

	store_user_list(st, proj.project_id, q, &page, sync_completion(&r));
	ck_assert_msg(!r.failed, "%s", r.err.description);
	data = json_loads(page.data, 0, NULL);
	ck_assert_msg(json_is_array(data), "not a JSON array: %s", page.data);
	*total = page.total;
	page_release(&page);
	return data;
}

START_TEST(test_list_filters)
{
	struct list_query p = LIST_QUERY_INIT;
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
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 4);
	ck_assert_uint_eq(json_array_size(data), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(data, 1), "display_name")),
	                 "ALICE 100%");   /* alice < ALICE 100% < b_b < bob, case ignored */
	json_decref(data);
	p.search = "ALIce";
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 3);   /* by name twice, by email once */
	json_decref(data);
	p.role_id = "r1";
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 2);
	json_decref(data);
	p.search = "_";
	p.role_id = NULL;
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 1);   /* "_" is literal */
	json_decref(data);
	p.search = "0%";
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 1);   /* so is "%" */
	json_decref(data);
	p.search = NULL;
	p.page_num = 3;
	data = list_page(&p, &total);
	ck_assert_uint_eq(json_array_size(data), 0);
	ck_assert_int_eq(total, 4);
	json_decref(data);
	p.is_active = 0;
	data = list_page(&p, &total);
	ck_assert_int_eq(total, 0);
	json_decref(data);
	for (int i = 0; i < 4; i++)
		free(ids[i]);
}
END_TEST

/* ---- search through the suffix index (schema/005_users_suffixes.sql) ---- */

/* The IDs of every user a search finds (pages of 100, sorted by ID, joined by
 * spaces) and its total. Caller frees. */
static char *search_ids(const char *term, long long *total)
{
	struct list_query p = LIST_QUERY_INIT;
	size_t cap = 64, len = 0;
	char *out = xmalloc(cap);
	json_t *data;

	out[0] = '\0';
	p.search = term;
	p.page_size = 100;
	p.sort = USER_SORT_EXTERNAL_USER_ID;   /* each user's ID is also its external ID */
	p.desc = false;
	do {
		data = list_page(&p, total);
		ck_assert_ptr_nonnull(data);
		for (size_t i = 0; i < json_array_size(data); i++) {
			const char *id = json_string_value(json_object_get(json_array_get(data, i),
			                                                   "external_user_id"));
			size_t n = strlen(id) + 1;
			if (len + n + 1 > cap)
				out = xrealloc(out, cap = 2 * (len + n + 1));
			len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", id);
		}
		p.page_num++;
		json_decref(data);
	} while ((p.page_num - 1) * p.page_size < *total);
	return out;
}

/* Asserts that a search finds exactly the users of want (external IDs). */
static void expect_found(const char *term, const char *want)
{
	long long total;
	char *got = search_ids(term, &total);

	ck_assert_msg(strcmp(got, want) == 0, "search \"%s\": got [%s] want [%s]", term, got, want);
	free(got);
}

/* Whether hay holds needle, ASCII letters compared without case and every
 * other byte exactly: docs/api.md §"Lists"'s search, as LIKE does it. */
static bool contains_ascii_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && (hay[i] == needle[i] ||
		       ((unsigned char)hay[i] < 0x80 && (unsigned char)needle[i] < 0x80 &&
		        tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))))
			i++;
		if (i == n)
			return true;
	}
	return n == 0;
}

/* Pieces of names and terms: ASCII in both cases, LIKE's and FTS5's special
 * characters, and letters that Unicode folds but LIKE does not (É/é, the
 * Kelvin sign and k, ß). */
static const char *const pieces[] = {
	"a", "A", "b", "B", "k", "K", "%", "_", "\\", "\"", "'", " ", "*", ":",
	"\xc3\xa9", "\xc3\x89", "\xe2\x84\xaa", "\xc3\x9f", "@", "."
};
#define N_PIECES (sizeof pieces / sizeof pieces[0])

static unsigned rng_state = 12345;

static unsigned rng(unsigned n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 16) % n;
}

static void random_text(char *buf, size_t size, unsigned max_pieces)
{
	unsigned n = rng(max_pieces + 1);

	buf[0] = '\0';
	for (unsigned i = 0; i < n && strlen(buf) + 4 < size; i++)
		strcat(buf, pieces[rng(N_PIECES)]);
}

/* Differential: for many terms of 1 to 6 characters, the search (the index
 * for 3 or more, the scan below) finds exactly the users whose name or email
 * holds the term without regard to ASCII case, and its total says so. */
START_TEST(test_search_indexed_same_as_scan)
{
	enum { USERS = 300, TERMS = 400 };
	static char names[USERS][64], emails[USERS][64];
	char ext[16], term[64], want[USERS * 8];

	for (int i = 0; i < USERS; i++) {
		random_text(names[i], sizeof names[i], 10);
		if (!names[i][0])
			strcpy(names[i], "x");   /* a display name is required */
		if (rng(3)) {   /* emails are unique: a random head, the user's number */
			random_text(emails[i], sizeof emails[i] - 8, 8);
			sprintf(emails[i] + strlen(emails[i]), "#%03d", i);
		} else {
			emails[i][0] = '\0';   /* none */
		}
		snprintf(ext, sizeof ext, "u%03d", i);
		free(create(names[i], ext, emails[i][0] ? emails[i] : NULL, NULL));
	}
	for (int t = 0; t < TERMS; t++) {
		long long total, expected = 0;
		size_t len = 0;
		char *got;
		struct api_error err;

		/* the users' keys: none yet (schema/012), then 40 users' in
		 * user_suffixes_recent (20 a step of 2,000) and 260 pending, then
		 * all in the index */
		if (t == TERMS / 3) {
			ck_assert_int_eq(store_user_suffixes_move(st, 2000, &err), 1);
			ck_assert_int_eq(store_user_suffixes_move(st, 2000, &err), 1);
			ck_assert_int_eq(rows_in("user_suffixes_pending"),
			                 USERS - 40);
		} else if (t == 2 * TERMS / 3) {
			while (store_user_suffixes_move(st, 2000, &err) == 1)
				;
			ck_assert_int_eq(rows_in("user_suffixes_recent"), 0);
			ck_assert_int_gt(rows_in("user_suffixes"), 0);
		}

		if (t % 2) {   /* a piece of a stored name, some letters in the other case */
			const char *src = names[rng(USERS)];
			size_t n = strlen(src), from = rng((unsigned)n), k = 1 + rng(14);
			snprintf(term, sizeof term, "%.*s", (int)k, src + from);
			for (char *c = term; *c; c++)
				if (rng(2) && (unsigned char)*c < 0x80)
					*c = (char)(isupper((unsigned char)*c) ? tolower((unsigned char)*c)
					                                      : toupper((unsigned char)*c));
			/* never cut a character in two: drop a trailing partial sequence */
			for (size_t m = strlen(term); m > 0; m--) {
				unsigned char c = (unsigned char)term[m - 1];
				if (c < 0x80)
					break;
				if (c >= 0xC0) {   /* a lead byte: keep it only if complete */
					size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
					if (strlen(term) - (m - 1) < need)
						term[m - 1] = '\0';
					break;
				}
			}
			if ((unsigned char)term[0] >= 0x80 && (unsigned char)term[0] < 0xC0)
				continue;   /* started inside a character */
		} else {
			random_text(term, sizeof term, 6);
		}
		if (!term[0])
			continue;
		want[0] = '\0';
		for (int i = 0; i < USERS; i++)
			if (contains_ascii_nocase(names[i], term) || contains_ascii_nocase(emails[i], term)) {
				len += (size_t)sprintf(want + len, "%su%03d", len ? " " : "", i);
				expected++;
			}
		got = search_ids(term, &total);
		ck_assert_msg(strcmp(got, want) == 0, "search \"%s\": got [%s] want [%s]", term, got, want);
		ck_assert_int_eq(total, expected);
		free(got);
	}
}
END_TEST

/* The index (both its tables) holds exactly the suffixes a rebuild from the
 * users table would (schema/005_users_suffixes.sql), in both directions, and
 * no key is in both tables; of a user still pending (schema/012) it may lack
 * any, but holds none stale. */
static void expect_index_matches_table(sqlite3 *db)
{
	static const char sql[] =
		"WITH want (project, suffix, user_rowid) AS ("
		" SELECT p.rowid, substr(lower(u.display_name), n, 10), u.rowid"
		" FROM users u JOIN projects p ON p.id = u.project_id"
		" JOIN search_positions ON n <= length(u.display_name)"
		" UNION SELECT p.rowid, substr(lower(u.email), n, 10), u.rowid"
		" FROM users u JOIN projects p ON p.id = u.project_id"
		" JOIN search_positions ON n <= length(u.email)),"
		" have AS (SELECT * FROM user_suffixes UNION ALL SELECT * FROM user_suffixes_recent)"
		" SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have)"
		" WHERE user_rowid NOT IN (SELECT user_rowid FROM user_suffixes_pending)),"
		" (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want)),"
		" (SELECT count(*) FROM (SELECT * FROM user_suffixes INTERSECT"
		" SELECT * FROM user_suffixes_recent))";
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(s, 0), 0);   /* none missing */
	ck_assert_int_eq(sqlite3_column_int(s, 1), 0);   /* none stale */
	ck_assert_int_eq(sqlite3_column_int(s, 2), 0);   /* none twice */
	sqlite3_finalize(s);
}

/* Writes keep the index in step: create, rename, change and clear the email,
 * and a deleted project's users; the index then equals a rebuild. A search
 * of 3 or more characters reads the index (emptied behind the store's back,
 * it finds nothing), a shorter one scans. */
START_TEST(test_search_index_follows_writes)
{
	struct user_fields f = { .is_active = -1 };
	struct api_error err;
	json_t *rec;
	char *id = create("Ada Lovelace", "ada", "ada@engine.org", NULL);

	free(create("Grace", "grace", "grace@navy.mil", NULL));
	expect_found("LOVEL", "ada");
	f.display_name = "Ada King";
	f.email = set("countess@engine.org");
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), 0);
	json_decref(rec);
	expect_found("lovelace", "");
	expect_found("ada@", "");
	expect_found("a kin", "ada");
	expect_found("COUNTESS@", "ada");
	f.email = clear;
	ck_assert_int_eq(user_update(proj.project_id, id, &f, NULL, &rec, &err), 0);
	json_decref(rec);
	expect_found("engine.org", "");
	expect_found("@navy", "grace");
	exec_sql("INSERT INTO users (id, project_id, display_name, email, created_at, updated_at)"
	         " SELECT 'o' || value, (SELECT id FROM projects WHERE name = 'other'),"
	         " 'Other ' || value, NULL, 0, 0 FROM json_each('[1,2,3]');"
	         "DELETE FROM projects WHERE name = 'other';");
	expect_index_matches_table(sqlite_of(st)->db);
	exec_sql("DELETE FROM user_suffixes; DELETE FROM user_suffixes_recent;"
	         " DELETE FROM user_suffixes_pending");
	expect_found("Grace", "");   /* read through the (now empty) index */
	expect_found("Gr", "grace");   /* scanned */
	free(id);
}
END_TEST

/* New users' keys wait in user_suffixes_recent; moves of 7 keys at a time
 * carry them into user_suffixes until none is left (0), and a search finds
 * the same users before, between and after, including users renamed or
 * deleted while their keys were half moved. */
START_TEST(test_search_keys_moved)
{
	struct user_fields f = { .is_active = -1 };
	struct api_error err;
	json_t *rec;
	int moves = 0, rc;
	char *ids[6];
	static const char *const names[] = {
		"Moved One", "Moved Two", "Moved Three", "Stays Put", "Renamed Later", "Gone Soon" };

	for (int i = 0; i < 6; i++) {
		char ext[16];
		snprintf(ext, sizeof ext, "m%d", i);
		ids[i] = create(names[i], ext, NULL, NULL);
	}
	expect_found("moved", "m0 m1 m2");
	ck_assert_int_eq(store_user_suffixes_move(st, 7, &err), 1);
	ck_assert_int_eq(store_user_suffixes_move(st, 7, &err), 1);
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("moved", "m0 m1 m2");
	f.display_name = "Now Moved Too";
	ck_assert_int_eq(user_update(proj.project_id, ids[4], &f, NULL, &rec, &err), 0);
	json_decref(rec);
	exec_sql("DELETE FROM users WHERE external_user_id = 'm5'");   /* no API deletes users */
	expect_index_matches_table(sqlite_of(st)->db);
	while ((rc = store_user_suffixes_move(st, 7, &err)) == 1)
		moves++;
	ck_assert_int_eq(rc, 0);
	ck_assert_int_gt(moves, 3);
	ck_assert_int_eq(rows_in("user_suffixes_recent"), 0);
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("moved", "m0 m1 m2 m4");
	expect_found("gone", "");
	expect_found("ays pu", "m3");
	for (int i = 0; i < 6; i++)
		free(ids[i]);
}
END_TEST

/* A new user waits for its keys (schema/012): it has none, a search finds
 * it all the same (by name, by email, in the count, with a term longer than
 * a key), a rename of it finds the new name only, a delete takes it off the
 * list (and the next user, which may get its rowid, is pending anew). Moves
 * write the keys of one pending user at a time before they move any key,
 * and then the index equals a rebuild and every search finds the same
 * users. */
START_TEST(test_search_pending_users)
{
	struct user_fields f = { .is_active = -1 };
	struct api_error err;
	json_t *rec;
	long long total;
	char *got, *ids[3];
	int rc;

	ids[0] = create("Pending Pat", "p0", "pat@wait.example", NULL);
	ids[1] = create("Pending Quinn", "p1", NULL, NULL);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 2);
	ck_assert_int_eq(rows_in("user_suffixes_recent"), 0);
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("pending", "p0 p1");
	expect_found("T@WAIT", "p0");
	expect_found("pending quinn", "p1");   /* longer than a key: the LIKE decides */
	expect_found("pending quinx", "");
	got = search_ids("ending", &total);
	ck_assert_str_eq(got, "p0 p1");
	ck_assert_int_eq(total, 2);
	free(got);
	f.display_name = "Waiting Quinn";
	ck_assert_int_eq(user_update(proj.project_id, ids[1], &f, NULL, &rec, &err), 0);
	json_decref(rec);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 2);
	/* the update's keys, none of the old name */
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("pending", "p0");
	expect_found("waiting q", "p1");
	exec_sql("DELETE FROM users WHERE external_user_id = 'p1'");   /* no API deletes users */
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 1);
	ids[2] = create("Pending Ray", "p2", NULL, NULL);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 2);
	expect_found("pending", "p0 p2");
	ck_assert_int_eq(store_user_suffixes_move(st, 7, &err), 1);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 1);
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("pending", "p0 p2");
	while ((rc = store_user_suffixes_move(st, 7, &err)) == 1)
		;
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 0);
	ck_assert_int_eq(rows_in("user_suffixes_recent"), 0);
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("pending", "p0 p2");
	expect_found("T@WAIT", "p0");
	expect_found("waiting", "");
	f.display_name = "Settled Ray";
	ck_assert_int_eq(user_update(proj.project_id, ids[2], &f, NULL, &rec, &err), 0);
	json_decref(rec);
	ck_assert_int_eq(rows_in("user_suffixes_pending"), 0);   /* a settled user's rename writes its keys */
	expect_index_matches_table(sqlite_of(st)->db);
	expect_found("settled r", "p2");
	for (int i = 0; i < 3; i++)
		free(ids[i]);
}
END_TEST

/* The index keys are cut to 10 characters: a longer term is looked up by
 * its first 10, and the LIKE keeps only the users that hold all of it. A
 * term of multi-byte characters is cut by characters, not bytes. */
START_TEST(test_search_long_terms)
{
	free(create("Maximiliana Oberhollenzer", "max", "max.oberhollenzer@alpen.example", NULL));
	free(create("Maximiliana Oberhof", "hof", NULL, NULL));
	free(create("\xc3\x89l\xc3\xa9onore \xc3\x89t\xc3\xa9-Ch\xc3\xa2teau", "eleo", NULL, NULL));
	expect_found("maximiliana ober", "hof max");
	expect_found("MAXIMILIANA OBERHOL", "max");
	expect_found("Maximiliana Oberhog", "");
	expect_found("oberhollenzer@alpen.example", "max");
	expect_found("oberhollenzer@alpen.examples", "");
	expect_found("\xc3\xa9onore \xc3\x89t\xc3\xa9-Ch\xc3\xa2te", "eleo");
	expect_found("\xc3\xa9onore \xc3\x89t\xc3\xa9-Ch\xc3\xa2ta", "");
	expect_found("\xc3\x89ONORE", "");   /* LIKE folds ASCII only: \xc3\xa9 is not \xc3\x89 */
	expect_index_matches_table(sqlite_of(st)->db);
}
END_TEST

extern const char *const schema_migrations[];

/* A store at version 2, with users, gets an index that already holds them. */
START_TEST(test_search_index_built_by_migration)
{
	char old_path[sizeof path + 8], errbuf[256];
	struct store *old;
	sqlite3_stmt *s;
	sqlite3 *raw;

	snprintf(old_path, sizeof old_path, "%s/old.db", dir);
	ck_assert_int_eq(sqlite3_open(old_path, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw, schema_migrations[0], NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw, schema_migrations[1], NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw,
		"PRAGMA user_version = 2;"
		"INSERT INTO projects VALUES ('p', 'P', 1, 0, 0);"
		"INSERT INTO users (id, project_id, display_name, email, created_at, updated_at)"
		" VALUES ('u1', 'p', 'Old Timer', 'old@x.io', 0, 0), ('u2', 'p', 'New', NULL, 0, 0);",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	ck_assert_int_eq(chmod(old_path, 0600), 0);
	old = store_open(old_path, false, errbuf, sizeof errbuf);
	ck_assert_msg(old != NULL, "%s", errbuf);
	expect_index_matches_table(sqlite_of(old)->db);
	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(old)->db,
	                                    "SELECT group_concat(u.id) FROM user_suffixes s"
	                 " JOIN users u ON u.rowid = s.user_rowid WHERE s.suffix = 'timer'",
	                 -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "u1");
	sqlite3_finalize(s);
	store_close(old);   /* the last connection: SQLite removes -wal and -shm */
	unlink(old_path);
}
END_TEST

static Suite *store_users_suite(void)
{
	Suite *s = suite_create("store_users");
	TCase *tc = tcase_create("users");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_record);
	tcase_add_test(tc, test_list_record_as_get);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_email_verified);
	tcase_add_test(tc, test_email_locked);
	tcase_add_test(tc, test_update_keep_and_clear);
	tcase_add_test(tc, test_update_errors);
	tcase_add_loop_test(tc, test_no_escalation, 0, sizeof grant_cases / sizeof grant_cases[0]);
	tcase_add_test(tc, test_write_checks_the_role_again);
	tcase_add_test(tc, test_get_external);
	tcase_add_test(tc, test_external_permissions_follow_changes);
	tcase_add_test(tc, test_external_permissions_as_scope);
	tcase_add_test(tc, test_list_filters);
	tcase_add_test(tc, test_search_indexed_same_as_scan);
	tcase_add_test(tc, test_search_index_follows_writes);
	tcase_add_test(tc, test_search_index_built_by_migration);
	tcase_add_test(tc, test_search_long_terms);
	tcase_add_test(tc, test_search_keys_moved);
	tcase_add_test(tc, test_search_pending_users);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_users_suite()));
}
