/*
 * The grants service (grants.c) without a socket: each grant's happy path,
 * CONTRACT.md §5's checks in their order, single use, and replays revoking
 * the whole sign-in; revocation. A real SQLite store and signing key in a
 * temporary directory, fresh for each test.
 */
#include <check.h>
#include "check_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "grants.h"
#include "jwt.h"
#include "server.h"
#include "store_projects.h"
#include "store.h"
#include "store_tokens.h"
#include "util.h"

#define REDIRECT "https://app.example/cb"
#define VERIFIER "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
#define CHALLENGE "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

static struct {
	char dir[64];
	char db[96], key[96], kek[96];
	struct config cfg;
	struct server srv;
	struct new_project p;
	char *app;            /* a client with REDIRECT, permission-less */
	char *user;           /* a user of the project, active */
	struct grant g;
	struct grant_tokens out;
	struct sync_result r;
} fx;

static void exec_sql(const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_exec(fx.srv.store->db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s",
	              sql, sqlite3_errmsg(fx.srv.store->db));
	sqlite3_free(sql);
}

static void setup(void)
{
	char errbuf[256];
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_grants.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.db, sizeof fx.db, "%s/e.db", fx.dir);
	snprintf(fx.key, sizeof fx.key, "%s/key.pem", fx.dir);
	snprintf(fx.kek, sizeof fx.kek, "%s/kek", fx.dir);
	config_init(&fx.cfg);
	fx.srv.cfg = &fx.cfg;
	fx.srv.store = store_open(fx.db, false, errbuf, sizeof errbuf);
	ck_assert_msg(fx.srv.store != NULL, "%s", errbuf);
	fx.srv.keys = check_keyring(&fx.cfg, fx.srv.store, fx.dir);
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	fx.app = crypto_new_id();
	fx.user = crypto_new_id();
	exec_sql("INSERT INTO clients (id, project_id, name, secret_hash, redirect_uris,"
	         " created_at, updated_at) VALUES (%Q, %Q, 'app', 'x', '[\"" REDIRECT "\"]', 1, 1)",
	         fx.app, fx.p.project_id);
	exec_sql("INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
	         " VALUES (%Q, %Q, 'U', 1, 1)", fx.user, fx.p.project_id);
}

static void teardown(void)
{
	grant_release(&fx.g);
	grant_tokens_release(&fx.out);
	store_new_project_release(&fx.p);
	store_close(fx.srv.store);
	keyring_free(fx.srv.keys);
	config_release(&fx.cfg);
	free(fx.app);
	free(fx.user);
	unlink(fx.db);
	unlink(fx.key);
	unlink(fx.kek);
	rmdir(fx.dir);
}

/* Runs a grant; the SQLite store ends it before grants_exchange returns.
 * Returns NULL on success, else the error's code. */
static const char *exchange(const struct grant_request *in)
{
	grant_release(&fx.g);
	grant_tokens_release(&fx.out);
	grants_exchange(&fx.g, &fx.srv, in, &fx.out, sync_completion(&fx.r));
	ck_assert(fx.r.done);
	if (fx.r.failed && getenv("GRANTS_DEBUG"))
		fprintf(stderr, "%s: %s\n", fx.r.err.code, fx.r.err.description);
	return fx.r.failed ? fx.r.err.code : NULL;
}

/* A code for fx.user at fx.app, expiring in ttl_ms. Caller frees. */
static char *new_code(int64_t ttl_ms)
{
	char *code = crypto_new_secret(), *family = crypto_new_id();
	char hash[SECRET_HASH_LEN + 1];
	struct new_code nc = {
		.hash = hash, .family_id = family, .project_id = fx.p.project_id,
		.client_id = fx.app, .user_id = fx.user, .redirect_uri = REDIRECT,
		.code_challenge = CHALLENGE, .expires_at = now_ms() + ttl_ms,
	};
	struct sync_result r;

	crypto_hash_secret(code, strlen(code), hash);
	store_code_insert(fx.srv.store, &nc, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	free(family);
	return code;
}

static struct grant_request code_request(const char *code)
{
	return (struct grant_request){
		.grant_type = "authorization_code", .client.form_client_id = fx.app, .code = code,
		.redirect_uri = REDIRECT, .code_verifier = VERIFIER,
	};
}

static struct grant_request refresh_request(const char *token)
{
	return (struct grant_request){
		.grant_type = "refresh_token", .client.form_client_id = fx.app,
		.refresh_token = token,
	};
}

/* Signs in through a code; returns the refresh token (caller frees). */
static char *signed_in(void)
{
	char *code = new_code(60000);
	struct grant_request in = code_request(code);

	ck_assert_ptr_null(exchange(&in));
	crypto_wipe_free(code);
	return xstrdup(fx.out.refresh_token);
}

START_TEST(test_client_credentials)
{
	struct grant_request in = {
		.grant_type = "client_credentials", .client.basic_client_id = fx.p.client_id,
		.client.basic_secret = fx.p.client_secret, .client.form_client_id = "ignored",
	};
	json_t *claims;

	ck_assert_ptr_null(exchange(&in));
	ck_assert_ptr_nonnull(fx.out.access_token);
	ck_assert_ptr_null(fx.out.refresh_token);
	ck_assert_int_eq(fx.out.expires_in, fx.cfg.access_ttl_s);
	ck_assert_ptr_nonnull(strstr(fx.out.scope, "users:read"));
	claims = keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, fx.out.access_token,
	                        strlen(fx.out.access_token), NULL);
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), fx.p.client_id);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "aud")), fx.p.project_id);
	json_decref(claims);
}
END_TEST

/* CONTRACT.md §5: the form, the client, client_not_active, project_not_active. */
START_TEST(test_client_credentials_errors)
{
	struct grant_request in = { .grant_type = "client_credentials" };

	ck_assert_str_eq(exchange(&in), "invalid_params");   /* no Basic header */
	in.client.basic_client_id = fx.p.client_id;
	in.client.basic_secret = "wrong";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.basic_client_id = "nobody";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.basic_client_id = fx.p.client_id;
	in.client.basic_secret = fx.p.client_secret;
	exec_sql("UPDATE clients SET is_active = 0 WHERE id = %Q", fx.p.client_id);
	exec_sql("UPDATE projects SET is_active = 0");
	ck_assert_str_eq(exchange(&in), "client_not_active");
	exec_sql("UPDATE clients SET is_active = 1 WHERE id = %Q", fx.p.client_id);
	ck_assert_str_eq(exchange(&in), "project_not_active");
	in.grant_type = "password";
	ck_assert_str_eq(exchange(&in), "invalid_params");
	in.grant_type = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");
}
END_TEST

START_TEST(test_code_then_refresh)
{
	char *refresh = signed_in(), *next;
	struct grant_request in = refresh_request(refresh);

	ck_assert_ptr_nonnull(fx.out.access_token);
	ck_assert_str_eq(fx.out.scope, "");
	ck_assert_ptr_null(exchange(&in));
	ck_assert_str_ne(fx.out.refresh_token, refresh);
	next = xstrdup(fx.out.refresh_token);
	in = refresh_request(next);
	ck_assert_ptr_null(exchange(&in));
	crypto_wipe_free(refresh);
	crypto_wipe_free(next);
}
END_TEST

/* CONTRACT.md §5's order for a code: unknown or another client's ->
 * already used -> redirect URI -> expired -> verifier. */
START_TEST(test_code_errors_in_order)
{
	char *code = new_code(60000), *expired = new_code(-1);
	struct grant_request in = code_request(code);

	in.code = "nonsense";
	ck_assert_str_eq(exchange(&in), "invalid_authorization_code");
	in = code_request(code);
	in.client.form_client_id = fx.p.client_id;   /* another client of the project */
	ck_assert_str_eq(exchange(&in), "invalid_authorization_code");
	in = code_request(code);
	in.redirect_uri = "https://app.example/other";
	in.code_verifier = "wrong-verifier-wrong-verifier-wrong-verifier";
	ck_assert_str_eq(exchange(&in), "different_authorize_redirect_uri");
	in = code_request(expired);
	in.code_verifier = "wrong-verifier-wrong-verifier-wrong-verifier";
	ck_assert_str_eq(exchange(&in), "auth_code_expired");
	in = code_request(code);
	in.code_verifier = "wrong-verifier-wrong-verifier-wrong-verifier";
	ck_assert_str_eq(exchange(&in), "invalid_code_verifier");
	in = code_request(code);
	in.code_verifier = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	in = code_request(code);
	in.client.form_client_id = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	in = code_request(code);
	in.client.form_client_id = "nobody";
	ck_assert_str_eq(exchange(&in), "invalid_client");
	in = code_request(code);
	in.client.basic_client_id = fx.p.client_id;   /* Basic and form disagree */
	in.client.basic_secret = fx.p.client_secret;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	/* none of these used the code */
	in = code_request(code);
	ck_assert_ptr_null(exchange(&in));
	crypto_wipe_free(code);
	crypto_wipe_free(expired);
}
END_TEST

/* A code used twice: the second answers already used and revokes the
 * tokens of the first (RFC 6749 §4.1.2). */
START_TEST(test_code_replay_revokes)
{
	char *code = new_code(60000), *refresh;
	struct grant_request in = code_request(code);

	ck_assert_ptr_null(exchange(&in));
	refresh = xstrdup(fx.out.refresh_token);
	ck_assert_str_eq(exchange(&in), "auth_code_already_used");
	ck_assert_str_eq(exchange(&in), "auth_code_already_used");
	in = refresh_request(refresh);
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	crypto_wipe_free(code);
	crypto_wipe_free(refresh);
}
END_TEST

/* A refresh token used twice revokes the whole sign-in, its successor too. */
START_TEST(test_refresh_replay_revokes)
{
	char *first = signed_in(), *second;
	struct grant_request in = refresh_request(first);

	ck_assert_ptr_null(exchange(&in));
	second = xstrdup(fx.out.refresh_token);
	ck_assert_str_eq(exchange(&in), "refresh_token_already_used");
	in = refresh_request(second);
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	in = refresh_request(first);
	ck_assert_str_eq(exchange(&in), "refresh_token_already_used");
	crypto_wipe_free(first);
	crypto_wipe_free(second);
}
END_TEST

START_TEST(test_refresh_errors)
{
	char *refresh = signed_in();
	struct grant_request in = refresh_request(refresh);

	in.client.form_client_id = fx.p.client_id;
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	in = refresh_request(refresh);
	exec_sql("UPDATE users SET is_active = 0, updated_at ="
	         " (SELECT max(created_at) FROM refresh_tokens)");
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	exec_sql("UPDATE users SET is_active = 1");
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");   /* reactivation revives nothing */
	crypto_wipe_free(refresh);
	usleep(2000);   /* a code of the deactivation's own millisecond would be dead too */
	refresh = signed_in();
	exec_sql("UPDATE refresh_tokens SET expires_at = 0 WHERE used_at IS NULL");
	in = refresh_request(refresh);
	ck_assert_str_eq(exchange(&in), "refresh_token_expired");
	in.refresh_token = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	crypto_wipe_free(refresh);
}
END_TEST

static const char *revoke_with(const struct revoke_request *req)
{
	grant_release(&fx.g);
	grants_revoke(&fx.g, &fx.srv, req, sync_completion(&fx.r));
	ck_assert(fx.r.done);
	return fx.r.failed ? fx.r.err.code : NULL;
}

START_TEST(test_revoke)
{
	char *refresh = signed_in();
	struct revoke_request req = { .token = "unknown", .client.form_client_id = fx.app };
	struct grant_request in;

	ck_assert_ptr_null(revoke_with(&req));                   /* RFC 7009 §2.2 */
	req.client.form_client_id = fx.p.client_id;          /* not the token's client */
	req.token = refresh;
	ck_assert_ptr_null(revoke_with(&req));
	in = refresh_request(refresh);
	ck_assert_ptr_null(exchange(&in));                  /* still good */
	crypto_wipe_free(refresh);
	refresh = xstrdup(fx.out.refresh_token);
	req.client.form_client_id = fx.app;
	req.token = refresh;
	ck_assert_ptr_null(revoke_with(&req));
	in = refresh_request(refresh);
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	req.client.form_client_id = NULL;
	ck_assert_str_eq(revoke_with(&req), "invalid_params");
	req.client.form_client_id = "nobody";
	ck_assert_str_eq(revoke_with(&req), "invalid_client");
	req.client.basic_client_id = fx.app;
	req.client.basic_secret = "wrong";
	ck_assert_str_eq(revoke_with(&req), "invalid_params");   /* Basic and form disagree */
	req.client.form_client_id = NULL;
	ck_assert_str_eq(revoke_with(&req), "invalid_client_credentials");
	crypto_wipe_free(refresh);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grants");
	TCase *tc = tcase_create("grants");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_client_credentials);
	tcase_add_test(tc, test_client_credentials_errors);
	tcase_add_test(tc, test_code_then_refresh);
	tcase_add_test(tc, test_code_errors_in_order);
	tcase_add_test(tc, test_code_replay_revokes);
	tcase_add_test(tc, test_refresh_replay_revokes);
	tcase_add_test(tc, test_refresh_errors);
	tcase_add_test(tc, test_revoke);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
