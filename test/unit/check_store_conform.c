/*
 * The store's contract, on both backends (issue26.1; store_conform.h runs
 * every case once on SQLite and once on PostgreSQL): projects; the
 * records of roles, resources, users, clients and audit events byte for
 * byte; a page of a project's events through each filter (issue29);
 * each write's outcome codes and sentences in their order; updates that
 * keep or clear; the no-escalation refusals worded as
 * store_grant_refuse words them; what deletes take with them; lists'
 * paging, sort, ties, filters and search; signing keys.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_conform.h"
#include "jbody.h"
#include "listing.h"
#include "store_clients.h"
#include "store_grants.h"
#include "store_keys.h"
#include "store_factors.h"
#include "store_resources.h"
#include "store_sessions.h"
#include "store_roles.h"
#include "store_users.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- records as text ---- */

/* text with every occurrence of from replaced by to (a new string). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = text; (p = strstr(p, from)); p += nf)
		n++;
	out = o = xmalloc(strlen(text) + n * nt + 1);
	for (p = text; *p;) {
		if (!strncmp(p, from, nf)) {
			memcpy(o, to, nt);
			o += nt;
			p += nf;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* A record's text with its times ("..._at" or "time": "2026-...Z") as
 * T, a number ID ("id":28) as N and each ids[i] as names[i]: what two
 * backends must write alike, to the byte. */
static char *shape(const char *text, const char *const *ids, const char *const *names, size_t n)
{
	char *s = xstrdup(text), *t, *end;
	const char *p;
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		t = replace_all(s, ids[i], names[i]);
		free(s);
		s = t;
	}
	t = xmalloc(strlen(s) + 1);
	for (p = s; *p;) {
		size_t key = !strncmp(p, "_at\":\"", 6) ? 6 : !strncmp(p, "\"time\":\"", 8) ? 8 : 0;

		if (key && (end = strchr(p + key, '"'))) {
			ck_assert_msg(end - (p + key) == 24 && end[-1] == 'Z', "a time: %.30s", p);
			memcpy(t + len, p, key - 1);
			len += key - 1;
			t[len++] = 'T';
			p = end + 1;
		} else if (!strncmp(p, "\"id\":", 5) && p[5] >= '0' && p[5] <= '9') {
			memcpy(t + len, "\"id\":N", 6);
			len += 6;
			for (p += 5; *p >= '0' && *p <= '9'; p++)
				;
		} else {
			t[len++] = *p++;
		}
	}
	t[len] = '\0';
	free(s);
	return t;
}

/* The string member key of the record text (a new string). */
static char *member(const char *text, const char *key)
{
	json_t *j = json_loads(text, 0, NULL);
	char *v;

	ck_assert_msg(j != NULL, "not JSON: %s", text);
	ck_assert_msg(json_is_string(json_object_get(j, key)), "no %s in %s", key, text);
	v = xstrdup(json_string_value(json_object_get(j, key)));
	json_decref(j);
	return v;
}

#define assert_shape(text, expected, ...) do { \
	const char *ids_[] = { __VA_ARGS__ }; \
	static const char *const names_[] = { "ID", "ID2", "ID3", "ID4" }; \
	char *got_ = shape(text, ids_, names_, N_ELEMS(ids_)); \
	ck_assert_str_eq(got_, expected); \
	free(got_); \
} while (0)

/* ---- the project's default resources ---- */

/* The ID of the project's permission named resource:code ("roles:create"),
 * read through the resource list. A new string. */
static char *permission_id(const char *named)
{
	struct list_query q = LIST_QUERY_INIT;
	struct page pg = { 0 };
	json_t *list, *res, *perm;
	size_t i, j;
	char *id = NULL, want[80];

	q.page_size = 100;
	store_resource_list(cf.st, cf.p.project_id, &q, &pg, DONE);
	ok();
	list = json_loads(pg.data, 0, NULL);
	ck_assert_ptr_nonnull(list);
	json_array_foreach(list, i, res) {
		json_array_foreach(json_object_get(res, "permissions"), j, perm) {
			snprintf(want, sizeof want, "%s:%s",
			         json_string_value(json_object_get(res, "code")),
			         json_string_value(json_object_get(perm, "code")));
			if (!id && !strcmp(want, named))
				id = xstrdup(json_string_value(json_object_get(perm, "id")));
		}
	}
	json_decref(list);
	page_release(&pg);
	ck_assert_msg(id != NULL, "no permission %s", named);
	return id;
}

/* ---- projects ---- */

/* The project of the test, as the project list shows it. */
static void project_listed_as(bool active)
{
	json_t *list = store_project_list(cf.st, &cf.err), *p;
	char *text = NULL, *want;
	size_t i;

	ck_assert_ptr_nonnull(list);
	json_array_foreach(list, i, p) {
		if (!strcmp(json_string_value(json_object_get(p, "id")), cf.p.project_id))
			text = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
	}
	json_decref(list);
	ck_assert_ptr_nonnull(text);
	want = xasprintf("{\"id\":\"ID\",\"name\":\"conform\",\"is_active\":%s,"
	                 "\"created_at\":T,\"updated_at\":T}", active ? "true" : "false");
	assert_shape(text, want, cf.p.project_id);
	free(want);
	free(text);
}

START_TEST(test_project_state)
{
	struct new_project admin = { 0 };
	struct project_state ps;
	struct client_auth ca;
	long before;

	store_project_get(cf.st, cf.p.project_id, &ps, DONE);
	ok();
	ck_assert(ps.found && ps.is_active);
	project_listed_as(true);
	ck_assert_int_eq(store_project_set_active(cf.st, cf.p.project_id, false, &cf.err), 1);
	store_project_get(cf.st, cf.p.project_id, &ps, DONE);
	ok();
	ck_assert(ps.found && !ps.is_active);
	ck_assert_int_eq(store_project_set_active(cf.st, "nope", true, &cf.err), 0);
	store_project_get(cf.st, "nope", &ps, DONE);
	ok();
	ck_assert(!ps.found);
	project_listed_as(false);
	ck_assert_int_eq(store_project_admin_client(cf.st, "nope", &admin, &cf.err), 0);
	ck_assert_int_eq(store_project_admin_client(cf.st, cf.p.project_id, &admin, &cf.err), 1);
	ck_assert_str_eq(admin.project_id, cf.p.project_id);
	store_client_authenticate(cf.st, admin.client_id, admin.client_secret, &ca, DONE);
	ok();
	ck_assert(ca.found && !ca.project_active);
	store_new_project_release(&admin);
	before = store_project_count(cf.st, &cf.err);
	ck_assert_int_ge(before, 1);
	{
		struct new_project q = { 0 };

		ck_assert_int_eq(store_project_create(cf.st, "second", &q, &cf.err), 0);
		ck_assert_int_eq(store_project_count(cf.st, &cf.err), before + 1);
		store_new_project_release(&q);
	}
}
END_TEST

/* ---- roles ---- */

static char *role_create(const char *code, const char *name, const char *desc,
                         const char *const *perms, size_t n, const char *scope)
{
	struct jbody_id_list ids = { true, n, (const char **)perms };
	struct role_fields f = { code, name, { desc ? FIELD_SET : FIELD_ABSENT, desc }, &ids,
	                         false, false };
	char *out = NULL;

	store_role_create(cf.st, &event_origin_cli, cf.p.project_id, &f, scope, &out, DONE);
	return out;
}

START_TEST(test_role_record)
{
	char *rd = permission_id("roles:read"), *ud = permission_id("users:read");
	const char *perms[] = { rd, ud };
	const char *sorted[2] = { strcmp(rd, ud) < 0 ? rd : ud, strcmp(rd, ud) < 0 ? ud : rd };
	char *out = role_create("viewer", "Viewer \"q\" é", "reads", perms, 2, NULL), *id;

	ok();
	id = member(out, "id");
	assert_shape(out, "{\"id\":\"ID\",\"code\":\"viewer\",\"name\":\"Viewer \\\"q\\\" \xc3\xa9\","
	             "\"description\":\"reads\",\"permission_ids\":[\"ID2\",\"ID3\"],"
	             "\"requires_second_factor\":false,\"created_at\":T,\"updated_at\":T}", id,
	             sorted[0], sorted[1]);
	free(out);
	out = NULL;
	store_role_get(cf.st, cf.p.project_id, id, &out, DONE);
	ok();
	assert_shape(out, "{\"id\":\"ID\",\"code\":\"viewer\",\"name\":\"Viewer \\\"q\\\" \xc3\xa9\","
	             "\"description\":\"reads\",\"permission_ids\":[\"ID2\",\"ID3\"],"
	             "\"requires_second_factor\":false,\"created_at\":T,\"updated_at\":T}", id,
	             sorted[0], sorted[1]);
	free(out);
	out = role_create("bare", "Bare", NULL, NULL, 0, NULL);
	ok();
	free(id);
	id = member(out, "id");
	assert_shape(out, "{\"id\":\"ID\",\"code\":\"bare\",\"name\":\"Bare\",\"description\":null,"
	             "\"permission_ids\":[],\"requires_second_factor\":false,\"created_at\":T,"
	             "\"updated_at\":T}", id);
	free(out);
	free(id);
	free(rd);
	free(ud);
}
END_TEST

/* docs/signin.md "Second factors": set on create, kept by an update
 * without it, cleared by one with false */
START_TEST(test_role_second_factor)
{
	struct role_fields f = { "mfa", "MFA", { FIELD_ABSENT, NULL }, NULL, true, true };
	char *out = NULL, *id;
	json_t *j;

	store_role_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	id = member(out, "id");
	j = json_loads(out, 0, NULL);
	ck_assert(json_is_true(json_object_get(j, "requires_second_factor")));
	json_decref(j);
	free(out);
	f = (struct role_fields){ "mfa", "MFA 2", { FIELD_ABSENT, NULL }, NULL, false, false };
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	ck_assert(json_is_true(json_object_get(j, "requires_second_factor")));
	json_decref(j);
	free(out);
	f.set_second_factor = true;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	ck_assert(json_is_false(json_object_get(j, "requires_second_factor")));
	json_decref(j);
	free(out);
	free(id);
}
END_TEST

START_TEST(test_role_codes)
{
	char *rc = permission_id("roles:create"), *out, *id, *other;
	const char *perms[] = { rc }, *bogus[] = { "no-such-permission" };
	struct role_fields f = { "x", "X", { FIELD_ABSENT, NULL }, NULL, false, false };
	struct api_error want;

	free(role_create("dup", "Dup", NULL, NULL, 0, NULL));
	ok();
	free(role_create("dup", "Again", NULL, NULL, 0, NULL));
	fails("role_code_already_used", ROLE_CODE_TAKEN);
	free(role_create("b", "B", NULL, bogus, 1, NULL));
	fails("some_permissions_not_found", NULL);
	/* no escalation: a scope without roles:create may not grant it */
	store_grant_refuse("permission", "roles:create", &want);
	free(role_create("esc", "Esc", NULL, perms, 1, "roles:read users:read"));
	fails("insufficient_permission", want.description);
	out = role_create("esc", "Esc", NULL, perms, 1, "roles:create");
	ok();
	id = member(out, "id");
	free(out);
	/* nor update or delete a role that holds it */
	store_grant_refuse("role", "roles:create", &want);
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, "roles:read", &out, DONE);
	fails("insufficient_permission", want.description);
	free(out);
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, id, "users:read", DONE);
	fails("insufficient_permission", want.description);
	/* not found comes first, in another project too */
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, "nope", &f, "", &out, DONE);
	fails("role_not_found", store_role_missing->sentence);
	free(out);
	out = NULL;
	store_role_get(cf.st, cf.p.project_id, "nope", &out, DONE);
	fails("role_not_found", store_role_missing->sentence);
	free(out);
	{
		struct new_project q = { 0 };

		ck_assert_int_eq(store_project_create(cf.st, "other", &q, &cf.err), 0);
		out = NULL;
		store_role_get(cf.st, q.project_id, id, &out, DONE);
		fails("role_not_found", store_role_missing->sentence);
		free(out);
		store_new_project_release(&q);
	}
	/* an update to a taken code */
	other = role_create("taken", "T", NULL, NULL, 0, NULL);
	ok();
	free(other);
	f.code = "taken";
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out, DONE);
	fails("role_code_already_used", ROLE_CODE_TAKEN);
	free(out);
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, id, NULL, DONE);
	ok();
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, id, NULL, DONE);
	fails("role_not_found", store_role_missing->sentence);
	free(id);
	free(rc);
}
END_TEST

/* ---- lists ---- */

/* The codes of a page (space-separated, a new string) and its total. */
static char *page_codes(const struct page *pg, const char *key)
{
	json_t *list = json_loads(pg->data, 0, NULL), *rec;
	size_t i;
	char *s = xstrdup(""), *t;

	ck_assert_msg(list != NULL, "not JSON: %s", pg->data);
	json_array_foreach(list, i, rec) {
		t = xasprintf("%s%s%s", s, i ? " " : "", json_string_value(json_object_get(rec, key)));
		free(s);
		s = t;
	}
	json_decref(list);
	return s;
}

/* A list operation of the store (store_<area>_list). */
typedef void list_fn(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done);

/* A list's read into pg succeeded (ok), and its page is the records whose
 * key reads words (in that order, space-separated), of total matches;
 * then pg is released. */
static void page_is(struct page *pg, const char *key, const char *words, long long total)
{
	char *got;

	ok();
	got = page_codes(pg, key);
	ck_assert_str_eq(got, words);
	ck_assert_int_eq(pg->total, total);
	free(got);
	page_release(pg);
}

/* The page of list for q is (page_is) words, of total. */
static void list_is(list_fn *list, const char *key, const struct list_query *q,
                    const char *words, long long total)
{
	struct page pg = { 0 };

	list(cf.st, cf.p.project_id, q, &pg, DONE);
	page_is(&pg, key, words, total);
}

#define role_list_is(q, codes, total) list_is(store_role_list, "code", q, codes, total)
#define user_list_is(q, names, total) list_is(store_user_list, "display_name", q, names, total)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The space-separated words of s in strcmp's order (static: the next
 * call overwrites it). */
static const char *sorted_words(const char *s)
{
	static char out[1024];
	char *copy = xstrdup(s), *w[64], *save = NULL;
	size_t n = 0;

	for (char *t = strtok_r(copy, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	qsort(w, n, sizeof w[0], cmp_str);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", w[i]);
	free(copy);
	return out;
}

/* Three roles of one name: ties go by ID, in the sort's direction. */
START_TEST(test_role_list)
{
	const char *codes[] = { "t1", "t2", "t3" }, *names[] = { "same", "Same", "SAME" };
	char *ids[3], *asc, *desc, *out;
	struct list_query q = LIST_QUERY_INIT;
	size_t lo = 0, mid, hi = 0;

	for (size_t i = 0; i < 3; i++) {
		out = role_create(codes[i], names[i], i == 1 ? "50%_off" : NULL, NULL, 0, NULL);
		ok();
		ids[i] = member(out, "id");
		free(out);
	}
	for (size_t i = 1; i < 3; i++) {
		if (strcmp(ids[i], ids[lo]) < 0)
			lo = i;
		if (strcmp(ids[i], ids[hi]) > 0)
			hi = i;
	}
	mid = 3 - lo - hi;
	asc = xasprintf("%s %s %s", codes[lo], codes[mid], codes[hi]);
	desc = xasprintf("%s %s %s", codes[hi], codes[mid], codes[lo]);
	q.sort = ROLE_SORT_NAME;
	q.desc = false;
	role_list_is(&q, asc, 3);
	q.desc = true;
	role_list_is(&q, desc, 3);
	/* paging: the same order, two and one */
	q.page_size = 2;
	q.page_num = 2;
	role_list_is(&q, codes[lo], 3);
	q.page_num = 3;
	role_list_is(&q, "", 3);
	/* search: % and _ are literal; case does not matter */
	q = (struct list_query)LIST_QUERY_INIT;
	q.search = "%_O";
	role_list_is(&q, "t2", 1);
	q.search = "x%";
	role_list_is(&q, "", 0);
	q.search = "T3";
	role_list_is(&q, "t3", 1);
	/* the code's order ignores case too, and created_at's default is
	 * newest first */
	q = (struct list_query)LIST_QUERY_INIT;
	q.sort = ROLE_SORT_CODE;
	q.desc = false;
	role_list_is(&q, "t1 t2 t3", 3);
	for (size_t i = 0; i < 3; i++)
		free(ids[i]);
	free(asc);
	free(desc);
}
END_TEST

/* ---- resources ---- */

START_TEST(test_resource_record)
{
	struct permission_input perms[] = {
		{ NULL, "Read", "read", { FIELD_SET, "see" } },
		{ NULL, "Write", "write", { FIELD_ABSENT, NULL } },
	};
	struct resource_input in = { "Orders", "orders", { FIELD_ABSENT, NULL }, true, 2, perms };
	char *out = NULL, *id, *p0, *p1;
	json_t *j;

	store_resource_create(cf.st, &event_origin_cli, cf.p.project_id, &in, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	id = xstrdup(json_string_value(json_object_get(j, "id")));
	p0 = xstrdup(json_string_value(json_object_get(json_array_get(json_object_get(j,
	             "permissions"), 0), "id")));
	p1 = xstrdup(json_string_value(json_object_get(json_array_get(json_object_get(j,
	             "permissions"), 1), "id")));
	json_decref(j);
	assert_shape(out, "{\"id\":\"ID\",\"name\":\"Orders\",\"code\":\"orders\",\"description\":null,"
	             "\"is_default\":false,\"permissions\":["
	             "{\"id\":\"ID2\",\"name\":\"Read\",\"code\":\"read\",\"description\":\"see\"},"
	             "{\"id\":\"ID3\",\"name\":\"Write\",\"code\":\"write\",\"description\":null}],"
	             "\"created_at\":T,\"updated_at\":T}", id, p0, p1);
	free(out);
	out = NULL;
	store_resource_create(cf.st, &event_origin_cli, cf.p.project_id, &in, &out, DONE);
	fails("resource_code_already_used", RESOURCE_CODE_TAKEN);
	free(out);
	/* a permission ID of another resource */
	perms[0].id = permission_id("roles:read");
	out = NULL;
	store_resource_update(cf.st, &event_origin_cli, cf.p.project_id, id, &in, &out, DONE);
	fails("invalid_params", RESOURCE_FOREIGN_PERMISSION);
	free(out);
	free((char *)perms[0].id);
	perms[0].id = NULL;
	out = NULL;
	store_resource_update(cf.st, &event_origin_cli, cf.p.project_id, "nope", &in, &out, DONE);
	fails("resource_not_found", store_resource_missing->sentence);
	free(out);
	store_resource_delete(cf.st, &event_origin_cli, cf.p.project_id, id, DONE);
	ok();
	out = NULL;
	store_resource_get(cf.st, cf.p.project_id, id, &out, DONE);
	fails("resource_not_found", store_resource_missing->sentence);
	free(out);
	free(id);
	free(p0);
	free(p1);
}
END_TEST

START_TEST(test_resource_defaults)
{
	struct list_query q = LIST_QUERY_INIT;
	struct resource_input in = { "R", "roles", { FIELD_ABSENT, NULL }, false, 0, NULL };
	struct page pg = { 0 };
	char *codes, *out = NULL, *id;
	json_t *list;

	q.is_default = 1;
	q.page_size = 2;
	store_resource_list(cf.st, cf.p.project_id, &q, &pg, DONE);
	ok();
	ck_assert_int_eq(pg.total, 4);
	list = json_loads(pg.data, 0, NULL);
	ck_assert_int_eq(json_array_size(list), 2);
	id = xstrdup(json_string_value(json_object_get(json_array_get(list, 0), "id")));
	json_decref(list);
	page_release(&pg);
	q.page_size = 10;
	store_resource_list(cf.st, cf.p.project_id, &q, &pg, DONE);
	ok();
	/* made in one instant: ties, in the order of their IDs */
	codes = page_codes(&pg, "id");
	ck_assert_int_eq(pg.total, 4);
	ck_assert_str_eq(codes, sorted_words(codes));
	free(codes);
	codes = page_codes(&pg, "code");
	ck_assert_str_eq(sorted_words(codes), "clients resources roles users");
	free(codes);
	page_release(&pg);
	store_resource_update(cf.st, &event_origin_cli, cf.p.project_id, id, &in, &out, DONE);
	fails("invalid_params", RESOURCE_DEFAULT_UPDATE);
	free(out);
	store_resource_delete(cf.st, &event_origin_cli, cf.p.project_id, id, DONE);
	fails("invalid_params", RESOURCE_DEFAULT_DELETE);
	q.is_default = 0;
	store_resource_list(cf.st, cf.p.project_id, &q, &pg, DONE);
	ok();
	ck_assert_str_eq(pg.data, "[]");
	ck_assert_int_eq(pg.total, 0);
	page_release(&pg);
	free(id);
}
END_TEST

/* ---- users ---- */

static struct user_fields user(const char *name, const char *email, const char *external)
{
	return (struct user_fields){
		.display_name = name,
		.email = { email ? FIELD_SET : FIELD_ABSENT, email },
		.external_user_id = { external ? FIELD_SET : FIELD_ABSENT, external },
		.is_active = -1,
	};
}

static char *user_create(const struct user_fields *f, const char *scope)
{
	char *out = NULL;

	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, f, scope, &out, DONE);
	return out;
}

START_TEST(test_user_record)
{
	struct user_fields f = user("Ann", "Ann@Example.com", "ext-1");
	char *out = user_create(&f, NULL), *id;

	f.password_hash = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo";
	ok();
	id = member(out, "id");
	ck_assert_ptr_null(strstr(out, "argon2"));
	assert_shape(out, "{\"id\":\"ID\",\"display_name\":\"Ann\",\"avatar_url\":null,"
	             "\"external_user_id\":\"ext-1\",\"email\":\"Ann@Example.com\","
	             "\"email_verified\":true,\"is_active\":true,\"role_id\":null,\"role_name\":null,"
	             "\"second_factors\":[],\"created_at\":T,\"updated_at\":T}", id);
	free(out);
	out = NULL;
	store_user_get_external(cf.st, cf.p.project_id, "ext-1", true, &out, DONE);
	ok();
	assert_shape(out, "{\"id\":\"ID\",\"display_name\":\"Ann\",\"avatar_url\":null,"
	             "\"external_user_id\":\"ext-1\",\"email\":\"Ann@Example.com\","
	             "\"email_verified\":true,\"is_active\":true,\"role_id\":null,\"role_name\":null,"
	             "\"second_factors\":[],\"created_at\":T,\"updated_at\":T,\"permissions\":[]}", id);
	free(out);
	free(id);
}
END_TEST

START_TEST(test_user_codes)
{
	struct user_fields a = user("A", "a@example.com", "x1"), b;
	char *out = user_create(&a, NULL), *id, *rc, *role;
	const char *perms[1];
	struct api_error want;

	ok();
	id = member(out, "id");
	free(out);
	b = user("B", "A@EXAMPLE.COM", "x2");
	free(user_create(&b, NULL));
	fails("user_email_already_used", store_user_email_used);
	b = user("B", "b@example.com", "x1");
	free(user_create(&b, NULL));
	fails("user_external_id_already_used", store_user_external_id_used);
	b = user("B", "b@example.com", "x2");
	b.role_id = (struct str_field){ FIELD_SET, "no-such-role" };
	free(user_create(&b, NULL));
	fails("role_not_found", store_user_role_missing);
	/* the order: role_not_found before the conflicts */
	b.external_user_id.value = "x1";
	store_user_check(cf.st, cf.p.project_id, NULL, &b, NULL, DONE);
	fails("role_not_found", store_user_role_missing);
	/* no escalation: a role that holds users:update, set by a scope
	 * without it */
	rc = permission_id("users:update");
	perms[0] = rc;
	out = role_create("admin", "Admin", NULL, perms, 1, NULL);
	ok();
	role = member(out, "id");
	free(out);
	b = user("B", "b@example.com", "x2");
	b.role_id = (struct str_field){ FIELD_SET, role };
	store_grant_refuse("role", "users:update", &want);
	free(user_create(&b, "users:create"));
	fails("insufficient_permission", want.description);
	out = user_create(&b, "users:create users:update");
	ok();
	free(out);
	/* email_locked: the email may not change */
	a.email.value = "new@example.com";
	a.email_locked = true;
	out = NULL;
	store_user_update(cf.st, &event_origin_cli, cf.p.project_id, id, &a, NULL, &out, DONE);
	fails("insufficient_permission", store_user_email_locked);
	free(out);
	out = NULL;
	store_user_update(cf.st, &event_origin_cli, cf.p.project_id, "nope", &a, NULL, &out, DONE);
	fails("user_not_found", store_user_missing->sentence);
	free(out);
	out = NULL;
	store_user_get_external(cf.st, cf.p.project_id, "nope", false, &out, DONE);
	fails("user_not_found", store_user_external_missing->sentence);
	free(out);
	store_user_delete(cf.st, &event_origin_cli, cf.p.project_id, id, NULL, DONE);
	ok();
	store_user_delete(cf.st, &event_origin_cli, cf.p.project_id, id, NULL, DONE);
	fails("user_not_found", store_user_missing->sentence);
	free(id);
	free(role);
	free(rc);
}
END_TEST

START_TEST(test_user_list)
{
	const char *names[] = { "bob", "Al", "cy", "Dee" };
	const char *mails[] = { "b@x.org", "a_1@x.org", NULL, "d%@x.org" };
	struct list_query q = LIST_QUERY_INIT;
	struct user_fields f;

	char *out, *id;

	for (size_t i = 0; i < N_ELEMS(names); i++) {
		f = user(names[i], mails[i], NULL);
		out = user_create(&f, NULL);
		ok();
		if (i == 2) {   /* a new user is active: cy is deactivated after */
			id = member(out, "id");
			free(out);
			f.is_active = 0;
			out = NULL;
			store_user_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out,
			                  DONE);
			ok();
			free(id);
		}
		free(out);
	}
	q.sort = USER_SORT_DISPLAY_NAME;
	q.desc = false;
	user_list_is(&q, "Al bob cy Dee", 4);
	q.page_size = 3;
	q.page_num = 2;
	user_list_is(&q, "Dee", 4);
	q = (struct list_query)LIST_QUERY_INIT;
	q.sort = USER_SORT_EMAIL;
	q.desc = false;
	q.is_active = 1;
	user_list_is(&q, "Al bob Dee", 3);
	q.search = "_";
	user_list_is(&q, "Al", 1);
	q.search = "%";
	user_list_is(&q, "Dee", 1);
	q.search = "BO";
	user_list_is(&q, "bob", 1);
	q.search = NULL;
	q.is_active = 0;
	user_list_is(&q, "cy", 1);
}
END_TEST

/* ---- clients ---- */

START_TEST(test_client_record)
{
	struct client_fields f = {
		.name = "App", .set_redirect_uris = true, .redirect_uris = "[\"https://a/cb\"]",
		.token_endpoint_auth_method = "client_secret_basic",
		.id_token_signed_response_alg = "ES256",
	};
	char *out = NULL, *id, hash[SECRET_HASH_LEN + 1];
	struct new_project cred = { 0 };
	struct client_auth ca;
	struct api_error want;
	bool reg = false;

	char *perm = permission_id("users:read");
	const char *perms[] = { perm };
	struct jbody_id_list ids = { true, 1, perms };
	static const char expected[] =
		"{\"id\":\"ID\",\"name\":\"App\",\"description\":\"d\",\"is_active\":true,"
		"\"permission_ids\":[\"ID2\"],\"redirect_uris\":[\"https://a/cb\"],"
		"\"post_logout_redirect_uris\":[],\"backchannel_logout_uri\":\"https://a/bc\","
		"\"token_endpoint_auth_method\":\"client_secret_basic\","
		"\"id_token_signed_response_alg\":\"ES256\",\"forward_auth_urls\":[],"
		"\"device_flow\":false,\"allowed_role_ids\":[],\"consent_required\":false,"
		"\"created_at\":T,\"updated_at\":T}";

	f.set_description = true;
	f.description = "d";
	f.set_permissions = true;
	f.permission_ids = &ids;
	f.set_backchannel_logout_uri = true;
	f.backchannel_logout_uri = "https://a/bc";
	store_admin_credentials(&cred, hash);
	store_client_create(cf.st, &event_origin_cli, cf.p.project_id, &f, hash, NULL, &out, DONE);
	ok();
	id = member(out, "id");
	assert_shape(out, expected, id, perm);
	free(out);
	out = NULL;
	store_client_get(cf.st, cf.p.project_id, id, &out, DONE);
	ok();
	assert_shape(out, expected, id, perm);
	free(out);
	/* no escalation: a client holding users:read, to a scope without it */
	store_grant_refuse("permission", "users:read", &want);
	out = NULL;
	store_client_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, "clients:update",
	                    &out, DONE);
	fails("insufficient_permission", want.description);
	free(out);
	f.set_permissions = false;
	store_grant_refuse("client", "users:read", &want);
	out = NULL;
	store_client_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, "clients:update",
	                    &out, DONE);
	fails("insufficient_permission", want.description);
	free(out);
	store_client_delete(cf.st, &event_origin_cli, cf.p.project_id, id, "clients:read", DONE);
	fails("insufficient_permission", want.description);
	free(perm);
	store_client_redirect_registered(cf.st, id, "https://a/cb", &reg, DONE);
	ok();
	ck_assert(reg);
	store_client_redirect_registered(cf.st, id, "https://a/cb2", &reg, DONE);
	ok();
	ck_assert(!reg);
	store_client_authenticate(cf.st, cf.p.client_id, cf.p.client_secret, &ca, DONE);
	ok();
	ck_assert(ca.found && ca.is_active && ca.project_active);
	ck_assert_str_eq(ca.project_id, cf.p.project_id);
	store_client_authenticate(cf.st, cf.p.client_id, "wrong", &ca, DONE);
	fails("invalid_client_credentials", NULL);
	out = NULL;
	store_client_get(cf.st, cf.p.project_id, "nope", &out, DONE);
	fails("client_not_found", store_client_missing->sentence);
	free(out);
	free(id);
	store_new_project_release(&cred);
}
END_TEST

/* Clients by name (ignoring case) and by the is_active filter. */
START_TEST(test_client_list)
{
	const char *names[] = { "b", "A", "c" };
	struct client_fields f = { .redirect_uris = "[]" };
	char hash[SECRET_HASH_LEN + 1], *out, *id = NULL;
	struct list_query q = LIST_QUERY_INIT;
	struct new_project cred = { 0 };

	store_admin_credentials(&cred, hash);
	for (size_t i = 0; i < N_ELEMS(names); i++) {
		f.name = names[i];
		out = NULL;
		store_client_create(cf.st, &event_origin_cli, cf.p.project_id, &f, hash, NULL, &out,
		                    DONE);
		ok();
		free(id);
		id = member(out, "id");
		free(out);
	}
	f.is_active = false;   /* c, the last */
	out = NULL;
	store_client_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out, DONE);
	ok();
	free(out);
	q.sort = CLIENT_SORT_NAME;
	q.desc = false;
	list_is(store_client_list, "name", &q, "A admin b c", 4);
	q.desc = true;
	q.page_size = 3;
	list_is(store_client_list, "name", &q, "c b admin", 4);
	q.is_active = 0;
	list_is(store_client_list, "name", &q, "c", 1);
	q.is_active = 1;
	q.search = "ADM";
	list_is(store_client_list, "name", &q, "admin", 1);
	free(id);
	store_new_project_release(&cred);
}
END_TEST

/* A resource's search reaches its permissions' text. */
START_TEST(test_resource_search)
{
	struct permission_input perm = { NULL, "Frob", "frobnicate", { FIELD_ABSENT, NULL } };
	struct resource_input in = { "Widgets", "widgets", { FIELD_SET, "w" }, true, 1, &perm };
	struct list_query q = LIST_QUERY_INIT;
	char *out = NULL;

	store_resource_create(cf.st, &event_origin_cli, cf.p.project_id, &in, &out, DONE);
	ok();
	free(out);
	q.search = "NICAT";
	list_is(store_resource_list, "code", &q, "widgets", 1);
	q.search = "users";
	list_is(store_resource_list, "code", &q, "users", 1);
	q.search = NULL;
	q.is_default = 0;
	list_is(store_resource_list, "code", &q, "widgets", 1);
}
END_TEST

static void event_seen(void *arg, const char *record)
{
	char **all = arg, *t = xasprintf("%s%s\n", *all, record);

	free(*all);
	*all = t;
}

/* The audit trail's records of a project's writes, byte for byte, in
 * their order; a refused write records nothing; the purge by age. */
START_TEST(test_events)
{
	struct event_filter ef = { cf.p.project_id, 0, NULL };
	struct role_fields f = { "r2", "R2", { FIELD_ABSENT, NULL }, NULL, false, false };
	char *out = role_create("r", "R", NULL, NULL, 0, NULL), *id, *all = xstrdup("");

	ok();
	id = member(out, "id");
	free(out);
	free(role_create("r", "Again", NULL, NULL, 0, NULL));   /* refused: no event */
	fails("role_code_already_used", ROLE_CODE_TAKEN);
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, NULL, &out, DONE);
	ok();
	free(out);
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, id, NULL, DONE);
	ok();
	ck_assert_int_eq(store_event_list(cf.st, &ef, event_seen, &all, &cf.err), 0);
	assert_shape(all,
	             "{\"id\":N,\"time\":T,\"project_id\":\"ID\",\"actor\":\"cli\",\"action\":"
	             "\"role.create\",\"target\":\"ID2\",\"address\":null,\"outcome\":\"success\"}\n"
	             "{\"id\":N,\"time\":T,\"project_id\":\"ID\",\"actor\":\"cli\",\"action\":"
	             "\"role.update\",\"target\":\"ID2\",\"address\":null,\"outcome\":\"success\"}\n"
	             "{\"id\":N,\"time\":T,\"project_id\":\"ID\",\"actor\":\"cli\",\"action\":"
	             "\"role.delete\",\"target\":\"ID2\",\"address\":null,\"outcome\":\"success\"}\n",
	             cf.p.project_id, id);
	free(all);
	/* the purge takes what is older than its bound, and only that */
	ck_assert_int_eq(store_event_purge(cf.st, 1000, now_ms() - HOUR_MS, &cf.err), 0);
	ck_assert_int_ge(store_event_purge(cf.st, 1000, now_ms() + MINUTE_MS, &cf.err), 3);
	all = xstrdup("");
	ck_assert_int_eq(store_event_list(cf.st, &ef, event_seen, &all, &cf.err), 0);
	ck_assert_str_eq(all, "");
	free(all);
	free(id);
}
END_TEST

/* The ID of the record out that a write has just answered (ok); out is
 * freed. A new string. */
static char *created_id(char *out)
{
	char *id;

	ok();
	id = member(out, "id");
	free(out);
	return id;
}

/* The page of project's events that f and q let through is the records
 * whose key reads words (in that order), of total matches. */
static void event_page_is(const char *project_id, const struct event_page_filter *f,
                          const struct list_query *q, const char *key, const char *words,
                          long long total)
{
	struct page pg = { 0 };

	store_event_page(cf.st, project_id, f, q, &pg, DONE);
	page_is(&pg, key, words, total);
}

/* issue29 events API: a project's events a page at a time, newest first,
 * through each filter (and its index), by time, paged; the record as the
 * CLI's list writes it, to the byte. */
START_TEST(test_event_page)
{
	static const struct event_origin x = { "x-client", "192.0.2.1" };
	struct role_fields fb = { "b", "B", { FIELD_ABSENT, NULL }, NULL, false, false };
	struct role_fields fa = { "a", "A2", { FIELD_ABSENT, NULL }, NULL, false, false };
	struct event_page_filter f = EVENT_PAGE_FILTER_INIT;
	struct list_query q = LIST_QUERY_INIT;
	struct page pg = { 0 };
	char *out = NULL, *a = created_id(role_create("a", "A", NULL, NULL, 0, NULL)), *b, *targets;

	store_role_create(cf.st, &x, cf.p.project_id, &fb, NULL, &out, DONE);
	b = created_id(out);
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, a, &fa, NULL, &out, DONE);
	free(created_id(out));
	store_role_delete(cf.st, &x, cf.p.project_id, b, NULL, DONE);
	ok();

	event_page_is(cf.p.project_id, &f, &q, "action",
	              "role.delete role.update role.create role.create", 4);
	targets = xasprintf("%s %s %s %s", b, a, b, a);
	event_page_is(cf.p.project_id, &f, &q, "target", targets, 4);
	free(targets);
	q.desc = false;
	event_page_is(cf.p.project_id, &f, &q, "actor", "cli x-client cli x-client", 4);
	q.page_size = 1;
	store_event_page(cf.st, cf.p.project_id, &f, &q, &pg, DONE);
	ok();
	assert_shape(pg.data,
	             "[{\"id\":N,\"time\":T,\"project_id\":\"ID\",\"actor\":\"cli\",\"action\":"
	             "\"role.create\",\"target\":\"ID2\",\"address\":null,\"outcome\":\"success\"}]",
	             cf.p.project_id, a);
	page_release(&pg);
	/* paging, newest first */
	q = (struct list_query)LIST_QUERY_INIT;
	q.page_size = 3;
	q.page_num = 2;
	event_page_is(cf.p.project_id, &f, &q, "actor", "cli", 4);
	/* the page alone (the console's recent events): no count */
	q = (struct list_query)LIST_QUERY_INIT;
	q.page_size = 2;
	q.no_total = true;
	event_page_is(cf.p.project_id, &f, &q, "action", "role.delete role.update", 0);
	q = (struct list_query)LIST_QUERY_INIT;
	/* each filter, alone and with others */
	f.action = EVENT_ROLE_CREATE;
	event_page_is(cf.p.project_id, &f, &q, "actor", "x-client cli", 2);
	f.action = NULL;
	f.actor = "x-client";
	event_page_is(cf.p.project_id, &f, &q, "action", "role.delete role.create", 2);
	event_page_is(cf.p.project_id, &f, &q, "address", "192.0.2.1 192.0.2.1", 2);
	f.target = a;
	event_page_is(cf.p.project_id, &f, &q, "action", "", 0);
	f.actor = NULL;
	event_page_is(cf.p.project_id, &f, &q, "action", "role.update role.create", 2);
	f.action = EVENT_ROLE_UPDATE;
	event_page_is(cf.p.project_id, &f, &q, "action", "role.update", 1);
	f = (struct event_page_filter)EVENT_PAGE_FILTER_INIT;
	f.outcome = EVENT_SUCCESS;
	event_page_is(cf.p.project_id, &f, &q, "action",
	              "role.delete role.update role.create role.create", 4);
	f.outcome = EVENT_ACCESS_DENIED;
	event_page_is(cf.p.project_id, &f, &q, "action", "", 0);
	/* since is at or after, until before */
	f = (struct event_page_filter)EVENT_PAGE_FILTER_INIT;
	f.since = now_ms() + HOUR_MS;
	event_page_is(cf.p.project_id, &f, &q, "action", "", 0);
	f.since = now_ms() - HOUR_MS;
	f.until = now_ms() + HOUR_MS;
	event_page_is(cf.p.project_id, &f, &q, "action",
	              "role.delete role.update role.create role.create", 4);
	f.until = now_ms() - HOUR_MS;
	event_page_is(cf.p.project_id, &f, &q, "action", "", 0);
	/* only the project asked for */
	f = (struct event_page_filter)EVENT_PAGE_FILTER_INIT;
	event_page_is("nope", &f, &q, "action", "", 0);
	free(a);
	free(b);
}
END_TEST

/* The update f of the user id answers an inactive user V without avatar
 * or external ID, of that email and email_verified. */
static void user_update_is(const char *id, const struct user_fields *f, const char *email,
                           const char *verified)
{
	char *out = NULL, *want;

	store_user_update(cf.st, &event_origin_cli, cf.p.project_id, id, f, NULL, &out, DONE);
	ok();
	want = xasprintf("{\"id\":\"ID\",\"display_name\":\"V\",\"avatar_url\":null,"
	                 "\"external_user_id\":null,\"email\":\"%s\",\"email_verified\":%s,"
	                 "\"is_active\":false,\"role_id\":null,\"role_name\":null,"
	                 "\"second_factors\":[],\"created_at\":T,\"updated_at\":T}", email, verified);
	assert_shape(out, want, id);
	free(want);
	free(out);
}

/* An update keeps what is absent and clears what is cleared (docs/api.md
 * §"Conventions"): a role's description and permission set, a user's
 * optional fields; a changed email set by the user is not verified. */
START_TEST(test_update_keep_clear)
{
	char *rd = permission_id("roles:read"), *out, *id, *want;
	const char *perms[] = { rd };
	struct jbody_id_list absent = ID_LIST_INIT, empty = { true, 0, NULL };
	struct role_fields rf = { "k", "K2", { FIELD_ABSENT, NULL }, &absent, false, false };
	struct user_fields uf = { .display_name = "V", .email = { FIELD_SET, "v@x.org" },
	                          .avatar_url = { FIELD_SET, "https://a/v.png" }, .is_active = -1 };

	out = role_create("k", "K", "kept", perms, 1, NULL);
	ok();
	id = member(out, "id");
	free(out);
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &rf, NULL, &out, DONE);
	ok();
	want = xasprintf("{\"id\":\"ID\",\"code\":\"k\",\"name\":\"K2\",\"description\":\"kept\","
	                 "\"permission_ids\":[\"%s\"],\"requires_second_factor\":false,\"created_at\":T,\"updated_at\":T}", rd);
	assert_shape(out, want, id);
	free(want);
	free(out);
	rf.description.state = FIELD_CLEAR;
	rf.permission_ids = &empty;
	out = NULL;
	store_role_update(cf.st, &event_origin_cli, cf.p.project_id, id, &rf, NULL, &out, DONE);
	ok();
	assert_shape(out, "{\"id\":\"ID\",\"code\":\"k\",\"name\":\"K2\",\"description\":null,"
	             "\"permission_ids\":[],\"requires_second_factor\":false,\"created_at\":T,\"updated_at\":T}", id);
	free(out);
	free(id);
	out = NULL;
	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, &uf, NULL, &out, DONE);
	ok();
	id = member(out, "id");
	free(out);
	uf.email.state = FIELD_ABSENT;
	uf.avatar_url = (struct str_field){ FIELD_CLEAR, NULL };
	uf.is_active = 0;
	user_update_is(id, &uf, "v@x.org", "true");
	uf.email = (struct str_field){ FIELD_SET, "w@x.org" };
	uf.email_by_user = true;
	uf.is_active = -1;
	user_update_is(id, &uf, "w@x.org", "false");
	free(id);
	free(rd);
}
END_TEST

/* A resource's delete takes its permissions out of every role (and so
 * out of its users' scope); a role's delete leaves its users with none. */
START_TEST(test_cascades)
{
	struct permission_input perm = { NULL, "Read", "read", { FIELD_ABSENT, NULL } };
	struct resource_input in = { "Orders", "orders", { FIELD_ABSENT, NULL }, true, 1, &perm };
	char *out = NULL, *res, *pid, *role, *u, *scope = NULL;
	const char *perms[2];
	struct user_fields f = { .display_name = "C", .is_active = -1 };
	json_t *j;

	store_resource_create(cf.st, &event_origin_cli, cf.p.project_id, &in, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	res = xstrdup(json_string_value(json_object_get(j, "id")));
	pid = xstrdup(json_string_value(json_object_get(json_array_get(json_object_get(j,
	              "permissions"), 0), "id")));
	json_decref(j);
	free(out);
	perms[0] = pid;
	perms[1] = permission_id("users:read");
	out = role_create("c", "C", NULL, perms, 2, NULL);
	ok();
	role = member(out, "id");
	free(out);
	f.role_id = (struct str_field){ FIELD_SET, role };
	out = NULL;
	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	u = member(out, "id");
	free(out);
	store_user_scope(cf.st, u, &scope, DONE);
	ok();
	ck_assert_str_eq(scope, "orders:read users:read");
	free(scope);
	store_resource_delete(cf.st, &event_origin_cli, cf.p.project_id, res, DONE);
	ok();
	scope = NULL;
	store_user_scope(cf.st, u, &scope, DONE);
	ok();
	ck_assert_str_eq(scope, "users:read");
	free(scope);
	out = NULL;
	store_role_get(cf.st, cf.p.project_id, role, &out, DONE);
	ok();
	ck_assert_ptr_null(strstr(out, pid));
	free(out);
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, role, NULL, DONE);
	ok();
	out = NULL;
	store_user_get(cf.st, cf.p.project_id, u, &out, DONE);
	ok();
	ck_assert_msg(strstr(out, "\"role_id\":null,\"role_name\":null") != NULL, "%s", out);
	free(out);
	scope = NULL;
	store_user_scope(cf.st, u, &scope, DONE);
	ok();
	ck_assert_str_eq(scope, "");
	free(scope);
	free((char *)perms[1]);
	free(res);
	free(pid);
	free(role);
	free(u);
}
END_TEST

/* ---- signing keys ---- */

/* A key row of kid (a hash of name, as long as a kid is) for ES256, made
 * age_ms ago; its sealed key is bytes the store keeps as they are. */
static struct key_row key_new(const char *name, int64_t age_ms)
{
	static unsigned char sealed[] = "sealed\0bytes";
	struct key_row k = {
		.alg = JWT_ES256, .created_at = now_ms() - age_ms, .activates_at = now_ms() - age_ms,
		.publish_until = KEY_NO_BOUND, .sealed = sealed, .sealed_len = sizeof sealed,
	};

	crypto_hash_secret(name, strlen(name), k.kid);
	return k;
}

/* Keys are the store's, not a project's: this is the one case that adds
 * any. Added once per alg when asked; listed oldest first with their
 * sealed bytes; the last published key of an alg is never retired. */
START_TEST(test_keys)
{
	struct key_row rows[3] = { key_new("k1", 2000), key_new("k2", 1000), key_new("k3", 0) };
	struct key_rows all = { 0 }, pub = { 0 };
	bool changed = false;

	ck_assert_int_eq(store_keys_add(cf.st, rows, 2, false, HOUR_MS, &cf.err), 2);
	ck_assert_int_eq(store_keys_add(cf.st, rows + 2, 1, true, HOUR_MS, &cf.err), 0);
	ck_assert_int_eq(store_keys_list(cf.st, &all, &cf.err), 0);
	ck_assert_uint_eq(all.count, 2);
	ck_assert_str_eq(all.rows[0].kid, rows[0].kid);
	ck_assert_str_eq(all.rows[1].kid, rows[1].kid);
	ck_assert_int_eq(all.rows[1].alg, JWT_ES256);
	ck_assert_int_eq(all.rows[1].activates_at, rows[1].activates_at);
	ck_assert_uint_eq(all.rows[1].sealed_len, rows[1].sealed_len);
	ck_assert(!memcmp(all.rows[1].sealed, rows[1].sealed, rows[1].sealed_len));
	store_keys_changed(cf.st, -1, now_ms(), &pub, &changed, DONE);
	ok();
	ck_assert(changed);
	ck_assert_uint_eq(pub.count, 2);
	store_keys_changed(cf.st, pub.version, now_ms(), &pub, &changed, DONE);
	ok();
	ck_assert(!changed);
	ck_assert_int_eq(store_key_retire(cf.st, rows[0].kid, now_ms(), HOUR_MS, &cf.err), 1);
	ck_assert_int_eq(store_key_retire(cf.st, rows[0].kid, now_ms(), HOUR_MS, &cf.err), 1);
	ck_assert_int_eq(store_key_retire(cf.st, rows[2].kid, now_ms(), HOUR_MS, &cf.err), 0);
	ck_assert_int_eq(store_key_retire(cf.st, rows[1].kid, now_ms(), HOUR_MS, &cf.err), -1);
	ck_assert_str_eq(cf.err.code, "invalid_params");
	store_keys_changed(cf.st, pub.version, now_ms(), &pub, &changed, DONE);
	ok();
	ck_assert(changed);
	ck_assert_uint_eq(pub.count, 1);
	ck_assert_str_eq(pub.rows[0].kid, rows[1].kid);
	store_keys_rows_release(&pub);
	store_keys_rows_release(&all);
}
END_TEST

/* issue30.6: recovery codes: a new set voids the old, a code is spent once,
 * the codes go with the user's last confirmed factor (both backends' trigger). */
START_TEST(test_recovery_codes)
{
	struct user_fields f = user("Rc", "rc@example.com", "ext-rc");
	char *out = user_create(&f, NULL), *id;
	long long n = -1;
	bool won = false, done = false;

	ok();
	id = member(out, "id");
	store_recovery_set(cf.st, id, "h1 h2 h3", NULL, DONE);
	ok();
	store_recovery_set(cf.st, id, "h4 h5", NULL, DONE);
	ok();
	store_recovery_count(cf.st, id, &n, DONE);
	ok();
	ck_assert_int_eq(n, 2);
	store_recovery_use(cf.st, id, "h1", 2, NULL, &won, DONE);
	ok();
	ck_assert(!won);
	store_recovery_use(cf.st, id, "h5", 2, NULL, &won, DONE);
	ok();
	ck_assert(won);
	store_recovery_use(cf.st, id, "h5", 1, NULL, &won, DONE);
	ok();
	ck_assert(!won);
	/* h4 with a first step that saw two left: h5 spent that first step */
	store_recovery_use(cf.st, id, "h4", 2, NULL, &won, DONE);
	ok();
	ck_assert_msg(!won, "issue30.6: a second code used with one first step");
	store_totp_begin(cf.st, id, "sealed", &done, DONE);
	ok();
	store_totp_use(cf.st, id, 7, true, NULL, &won, DONE);
	ok();
	ck_assert(won);
	store_recovery_count(cf.st, id, &n, DONE);
	ok();
	ck_assert_int_eq(n, 1);
	store_totp_remove(cf.st, id, NULL, &done, DONE);
	ok();
	store_recovery_count(cf.st, id, &n, DONE);
	ok();
	ck_assert_int_eq(n, 0);
	free(out);
	free(id);
}
END_TEST

/* issue30.1: a user's live sessions, newest first; an ended one is not
 * listed, nor another user's. */
START_TEST(test_sessions_of_user)
{
	struct user_fields fa = user("Sa", "sa@example.com", "ext-sa");
	struct user_fields fb = user("Sb", "sb@example.com", "ext-sb");
	char *oa = user_create(&fa, NULL), *ob = user_create(&fb, NULL), *a, *b, *sid = NULL;
	const char *ids[] = { "s-old", "s-new", "s-other" }, *hashes[] = { "ha", "hb", "hc" };
	struct session_list l = { 0 };
	bool ended = false;

	a = member(oa, "id");
	b = member(ob, "id");
	for (size_t i = 0; i < 3; i++) {
		struct new_session ns = { .id = ids[i], .secret_hash = hashes[i],
			.project_id = cf.p.project_id, .user_id = i == 2 ? b : a,
			.now = now_ms() + (int64_t)i, .expires_at = now_ms() + 3600000, .amr = "pwd" };
		store_session_start(cf.st, &ns, &sid, DONE);
		ok();
		free(sid);
		sid = NULL;
	}
	store_session_list_user(cf.st, cf.p.project_id, a, now_ms(), &l, DONE);
	ok();
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.items[0].id, "s-new");
	ck_assert_str_eq(l.items[1].id, "s-old");
	ck_assert_str_eq(l.items[0].amr, "pwd");
	session_list_release(&l);
	store_session_end(cf.st, "s-other", cf.p.project_id, a, NULL, &ended, DONE);
	ok();
	ck_assert(!ended);   /* another user's */
	store_session_end(cf.st, "s-new", cf.p.project_id, a, NULL, &ended, DONE);
	ok();
	ck_assert(ended);
	store_session_list_user(cf.st, cf.p.project_id, a, now_ms(), &l, DONE);
	ok();
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.items[0].id, "s-old");
	session_list_release(&l);
	free(oa);
	free(ob);
	free(a);
	free(b);
}
END_TEST

static void add_cases(TCase *tc)
{
	tcase_add_test(tc, test_project_state);
	tcase_add_test(tc, test_role_record);
	tcase_add_test(tc, test_role_second_factor);
	tcase_add_test(tc, test_role_codes);
	tcase_add_test(tc, test_role_list);
	tcase_add_test(tc, test_resource_record);
	tcase_add_test(tc, test_resource_defaults);
	tcase_add_test(tc, test_user_record);
	tcase_add_test(tc, test_user_codes);
	tcase_add_test(tc, test_user_list);
	tcase_add_test(tc, test_client_record);
	tcase_add_test(tc, test_client_list);
	tcase_add_test(tc, test_resource_search);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_event_page);
	tcase_add_test(tc, test_update_keep_clear);
	tcase_add_test(tc, test_cascades);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_recovery_codes);
	tcase_add_test(tc, test_sessions_of_user);
}

int main(void)
{
	return conform_run(conform_suite("store_conform", add_cases));
}
