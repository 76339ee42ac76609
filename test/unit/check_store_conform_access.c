/*
 * The store's contract for access rules (issue 31, docs/signin.md
 * §"Access rules"), on both backends (store_conform.h runs every case once
 * on SQLite and once on PostgreSQL): a client's allowed_role_ids in its
 * record, the role IDs a write takes (the project's, or one the client
 * lists already), who may change it, what a sign-in reads of it.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_conform.h"
#include "access_rules.h"
#include "jbody.h"
#include "store_access.h"
#include "store_clients.h"
#include "store_roles.h"
#include "store_users.h"

/* The "id" of a record (caller frees); frees the record. */
static char *id_of(char *record)
{
	json_t *j = json_loads(record, 0, NULL);
	char *id;

	ck_assert_ptr_nonnull(j);
	id = xstrdup(json_string_value(json_object_get(j, "id")));
	json_decref(j);
	free(record);
	return id;
}

static char *role_new(const char *code)
{
	struct jbody_id_list none = { true, 0, NULL };
	struct role_fields f = { code, code, { FIELD_ABSENT, NULL }, &none };
	char *out = NULL;

	store_role_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	return id_of(out);
}

static char *user_new(const char *name, const char *role_id)
{
	struct user_fields f = { .display_name = name, .is_active = -1 };
	char *out = NULL;

	if (role_id)
		f.role_id = (struct str_field){ FIELD_SET, role_id };
	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	return id_of(out);
}

/* A client whose allowed_role_ids is list (NULL: not given), as scope. */
static char *client_new(const char *list, const char *scope, char **record)
{
	struct client_fields f = { .name = "App", .set_allowed_role_ids = list != NULL,
	                           .allowed_role_ids = list };
	char *out = NULL;

	store_client_create(cf.st, &event_origin_cli, cf.p.project_id, &f, "hash", scope, &out,
	                    DONE);
	if (record)
		*record = out;
	return out;
}

static void client_rule(const char *id, const char *list, const char *scope)
{
	struct client_fields f = { .name = "App", .is_active = true, .set_allowed_role_ids = true,
	                           .allowed_role_ids = list };
	char *out = NULL;

	store_client_update(cf.st, &event_origin_cli, cf.p.project_id, id, &f, scope, &out, DONE);
	conform_wait();
	free(out);
}

/* The client's allowed_role_ids, as its record says. */
static char *rule_of(const char *id)
{
	char *out = NULL, *s;
	json_t *j;

	store_client_get(cf.st, cf.p.project_id, id, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	s = json_dumps(json_object_get(j, "allowed_role_ids"), JSON_COMPACT);
	json_decref(j);
	free(out);
	return s;
}

static char *list_of(const char *a, const char *b)
{
	return b ? xasprintf("[\"%s\",\"%s\"]", a, b) : xasprintf("[\"%s\"]", a);
}

START_TEST(test_rule_record)
{
	char *role = role_new("op"), *list = list_of(role, NULL), *id, *got;

	id = id_of(client_new(NULL, NULL, NULL));
	ok();
	got = rule_of(id);
	ck_assert_str_eq(got, "[]");
	free(got);
	client_rule(id, list, NULL);
	ck_assert(!cf.r.failed);
	got = rule_of(id);
	ck_assert_str_eq(got, list);
	free(got);
	free(id);
	free(list);
	free(role);
}
END_TEST

/* issue31.1: only the project's roles; a write that names another is
 * invalid_params, with one sentence on both backends, and writes nothing. */
START_TEST(test_rule_roles_checked)
{
	char *role = role_new("op"), *bad = list_of(role, "no-such-role"), *id, *got;

	client_new(bad, NULL, NULL);
	fails("invalid_params", CLIENT_ROLES_UNKNOWN);
	id = id_of(client_new(NULL, NULL, NULL));
	ok();
	client_rule(id, bad, NULL);
	fails("invalid_params", CLIENT_ROLES_UNKNOWN);
	got = rule_of(id);
	ck_assert_str_eq(got, "[]");
	free(got);
	free(id);
	free(bad);
	free(role);
}
END_TEST

/* issue31.1: a deleted role's ID stays in the list; the client may carry it
 * back, no other client may take it up. */
START_TEST(test_rule_deleted_role)
{
	char *role = role_new("gone"), *list = list_of(role, NULL), *id, *other, *got;

	id = id_of(client_new(list, NULL, NULL));
	ok();
	store_role_delete(cf.st, &event_origin_cli, cf.p.project_id, role, NULL, DONE);
	ok();
	got = rule_of(id);
	ck_assert_str_eq(got, list);
	free(got);
	client_rule(id, list, NULL);
	ck_assert_msg(!cf.r.failed, "%s", cf.r.err.description);
	other = id_of(client_new(NULL, NULL, NULL));
	ok();
	client_rule(other, list, NULL);
	fails("invalid_params", CLIENT_ROLES_UNKNOWN);
	free(other);
	free(id);
	free(list);
	free(role);
}
END_TEST

/* issue31.1: setting or changing the rule needs the twelve permissions,
 * as where tokens go does; the same list carried back does not. */
START_TEST(test_rule_needs_twelve)
{
	const char *scope = "clients:create clients:read clients:update";
	char *role = role_new("op"), *list = list_of(role, NULL), *id, *got;

	client_new(list, scope, NULL);
	fails("insufficient_permission", NULL);
	id = id_of(client_new(NULL, scope, NULL));
	ok();
	client_rule(id, list, scope);
	fails("insufficient_permission", NULL);
	got = rule_of(id);
	ck_assert_str_eq(got, "[]");
	free(got);
	client_rule(id, "[]", scope);
	ck_assert_msg(!cf.r.failed, "%s", cf.r.err.description);
	free(id);
	free(list);
	free(role);
}
END_TEST

/* What a sign-in reads, and the rule's verdict on it. */
START_TEST(test_access_facts)
{
	char *role = role_new("op"), *other = role_new("other"), *list = list_of(role, NULL);
	char *ruled = id_of(client_new(list, NULL, NULL)), *open, *in, *out_user, *bare;
	struct store_access_facts f;

	open = id_of(client_new(NULL, NULL, NULL));
	in = user_new("in", role);
	out_user = user_new("out", other);
	bare = user_new("bare", NULL);
	store_access_facts(cf.st, ruled, in, &f, DONE);
	ok();
	ck_assert_str_eq(f.allowed_role_ids, list);
	ck_assert_str_eq(f.role_id, role);
	ck_assert(access_rule_allows(f.allowed_role_ids, f.role_id));
	store_access_facts_release(&f);
	store_access_facts(cf.st, ruled, out_user, &f, DONE);
	ok();
	ck_assert(!access_rule_allows(f.allowed_role_ids, f.role_id));
	store_access_facts_release(&f);
	store_access_facts(cf.st, ruled, bare, &f, DONE);
	ok();
	ck_assert_ptr_null(f.role_id);
	ck_assert(!access_rule_allows(f.allowed_role_ids, f.role_id));
	store_access_facts_release(&f);
	store_access_facts(cf.st, open, bare, &f, DONE);
	ok();
	ck_assert(access_rule_allows(f.allowed_role_ids, f.role_id));
	store_access_facts_release(&f);
	store_access_facts(cf.st, "no-such-client", in, &f, DONE);
	ok();
	ck_assert_ptr_null(f.allowed_role_ids);
	ck_assert(!access_rule_allows(f.allowed_role_ids, f.role_id));
	store_access_facts_release(&f);
	free(bare);
	free(out_user);
	free(in);
	free(open);
	free(ruled);
	free(list);
	free(other);
	free(role);
}
END_TEST

static void add_cases(TCase *tc)
{
	tcase_add_test(tc, test_rule_record);
	tcase_add_test(tc, test_rule_roles_checked);
	tcase_add_test(tc, test_rule_deleted_role);
	tcase_add_test(tc, test_rule_needs_twelve);
	tcase_add_test(tc, test_access_facts);
}

int main(void)
{
	return conform_run(conform_suite("store_conform_access", add_cases));
}
