/*
 * Bearer checks (auth.c) without a socket: the header's forms, the claims,
 * the cache of verified signatures, the holders' verdict cached at a store
 * stamp (and dropped by a commit of another connection, as the CLI makes),
 * and revocation read on every check even for a cached token.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access_token.h"
#include "auth.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include "config.h"
#include "crypto.h"
#include "jwt.h"
#include "server.h"
#include "store_projects.h"
#include "store.h"
#include "store_tokens.h"
#include "util.h"

/* the store and key ring of keyring_fixture.h, the server over them */
static struct keyring_fixture kf;
static struct {
	struct server srv;
	struct new_project p;
	struct access_token at;
	struct bearer_check check;
	struct principal who;
	struct sync_result r;
	char header[2048];
	sqlite3 *other;           /* a second connection, as the CLI's */
} fx;

static void setup(void)
{
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	keyring_fixture_open(&kf, "check_auth");
	fx.srv.cfg = &kf.cfg;
	fx.srv.store = kf.st;
	fx.srv.keys = kf.ring;
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	ck_assert_int_eq(sqlite3_open(kf.path, &fx.other), SQLITE_OK);
	sqlite3_busy_timeout(fx.other, 2000);
}

static void teardown(void)
{
	auth_principal_release(&fx.who);
	access_token_release(&fx.at);
	auth_cache_free(fx.srv.auth_cache);
	sqlite3_close(fx.other);
	store_new_project_release(&fx.p);
	keyring_fixture_close(&kf);
}

/* A token of the admin client (user_id NULL) or of a user. */
static void issue(const char *user_id)
{
	struct api_error err;
	const struct access_claims c = {
		fx.p.project_id, fx.p.client_id, user_id, "users:read roles:read", 0,
	};

	access_token_release(&fx.at);
	ck_assert_int_eq(access_token_issue(&fx.srv, &c, &fx.at, &err), 0);
	snprintf(fx.header, sizeof fx.header, "Bearer %s", fx.at.token);
}

/* Checks header; NULL when accepted, else the error's code. */
static const char *check(const char *header)
{
	auth_principal_release(&fx.who);
	auth_bearer(&fx.check, &fx.srv, header, &fx.who, sync_completion(&fx.r));
	ck_assert(fx.r.done);
	return fx.r.failed ? fx.r.err.code : NULL;
}

static void other_exec(const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_exec(fx.other, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sql);
	sqlite3_free(sql);
}

START_TEST(test_accepted)
{
	issue(NULL);
	ck_assert_ptr_null(check(fx.header));
	ck_assert(fx.who.present);
	ck_assert_str_eq(fx.who.client_id, fx.p.client_id);
	ck_assert_str_eq(fx.who.project_id, fx.p.project_id);
	ck_assert_ptr_null(fx.who.user_id);
	ck_assert_str_eq(fx.who.jti, fx.at.jti);
	ck_assert(auth_principal_has(&fx.who, "roles:read"));
	ck_assert(!auth_principal_has(&fx.who, "roles:rea"));
	ck_assert(!auth_principal_has(&fx.who, "users:update"));
}
END_TEST

/* issue29 events API: a route needing several permissions names the first
 * one the scope lacks, whole words only. */
START_TEST(test_lacks)
{
	struct principal p = { 0 };
	const char *four = "users:read clients:read roles:read resources:read", *w;
	size_t len = 0;

	p.scope = (char *)"users:read roles:read clients:read resources:read";
	ck_assert_ptr_null(auth_principal_lacks(&p, four, &len));
	p.scope = (char *)"users:read roles:read resources:read clients:reader";
	w = auth_principal_lacks(&p, four, &len);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq((int)len, (int)strlen("clients:read"));
	ck_assert(!strncmp(w, "clients:read", len));
	p.scope = NULL;
	w = auth_principal_lacks(&p, four, &len);
	ck_assert_ptr_eq(w, four);
	ck_assert_int_eq((int)len, (int)strlen("users:read"));
	ck_assert_ptr_null(auth_principal_lacks(&p, "", &len));
}
END_TEST

/* RFC 6750 §2.1: "Bearer", any case, then one or more spaces. */
START_TEST(test_header_forms)
{
	char h[2048];

	issue(NULL);
	snprintf(h, sizeof h, "bEaReR   %s", fx.at.token);
	ck_assert_ptr_null(check(h));
	ck_assert_ptr_eq(auth_bearer_token(h), h + 9);
	ck_assert_ptr_null(auth_bearer_token("Bearer"));
	ck_assert_ptr_null(auth_bearer_token("Bearer    "));
	ck_assert_ptr_null(auth_bearer_token("Basic abc"));
	ck_assert_ptr_null(auth_bearer_token(NULL));

	ck_assert_str_eq(check(NULL), "invalid_authorization_token");
	ck_assert_int_eq(fx.r.err.token_was_sent, 0);
	ck_assert_int_eq(fx.r.err.status, 401);
	ck_assert_str_eq(check("Basic abc"), "invalid_authorization_token");
	ck_assert_int_eq(fx.r.err.token_was_sent, 0);
	ck_assert_str_eq(check("Bearer not.a.jwt"), "invalid_authorization_token");
	ck_assert_int_eq(fx.r.err.token_was_sent, 1);
	ck_assert(!fx.who.present);
	ck_assert_ptr_null(fx.who.jti);
}
END_TEST

/* A token whose signature checked out is not verified again: seen under
 * another issuer it still passes from the cache, while one never seen,
 * verified afresh, fails the issuer check. */
START_TEST(test_signature_cache_hit)
{
	char seen[2048], another[] = "http://another.example";
	char *issuer = kf.cfg.issuer;

	issue(NULL);
	snprintf(seen, sizeof seen, "%s", fx.header);
	ck_assert_ptr_null(check(seen));
	issue(NULL);
	kf.cfg.issuer = another;
	ck_assert_ptr_null(check(seen));
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
	kf.cfg.issuer = issuer;
	ck_assert_ptr_null(check(fx.header));
}
END_TEST

/* The key that signed a token retired by another process (the CLI): the
 * token fails at the next check, though its signature checked out before
 * and is cached, and so does one never seen. */
START_TEST(test_retired_key_cached)
{
	char seen[2048], unseen[2048];
	const char *kid;

	issue(NULL);
	snprintf(seen, sizeof seen, "%s", fx.header);
	ck_assert_ptr_null(check(seen));
	ck_assert_ptr_null(check(seen));
	issue(NULL);
	snprintf(unseen, sizeof unseen, "%s", fx.header);
	kid = fx.who.kid;
	ck_assert_ptr_nonnull(kid);
	ck_assert_ptr_nonnull(keyring_find(fx.srv.keys, kid));
	other_exec("UPDATE signing_keys SET retired_at = 1 WHERE kid = %Q", kid);
	ck_assert_str_eq(check(seen), "invalid_authorization_token");
	ck_assert_int_eq(fx.r.err.token_was_sent, 1);
	ck_assert_str_eq(check(unseen), "invalid_authorization_token");
}
END_TEST

/* Another process rotated and signs with a key this ring has not read (no
 * request of ours read the store since): the token's unknown kid has the
 * ring read again, once, and the token passes. A kid the store does not
 * have either still fails. */
START_TEST(test_unknown_kid_reads_keys)
{
	struct server other = fx.srv;
	enum jwt_alg alg = JWT_ES256;
	struct key_row added;
	struct api_error err;

	kf.cfg.key_activation_delay_s = 0;
	other.keys = check_keyring(&kf.cfg, fx.srv.store, kf.dir);
	ck_assert_int_eq(keyring_rotate(other.keys, fx.srv.store, &alg, 1, &added, &err), 0);
	keyring_free(other.keys);
	other.keys = check_keyring(&kf.cfg, fx.srv.store, kf.dir);
	access_token_release(&fx.at);
	ck_assert_int_eq(access_token_issue(&other, &(struct access_claims){
	                                    fx.p.project_id, fx.p.client_id, NULL, "users:read", 0,
	                                    }, &fx.at, &err), 0);
	keyring_free(other.keys);
	snprintf(fx.header, sizeof fx.header, "Bearer %s", fx.at.token);
	ck_assert_ptr_null(keyring_find(fx.srv.keys, added.kid));
	ck_assert_ptr_null(check(fx.header));
	ck_assert_str_eq(fx.who.kid, added.kid);
	ck_assert_ptr_nonnull(keyring_find(fx.srv.keys, added.kid));
}
END_TEST

START_TEST(test_expired)
{
	kf.cfg.access_ttl_s = -1;
	issue(NULL);
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
	ck_assert_int_eq(fx.r.err.token_was_sent, 1);
}
END_TEST

/* The holders' verdict is cached at the store's stamp: a commit by another
 * connection (the CLI) moves the stamp, and the next check reads again. */
START_TEST(test_holders_read_again_after_any_commit)
{
	issue(NULL);
	ck_assert_ptr_null(check(fx.header));
	ck_assert_ptr_null(check(fx.header));              /* cached verdict */
	other_exec("UPDATE projects SET is_active = 0 WHERE id = %Q", fx.p.project_id);
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
	other_exec("UPDATE clients SET is_active = 0, updated_at = 1 WHERE id = %Q", fx.p.client_id);
	other_exec("UPDATE projects SET is_active = 1, tokens_valid_after = NULL");
	other_exec("UPDATE clients SET is_active = 1, tokens_valid_after = NULL");
	ck_assert_ptr_null(check(fx.header));
}
END_TEST

/* Revocation is read on every check, also for a token whose verdict is
 * cached. */
START_TEST(test_revoked_after_cached)
{
	issue(NULL);
	ck_assert_ptr_null(check(fx.header));
	other_exec("INSERT INTO revoked_tokens (jti, expires_at) VALUES (%Q, %lld)", fx.at.jti,
	           fx.at.exp);
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
}
END_TEST

START_TEST(test_user_token)
{
	other_exec("INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
	           " VALUES ('u1', %Q, 'U', 1, 1)", fx.p.project_id);
	issue("u1");
	ck_assert_ptr_null(check(fx.header));
	ck_assert_str_eq(fx.who.user_id, "u1");
	other_exec("UPDATE users SET is_active = 0 WHERE id = 'u1'");
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
	other_exec("DELETE FROM users WHERE id = 'u1'");
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
	issue("nobody");
	ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
}
END_TEST

/* The claims, written directly when no value needs a JSON escape, and
 * through jansson when one does: both verify and read back the same. */
START_TEST(test_claims_text)
{
	static const char *const subs[] = { "u-1_AZaz09", "quote\"back\\slash\ttab" };
	json_t *claims;

	for (size_t i = 0; i < N_ELEMS(subs); i++) {
		issue(subs[i]);
		claims = keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, fx.at.token, strlen(fx.at.token),
		                        NULL);
		ck_assert_ptr_nonnull(claims);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), subs[i]);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "aud")), fx.p.project_id);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "project_id")),
		                 fx.p.project_id);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "client_id")),
		                 fx.p.client_id);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "scope")),
		                 "users:read roles:read");
		ck_assert_str_eq(json_string_value(json_object_get(claims, "iss")), kf.cfg.issuer);
		ck_assert_str_eq(json_string_value(json_object_get(claims, "jti")), fx.at.jti);
		ck_assert_int_eq(json_integer_value(json_object_get(claims, "exp")), fx.at.exp);
		ck_assert_int_eq(json_integer_value(json_object_get(claims, "exp")) -
		                 json_integer_value(json_object_get(claims, "iat")), kf.cfg.access_ttl_s);
		ck_assert_int_eq(json_object_size(claims), 9);
		json_decref(claims);
	}
}
END_TEST

/* RFC 9068 §2.2.1: a user sign-in's token carries auth_time, the bearer
 * check reads it; an OIDC scope beside the named permissions changes no
 * permission (docs/signin.md §"ID tokens"), in both ways the claims are written. */
START_TEST(test_auth_time_and_oidc_scope)
{
	static const char *const subs[] = { "u1", "quote\"d" };
	struct api_error err;
	json_t *claims;

	other_exec("INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
	           " VALUES ('u1', %Q, 'U', 1, 1)", fx.p.project_id);
	for (size_t i = 0; i < N_ELEMS(subs); i++) {
		const struct access_claims c = {
			fx.p.project_id, fx.p.client_id, subs[i], "openid profile users:read", 1700000000,
		};

		access_token_release(&fx.at);
		ck_assert_int_eq(access_token_issue(&fx.srv, &c, &fx.at, &err), 0);
		claims = keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, fx.at.token, strlen(fx.at.token),
		                        NULL);
		ck_assert_int_eq(json_integer_value(json_object_get(claims, "auth_time")), 1700000000);
		ck_assert_int_eq(json_object_size(claims), 10);
		json_decref(claims);
	}
	issue("u1");   /* without auth_time: none */
	ck_assert_ptr_null(check(fx.header));
	ck_assert_int_eq(fx.who.auth_time, 0);
	access_token_release(&fx.at);
	ck_assert_int_eq(access_token_issue(&fx.srv, &(struct access_claims){
	                 fx.p.project_id, fx.p.client_id, "u1", "openid profile users:read",
	                 1700000000 }, &fx.at, &err), 0);
	snprintf(fx.header, sizeof fx.header, "Bearer %s", fx.at.token);
	ck_assert_ptr_null(check(fx.header));
	ck_assert_int_eq(fx.who.auth_time, 1700000000);
	ck_assert(auth_principal_has(&fx.who, "users:read"));
	ck_assert(!auth_principal_has(&fx.who, "users:update"));
}
END_TEST

/* docs/signin.md §"Which token is accepted where": only access tokens are bearer tokens; an ID token or a
 * logout token with the very claims of a good access token is refused. */
START_TEST(test_other_token_types_refused)
{
	static const enum jwt_typ typs[] = { JWT_TYP_ID, JWT_TYP_LOGOUT };
	json_t *claims;
	char *payload, *tok;

	issue(NULL);
	ck_assert_ptr_null(check(fx.header));
	claims = keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, fx.at.token, strlen(fx.at.token), NULL);
	payload = json_dumps(claims, JSON_COMPACT);
	for (size_t i = 0; i < N_ELEMS(typs); i++) {
		for (int alg = 0; alg < JWT_ALG_COUNT; alg++) {
			tok = keyring_sign(fx.srv.keys, (enum jwt_alg)alg, typs[i], payload, strlen(payload));
			ck_assert_ptr_nonnull(tok);
			snprintf(fx.header, sizeof fx.header, "Bearer %s", tok);
			ck_assert_str_eq(check(fx.header), "invalid_authorization_token");
			ck_assert(fx.r.err.token_was_sent);
			free(tok);
		}
	}
	free(payload);
	json_decref(claims);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = check_tcase("bearer", setup, teardown);

	tcase_add_test(tc, test_accepted);
	tcase_add_test(tc, test_lacks);
	tcase_add_test(tc, test_header_forms);
	tcase_add_test(tc, test_signature_cache_hit);
	tcase_add_test(tc, test_retired_key_cached);
	tcase_add_test(tc, test_unknown_kid_reads_keys);
	tcase_add_test(tc, test_expired);
	tcase_add_test(tc, test_holders_read_again_after_any_commit);
	tcase_add_test(tc, test_revoked_after_cached);
	tcase_add_test(tc, test_user_token);
	tcase_add_test(tc, test_claims_text);
	tcase_add_test(tc, test_auth_time_and_oidc_scope);
	tcase_add_test(tc, test_other_token_types_refused);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
