/*
 * The store's contract for access rules (issue 31, docs/signin.md
 * §"Access rules"), on both backends (store_conform.h runs every case once
 * on SQLite and once on PostgreSQL): a client's allowed_role_ids in its
 * record, the role IDs a write takes (the project's, or one the client
 * lists already), who may change it, what a sign-in reads of it; and
 * consents (docs/signin.md §"Consent"): remembered, widened, listed and
 * revoked, a revocation ending that client's refresh tokens of the user
 * and no other's.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_conform.h"
#include "access_rules.h"
#include "jbody.h"
#include "store_access.h"
#include "store_clients.h"
#include "store_events.h"
#include "store_roles.h"
#include "store_tokens.h"
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
	struct role_fields f = { code, code, { FIELD_ABSENT, NULL }, &none, false, false };
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


/* ---- consents ---- */

/* A refresh token hash (access token jti) of the user at the client,
 * issued by redeeming a code of a family of prefix. */
static void refresh_new(const char *prefix, const char *user_id, const char *client_id)
{
	char code[32], fam[32], hash[32], jti[32];
	bool won = false;

	snprintf(code, sizeof code, "%s-c", prefix);
	snprintf(fam, sizeof fam, "%s-f", prefix);
	snprintf(hash, sizeof hash, "%s-r", prefix);
	snprintf(jti, sizeof jti, "%s-j", prefix);
	store_code_insert(cf.st, &(struct new_code){
		.hash = code, .family_id = fam, .project_id = cf.p.project_id,
		.client_id = client_id, .user_id = user_id, .redirect_uri = "https://a/cb",
		.code_challenge = "chal", .expires_at = now_ms() + 10 * MINUTE_MS,
		.scope = "openid", .auth_time = 1700000000000LL }, DONE);
	ok();
	store_code_redeem(cf.st, code, &(struct new_refresh){
		.hash = hash, .family_id = fam, .project_id = cf.p.project_id,
		.client_id = client_id, .user_id = user_id, .access_jti = jti,
		.access_exp_s = time(NULL) + 600, .expires_at = now_ms() + HOUR_MS,
		.scope = "openid", .auth_time = 1700000000000LL }, &won, DONE);
	ok();
	ck_assert(won);
}

/* Whether the refresh token of prefix is revoked, and its access token. */
static bool refresh_revoked(const char *prefix)
{
	char hash[32], jti[32];
	struct store_token_row g = { 0 };
	struct store_stamp at;
	bool r = false, both;

	snprintf(hash, sizeof hash, "%s-r", prefix);
	snprintf(jti, sizeof jti, "%s-j", prefix);
	store_refresh_get(cf.st, hash, &g, DONE);
	ok();
	ck_assert(g.found);
	store_token_is_revoked(cf.st, jti, &r, &at, DONE);
	ok();
	ck_assert_msg(g.revoked == r, "issue31.2: %s: refresh revoked %d, access %d", prefix,
	              g.revoked, r);
	both = g.revoked;
	store_token_row_release(&g);
	return both;
}

static char *consented(const char *client_id, const char *user_id)
{
	struct store_access_facts f;
	char *out;

	store_access_facts(cf.st, client_id, user_id, &f, DONE);
	ok();
	out = f.consented ? xstrdup(f.consented) : NULL;
	store_access_facts_release(&f);
	return out;
}

/* issue31.2: remembered per user and client; a grant replaces the set;
 * the client's consent_required is read with it. */
START_TEST(test_consent_remembered)
{
	struct client_fields cfld = { .name = "Third", .set_consent_required = true,
	                              .consent_required = true };
	char *u = user_new("u", NULL), *other = user_new("o", NULL), *third, *out = NULL, *got;
	struct store_access_facts f;

	store_client_create(cf.st, &event_origin_cli, cf.p.project_id, &cfld, "hash", NULL, &out,
	                    DONE);
	ok();
	ck_assert_ptr_nonnull(strstr(out, "\"consent_required\":true"));
	third = id_of(out);
	store_access_facts(cf.st, third, u, &f, DONE);
	ok();
	ck_assert(f.consent_required);
	ck_assert_ptr_null(f.consented);
	ck_assert(consent_needed(&f, "openid", false));
	store_access_facts_release(&f);
	store_consent_grant(cf.st, u, third, "openid", NULL, DONE);
	ok();
	store_access_facts(cf.st, third, u, &f, DONE);
	ok();
	ck_assert(!consent_needed(&f, "openid", false));
	ck_assert(consent_needed(&f, "openid email", false));   /* a wider set */
	ck_assert(consent_needed(&f, "openid", true));          /* prompt=consent */
	store_access_facts_release(&f);
	store_consent_grant(cf.st, u, third, "openid email", NULL, DONE);
	ok();
	got = consented(third, u);
	ck_assert_str_eq(got, "openid email");
	free(got);
	ck_assert_ptr_null(consented(third, other));   /* per user */
	free(third);
	free(other);
	free(u);
}
END_TEST

static void event_counted(void *arg, const char *record)
{
	(void)record;
	++*(int *)arg;
}

/* How many events of action the project has. */
static int events_of(const char *action)
{
	struct event_filter ef = { cf.p.project_id, 0, action };
	int n = 0;

	ck_assert_int_eq(store_event_list(cf.st, &ef, event_counted, &n, &cf.err), 0);
	return n;
}

/* issue31.2: the list, newest first, names the app; revoking forgets the
 * consent and revokes that client's refresh tokens of the user (and their
 * access tokens), not the user's at another client nor another user's; its
 * event is recorded with it, and only when a consent went. */
START_TEST(test_consent_list_revoke)
{
	char *u = user_new("u", NULL), *other = user_new("o", NULL), *b, *list = NULL;
	bool revoked = true;
	json_t *j;
	struct event_origin by = { u, NULL };
	struct event ev = { &by, cf.p.project_id, EVENT_CONSENT_REVOKE, cf.p.client_id, NULL };

	b = id_of(client_new(NULL, NULL, NULL));
	ok();
	refresh_new("cr-ua", u, cf.p.client_id);
	refresh_new("cr-ub", u, b);
	refresh_new("cr-oa", other, cf.p.client_id);
	store_consent_list(cf.st, u, &list, DONE);
	ok();
	ck_assert_str_eq(list, "[]");
	free(list);
	store_consent_grant(cf.st, u, cf.p.client_id, "openid", NULL, DONE);
	ok();
	store_consent_grant(cf.st, u, b, "", NULL, DONE);
	ok();
	store_consent_grant(cf.st, other, cf.p.client_id, "openid", NULL, DONE);
	ok();
	store_consent_list(cf.st, u, &list, DONE);
	ok();
	j = json_loads(list, 0, NULL);
	ck_assert_int_eq((int)json_array_size(j), 2);
	for (size_t i = 0; i < 2; i++) {   /* granted in one millisecond maybe: any order */
		json_t *k = json_array_get(j, i);

		ck_assert_ptr_nonnull(json_string_value(json_object_get(k, "granted_at")));
		if (!strcmp(json_string_value(json_object_get(k, "client_id")), b))
			ck_assert_str_eq(json_string_value(json_object_get(k, "client_name")), "App");
	}
	json_decref(j);
	free(list);
	store_consent_revoke(cf.st, u, cf.p.client_id, &ev, &revoked, DONE);
	ok();
	ck_assert(revoked);
	ck_assert_int_eq(events_of(EVENT_CONSENT_REVOKE), 1);
	ck_assert_msg(refresh_revoked("cr-ua"), "issue31.2: the client's refresh token of the user");
	ck_assert_msg(!refresh_revoked("cr-ub"), "issue31.2: another client's");
	ck_assert_msg(!refresh_revoked("cr-oa"), "issue31.2: another user's");
	ck_assert_ptr_null(consented(cf.p.client_id, u));
	store_consent_revoke(cf.st, u, cf.p.client_id, &ev, &revoked, DONE);
	ok();
	ck_assert(!revoked);
	ck_assert_int_eq(events_of(EVENT_CONSENT_REVOKE), 1);   /* nothing went: none */
	store_consent_list(cf.st, u, &list, DONE);
	ok();
	j = json_loads(list, 0, NULL);
	ck_assert_int_eq((int)json_array_size(j), 1);
	json_decref(j);
	free(list);
	free(b);
	free(other);
	free(u);
}
END_TEST

static void add_cases(TCase *tc)
{
	tcase_add_test(tc, test_consent_remembered);
	tcase_add_test(tc, test_consent_list_revoke);
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
