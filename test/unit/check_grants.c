/*
 * The grants service (grants.c) without a socket: each grant's happy path,
 * the checks of docs/tokens.md §"Order of checks" in their order, single use, and replays revoking
 * the whole sign-in; revocation; an OIDC sign-in's ID token and granted
 * scope (§7); confidential clients and the refresh grace (§8). A real
 * SQLite store and signing key in a temporary directory, fresh for each
 * test.
 */
#include <check.h>
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "b64url.h"
#include "grants.h"
#include "id_token.h"
#include "jwt.h"
#include "server.h"
#include "store_projects.h"
#include "store.h"
#include "store_tokens.h"
#include "untold.h"
#include "util.h"

#define REDIRECT "https://app.example/cb"
#define VERIFIER "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
#define CHALLENGE "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

/* the store and key ring of keyring_fixture.h, the server over them */
static struct keyring_fixture kf;
static struct {
	struct server srv;
	struct new_project p;
	char *app;            /* a client with REDIRECT, permission-less */
	char *other;          /* another public client of the project */
	char *user;           /* a user of the project, active */
	struct grant g;
	struct grant_tokens out;
	struct sync_result r;
} fx;

#define exec_sql(...) check_sql(sqlite_of(fx.srv.store)->db, __VA_ARGS__)

static void setup(void)
{
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	keyring_fixture_open(&kf, "check_grants");
	fx.srv.cfg = &kf.cfg;
	fx.srv.store = kf.st;
	fx.srv.keys = kf.ring;
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	fx.app = crypto_new_id();
	fx.other = crypto_new_id();
	fx.user = crypto_new_id();
	exec_sql("INSERT INTO clients (id, project_id, name, secret_hash, redirect_uris,"
	         " created_at, updated_at) VALUES (%Q, %Q, 'app', 'x', '[\"" REDIRECT "\"]', 1, 1)",
	         fx.app, fx.p.project_id);
	exec_sql("INSERT INTO clients (id, project_id, name, secret_hash, created_at, updated_at)"
	         " VALUES (%Q, %Q, 'other', 'x', 1, 1)", fx.other, fx.p.project_id);
	exec_sql("INSERT INTO users (id, project_id, display_name, created_at, updated_at)"
	         " VALUES (%Q, %Q, 'U', 1, 1)", fx.user, fx.p.project_id);
}

static void teardown(void)
{
	grant_release(&fx.g);
	grant_tokens_release(&fx.out);
	store_new_project_release(&fx.p);
	keyring_fixture_close(&kf);
	free(fx.app);
	free(fx.other);
	free(fx.user);
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

/* A code for fx.user at fx.app, with the OpenID Connect side of oidc
 * (scope, nonce, auth_time, session: NULL for a plain OAuth one), its
 * other fields made here. Caller frees. */
static char *insert_code(struct new_code oidc)
{
	char *code = crypto_new_secret(), *family = crypto_new_id();
	char hash[SECRET_HASH_LEN + 1];
	struct sync_result r;

	oidc.hash = hash;
	oidc.family_id = family;
	oidc.project_id = fx.p.project_id;
	oidc.client_id = fx.app;
	oidc.user_id = fx.user;
	oidc.redirect_uri = REDIRECT;
	oidc.code_challenge = CHALLENGE;
	if (!oidc.expires_at)
		oidc.expires_at = now_ms() + 60000;
	crypto_hash_secret(code, strlen(code), hash);
	store_code_insert(fx.srv.store, &oidc, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	free(family);
	return code;
}

/* A code for fx.user at fx.app, expiring in ttl_ms. Caller frees. */
static char *new_code(int64_t ttl_ms)
{
	return insert_code((struct new_code){ .expires_at = now_ms() + ttl_ms });
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
	crypto_free_wiped(code);
	return xstrdup(fx.out.refresh_token);
}

START_TEST(test_client_credentials)
{
	struct grant_request in = {
		.grant_type = "client_credentials", .client.basic_client_id = fx.p.client_id,
		.client.secret = fx.p.client_secret, .client.form_client_id = "ignored",
	};
	json_t *claims;

	ck_assert_ptr_null(exchange(&in));
	ck_assert_ptr_nonnull(fx.out.access_token);
	ck_assert_ptr_null(fx.out.refresh_token);
	ck_assert_int_eq(fx.out.expires_in, kf.cfg.access_ttl_s);
	ck_assert_ptr_nonnull(strstr(fx.out.scope, "users:read"));
	claims = keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, fx.out.access_token,
	                        strlen(fx.out.access_token), NULL);
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), fx.p.client_id);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "aud")), fx.p.project_id);
	json_decref(claims);
}
END_TEST

/* docs/tokens.md §"Order of checks": the form, the client, client_not_active, project_not_active. */
START_TEST(test_client_credentials_errors)
{
	struct grant_request in = { .grant_type = "client_credentials" };

	ck_assert_str_eq(exchange(&in), "invalid_params");   /* no Basic header */
	in.client.basic_client_id = fx.p.client_id;
	in.client.secret = "wrong";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.basic_client_id = "nobody";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.basic_client_id = fx.p.client_id;
	in.client.secret = fx.p.client_secret;
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
	crypto_free_wiped(refresh);
	crypto_free_wiped(next);
}
END_TEST

/* the order of docs/tokens.md §"Order of checks" for a code: unknown or another client's ->
 * already used -> redirect URI -> expired -> verifier. */
START_TEST(test_code_errors_in_order)
{
	char *code = new_code(60000), *expired = new_code(-1);
	struct grant_request in = code_request(code);

	in.code = "nonsense";
	ck_assert_str_eq(exchange(&in), "invalid_authorization_code");
	in = code_request(code);
	in.client.form_client_id = fx.other;   /* another client of the project */
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
	in.client.secret = fx.p.client_secret;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	/* none of these used the code */
	in = code_request(code);
	ck_assert_ptr_null(exchange(&in));
	crypto_free_wiped(code);
	crypto_free_wiped(expired);
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
	crypto_free_wiped(code);
	crypto_free_wiped(refresh);
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
	crypto_free_wiped(first);
	crypto_free_wiped(second);
}
END_TEST

START_TEST(test_refresh_errors)
{
	char *refresh = signed_in();
	struct grant_request in = refresh_request(refresh);

	in.client.form_client_id = fx.other;
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	in = refresh_request(refresh);
	exec_sql("UPDATE users SET is_active = 0, updated_at ="
	         " (SELECT max(created_at) FROM refresh_tokens)");
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	exec_sql("UPDATE users SET is_active = 1");
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");   /* reactivation revives nothing */
	crypto_free_wiped(refresh);
	/* a code of the deactivation's own second is dead too (docs/decisions.md
	 * "Reactivation revives nothing"): move the cut-off a second back instead of waiting */
	exec_sql("UPDATE users SET tokens_valid_after = tokens_valid_after - 1000");
	refresh = signed_in();
	exec_sql("UPDATE refresh_tokens SET expires_at = 0 WHERE used_at IS NULL");
	in = refresh_request(refresh);
	ck_assert_str_eq(exchange(&in), "refresh_token_expired");
	in.refresh_token = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");
	crypto_free_wiped(refresh);
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
	req.client.form_client_id = fx.other;                /* not the token's client */
	req.token = refresh;
	ck_assert_ptr_null(revoke_with(&req));
	in = refresh_request(refresh);
	ck_assert_ptr_null(exchange(&in));                  /* still good */
	crypto_free_wiped(refresh);
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
	req.client.secret = "wrong";
	ck_assert_str_eq(revoke_with(&req), "invalid_params");   /* Basic and form disagree */
	req.client.form_client_id = NULL;
	ck_assert_str_eq(revoke_with(&req), "invalid_client_credentials");
	crypto_free_wiped(refresh);
}
END_TEST

/* ---- OpenID Connect (docs/signin.md §"OpenID Connect") ---- */

/* The claims of a token the ring verifies as typ (caller decrefs). */
static json_t *claims_of(enum jwt_typ typ, const char *token)
{
	json_t *c;

	ck_assert_ptr_nonnull(token);
	c = keyring_verify(fx.srv.keys, typ, token, strlen(token), NULL);
	ck_assert_ptr_nonnull(c);
	return c;
}

static const char *str(const json_t *claims, const char *name)
{
	return json_string_value(json_object_get(claims, name));
}

/* The alg of a compact JWS's header, in a static buffer. */
static const char *header_alg(const char *token)
{
	static char alg[16];
	size_t len;
	unsigned char *raw = b64url_decode_any(token, strcspn(token, "."), &len);
	json_t *h = json_loadb((const char *)raw, len, 0, NULL);

	ck_assert_ptr_nonnull(h);
	snprintf(alg, sizeof alg, "%s", str(h, "alg"));
	json_decref(h);
	free(raw);
	return alg;
}

/* Whether the access token's jti is revoked. */
static bool access_revoked(const char *token)
{
	json_t *c = claims_of(JWT_TYP_ACCESS, token);
	struct sync_result r;
	struct store_stamp stamp;
	bool revoked;

	store_token_is_revoked(fx.srv.store, str(c, "jti"), &revoked, &stamp, sync_completion(&r));
	ck_assert(r.done && !r.failed);
	json_decref(c);
	return revoked;
}

/* fx.user with an email, a picture and the role clerk holding users:read. */
static void user_with_role(void)
{
	exec_sql("INSERT INTO roles (id, project_id, code, name, created_at, updated_at)"
	         " VALUES ('role1', %Q, 'clerk', 'Clerk', 1, 1)", fx.p.project_id);
	exec_sql("INSERT INTO role_permissions (role_id, permission_id) SELECT 'role1', pm.id"
	         " FROM permissions pm JOIN resources r ON r.id = pm.resource_id"
	         " WHERE r.project_id = %Q AND r.code = 'users' AND pm.code = 'read'", fx.p.project_id);
	exec_sql("UPDATE users SET role_id = 'role1', email = 'u@example.com',"
	         " avatar_url = 'https://img.example/u.png', updated_at = 5000 WHERE id = %Q", fx.user);
}

/* A password sign-in's code asking for openid profile roles: the ID token
 * (RS256, every claim), the granted scope, auth_time in the access token;
 * then its refresh: a new ID token, without the nonce. */
START_TEST(test_oidc_code_and_refresh)
{
	char *code, *refresh, at_hash[ID_TOKEN_AT_HASH_LEN + 1];
	struct grant_request in;
	json_t *id, *access, *perms;

	user_with_role();
	check_sql(sqlite_of(fx.srv.store)->db,
	          "INSERT INTO sessions (id, secret_hash, project_id, user_id,"
	          " auth_time, created_at, expires_at) VALUES ('sid-1', 'h', %Q, %Q, 1, 1, %lld)",
	          fx.p.project_id, fx.user, (long long)now_ms() + 60000);
	code = insert_code((struct new_code){
		.scope = "openid profile roles", .nonce = "n-0S6_WzA2Mj", .auth_time = 1700000000500,
		.session_id = "sid-1" });
	in = code_request(code);
	ck_assert_ptr_null(exchange(&in));
	ck_assert_str_eq(fx.out.scope, "openid profile roles users:read");
	access = claims_of(JWT_TYP_ACCESS, fx.out.access_token);
	ck_assert_str_eq(str(access, "scope"), "openid profile roles users:read");
	ck_assert_int_eq(json_integer_value(json_object_get(access, "auth_time")), 1700000000);
	json_decref(access);

	id = claims_of(JWT_TYP_ID, fx.out.id_token);
	ck_assert_ptr_null(keyring_verify(fx.srv.keys, JWT_TYP_ID, fx.out.access_token,
	                                  strlen(fx.out.access_token), NULL));
	ck_assert_str_eq(str(id, "iss"), kf.cfg.issuer);
	ck_assert_str_eq(str(id, "sub"), fx.user);
	ck_assert_str_eq(str(id, "aud"), fx.app);
	ck_assert_int_eq(json_integer_value(json_object_get(id, "exp")) -
	                 json_integer_value(json_object_get(id, "iat")), kf.cfg.id_token_ttl_s);
	ck_assert_int_eq(json_integer_value(json_object_get(id, "auth_time")), 1700000000);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(id, "amr"), 0)), "pwd");
	ck_assert_str_eq(str(id, "nonce"), "n-0S6_WzA2Mj");
	ck_assert_str_eq(str(id, "sid"), "sid-1");
	id_token_at_hash(fx.out.access_token, at_hash);
	ck_assert_str_eq(str(id, "at_hash"), at_hash);
	ck_assert_str_eq(str(id, "name"), "U");
	ck_assert_str_eq(str(id, "preferred_username"), "u@example.com");
	ck_assert_str_eq(str(id, "picture"), "https://img.example/u.png");
	ck_assert_int_eq(json_integer_value(json_object_get(id, "updated_at")), 5);
	ck_assert_ptr_null(json_object_get(id, "email"));   /* email was not asked for */
	ck_assert_str_eq(str(id, "role"), "clerk");
	perms = json_object_get(id, "permissions");
	ck_assert_uint_eq(json_array_size(perms), 1);
	ck_assert_str_eq(json_string_value(json_array_get(perms, 0)), "users:read");
	json_decref(id);

	refresh = xstrdup(fx.out.refresh_token);
	in = refresh_request(refresh);
	ck_assert_ptr_null(exchange(&in));
	ck_assert_str_eq(fx.out.scope, "openid profile roles users:read");
	id = claims_of(JWT_TYP_ID, fx.out.id_token);
	ck_assert_ptr_null(json_object_get(id, "nonce"));
	ck_assert_str_eq(str(id, "sid"), "sid-1");
	ck_assert_int_eq(json_integer_value(json_object_get(id, "auth_time")), 1700000000);
	id_token_at_hash(fx.out.access_token, at_hash);
	ck_assert_str_eq(str(id, "at_hash"), at_hash);
	json_decref(id);
	crypto_free_wiped(code);
	crypto_free_wiped(refresh);
}
END_TEST

/* A plain OAuth code: no ID token, the scope as before; scopes without
 * openid count for nothing; an ES256 client's ID token; a BYOU sign-in (no
 * session): no amr, no sid. */
START_TEST(test_oidc_variants)
{
	char *code = insert_code((struct new_code){ .auth_time = 1700000000000 });
	struct grant_request in = code_request(code);
	json_t *c;

	ck_assert_ptr_null(exchange(&in));
	ck_assert_ptr_null(fx.out.id_token);
	ck_assert_str_eq(fx.out.scope, "");
	c = claims_of(JWT_TYP_ACCESS, fx.out.access_token);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "auth_time")), 1700000000);
	json_decref(c);
	crypto_free_wiped(code);

	code = insert_code((struct new_code){ .scope = "profile email" });
	in = code_request(code);
	ck_assert_ptr_null(exchange(&in));
	ck_assert_ptr_null(fx.out.id_token);
	ck_assert_str_eq(fx.out.scope, "");
	crypto_free_wiped(code);

	exec_sql("UPDATE clients SET id_token_signed_response_alg = 'ES256' WHERE id = %Q", fx.app);
	code = insert_code((struct new_code){ .scope = "openid email", .auth_time = 1 });
	in = code_request(code);
	ck_assert_ptr_null(exchange(&in));
	ck_assert_str_eq(fx.out.scope, "openid email");
	ck_assert_ptr_nonnull(fx.out.id_token);
	ck_assert_str_eq(header_alg(fx.out.id_token), "ES256");
	c = claims_of(JWT_TYP_ID, fx.out.id_token);
	ck_assert_ptr_null(json_object_get(c, "amr"));
	ck_assert_ptr_null(json_object_get(c, "sid"));
	ck_assert_ptr_null(json_object_get(c, "nonce"));
	ck_assert_ptr_null(json_object_get(c, "email"));   /* the user has none */
	json_decref(c);
	crypto_free_wiped(code);
}
END_TEST

/* ---- confidential clients (docs/tokens.md §"Client authentication") ---- */

#define APP_SECRET "app-secret-app-secret-app-secret-app-secre"

static void app_confidential(const char *method)
{
	char hash[SECRET_HASH_LEN + 1];

	crypto_hash_secret(APP_SECRET, strlen(APP_SECRET), hash);
	exec_sql("UPDATE clients SET token_endpoint_auth_method = %Q, secret_hash = %Q WHERE id = %Q",
	         method, hash, fx.app);
}

/* A confidential client proves its secret on the code and refresh grants,
 * Basic or client_secret_post whichever its method; a public client that
 * sends a secret must send its own. */
START_TEST(test_confidential_client)
{
	char *code = new_code(60000), *refresh;
	struct grant_request in = code_request(code);

	app_confidential("client_secret_post");
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.secret = "wrong";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.secret = APP_SECRET;   /* as the form's client_secret */
	ck_assert_ptr_null(exchange(&in));
	refresh = xstrdup(fx.out.refresh_token);
	in = refresh_request(refresh);
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.basic_client_id = fx.app;   /* Basic, for a client_secret_post client */
	in.client.secret = APP_SECRET;
	ck_assert_ptr_null(exchange(&in));
	crypto_free_wiped(refresh);
	crypto_free_wiped(code);

	/* client_credentials takes the form's secret too */
	in = (struct grant_request){ .grant_type = "client_credentials",
	                             .client.form_client_id = fx.app, .client.secret = APP_SECRET };
	ck_assert_ptr_null(exchange(&in));
	in.client.secret = NULL;
	ck_assert_str_eq(exchange(&in), "invalid_params");

	/* a public client's secret is checked all the same */
	code = new_code(60000);
	app_confidential("none");
	in = code_request(code);
	in.client.secret = "wrong";
	ck_assert_str_eq(exchange(&in), "invalid_client_credentials");
	in.client.secret = NULL;
	ck_assert_ptr_null(exchange(&in));
	crypto_free_wiped(code);
}
END_TEST

/* Both revocation endpoints: a confidential client without its secret is
 * refused (before anything is revoked); current/revoke of an unknown
 * client without a secret is still no error. */
START_TEST(test_confidential_revocation)
{
	char *refresh = signed_in();
	struct revoke_request req = { .token = refresh, .client.form_client_id = fx.app };
	struct grant_request in;

	app_confidential("client_secret_basic");
	ck_assert_str_eq(revoke_with(&req), "invalid_client_credentials");
	req.current = true;
	ck_assert_str_eq(revoke_with(&req), "invalid_client_credentials");
	req.client.secret = "wrong";
	ck_assert_str_eq(revoke_with(&req), "invalid_client_credentials");
	in = refresh_request(refresh);
	in.client.secret = APP_SECRET;
	ck_assert_ptr_null(exchange(&in));                     /* nothing was revoked */
	crypto_free_wiped(refresh);
	refresh = xstrdup(fx.out.refresh_token);
	req = (struct revoke_request){ .token = refresh, .current = true,
	                               .client.form_client_id = "nobody" };
	ck_assert_ptr_null(revoke_with(&req));
	req.client.form_client_id = fx.app;
	req.client.secret = APP_SECRET;
	ck_assert_ptr_null(revoke_with(&req));
	in = refresh_request(refresh);
	in.client.secret = APP_SECRET;
	ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	crypto_free_wiped(refresh);
}
END_TEST

/* ---- the refresh grace (docs/tokens.md §"Refresh grace") ---- */

/* A refresh of token, the new refresh token into *next (caller frees):
 * NULL on success, else the error's code. */
static const char *use_refresh(const char *token, char **next)
{
	struct grant_request in = refresh_request(token);
	const char *err = exchange(&in);

	*next = err ? NULL : xstrdup(fx.out.refresh_token);
	return err;
}

static const char *use_up(const char *token)
{
	char *next;
	const char *err = use_refresh(token, &next);

	free(next);
	return err;
}

/* Within the window the rotated token works once more, and takes back the
 * unused successor (and its access token); a second repeat revokes the
 * sign-in. */
START_TEST(test_grace_once)
{
	char *t0 = signed_in(), *t1, *t2, *a1, *a2;

	kf.cfg.refresh_reuse_grace_s = 5;
	ck_assert_ptr_null(use_refresh(t0, &t1));
	a1 = xstrdup(fx.out.access_token);
	ck_assert_ptr_null(use_refresh(t0, &t2));               /* the repeat */
	ck_assert_str_ne(t2, t1);
	a2 = xstrdup(fx.out.access_token);
	ck_assert_str_eq(use_up(t1), "invalid_refresh_token");   /* taken back */
	ck_assert(access_revoked(a1));                           /* its access token too */
	ck_assert(!access_revoked(a2));
	ck_assert_str_eq(use_up(t0), "refresh_token_already_used");   /* a second repeat */
	ck_assert_str_eq(use_up(t2), "invalid_refresh_token");        /* the sign-in is revoked */
	ck_assert(access_revoked(a2));
	free(t0);
	free(t1);
	free(t2);
	free(a1);
	free(a2);
}
END_TEST

/* A repeat after the successor was used, after the window, by another
 * client, or with grace 0: reuse detection as ever. */
START_TEST(test_grace_refused)
{
	char *t0 = signed_in(), *t1, *t2;

	kf.cfg.refresh_reuse_grace_s = 5;
	ck_assert_ptr_null(use_refresh(t0, &t1));
	ck_assert_ptr_null(use_refresh(t1, &t2));
	ck_assert_str_eq(use_up(t0), "refresh_token_already_used");
	ck_assert_str_eq(use_up(t2), "invalid_refresh_token");
	free(t0);
	free(t1);
	free(t2);

	t0 = signed_in();
	ck_assert_ptr_null(use_refresh(t0, &t1));
	exec_sql("UPDATE refresh_tokens SET used_at = used_at - 5001 WHERE used_at IS NOT NULL");
	ck_assert_str_eq(use_up(t0), "refresh_token_already_used");
	ck_assert_str_eq(use_up(t1), "invalid_refresh_token");
	free(t0);
	free(t1);

	t0 = signed_in();
	ck_assert_ptr_null(use_refresh(t0, &t1));
	{
		struct grant_request in = refresh_request(t0);

		in.client.form_client_id = fx.other;
		ck_assert_str_eq(exchange(&in), "invalid_refresh_token");
	}
	kf.cfg.refresh_reuse_grace_s = 0;
	ck_assert_str_eq(use_up(t0), "refresh_token_already_used");
	ck_assert_str_eq(use_up(t1), "invalid_refresh_token");
	free(t0);
	free(t1);
}
END_TEST

/* issue24.15: a rotation this node answered with an error (it may have
 * committed: its answer was lost) may be retried once as a repeat within
 * the grace, with grace 0 too; a second retry is reuse as ever. */
START_TEST(test_untold_rotation_retried)
{
	char *t0 = signed_in(), *t1, *t2, *t3;
	char h0[SECRET_HASH_LEN + 1];

	fx.srv.untold = untold_new();
	ck_assert_ptr_null(use_refresh(t0, &t1));   /* committed; the client never saw t1 */
	crypto_hash_secret(t0, strlen(t0), h0);
	untold_note(fx.srv.untold, h0, mono_us() / 1000);
	ck_assert_ptr_null(use_refresh(t0, &t2));   /* the retry: no reuse */
	ck_assert_str_eq(use_up(t1), "invalid_refresh_token");       /* taken back */
	ck_assert_ptr_null(use_refresh(t2, &t3));                    /* the sign-in goes on */
	ck_assert_str_eq(use_up(t0), "refresh_token_already_used");  /* a second retry */
	ck_assert_str_eq(use_up(t3), "invalid_refresh_token");
	untold_free(fx.srv.untold);
	fx.srv.untold = NULL;
	free(t0);
	free(t1);
	free(t2);
	free(t3);
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
	tcase_add_test(tc, test_oidc_code_and_refresh);
	tcase_add_test(tc, test_oidc_variants);
	tcase_add_test(tc, test_confidential_client);
	tcase_add_test(tc, test_confidential_revocation);
	tcase_add_test(tc, test_grace_once);
	tcase_add_test(tc, test_grace_refused);
	tcase_add_test(tc, test_untold_rotation_retried);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
