/*
 * ID tokens (id_token.c): the OIDC scopes, the claims each grants, at_hash
 * against known vectors, the issued token itself, and what the logout
 * endpoint accepts as an id_token_hint. The tokens here are signed by a
 * real key ring over a new store, so each refusal is of the one claim or
 * header the case changes.
 */
#include <check.h>
#include "check_suite.h"
#include "keyring_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b64url.h"
#include "config.h"
#include "id_token.h"
#include "jwt.h"
#include "keyring.h"
#include "store.h"

#define ISS "https://auth.example"

static struct keyring_fixture fx;

static void setup(void)
{
	keyring_fixture_open(&fx, "check_id_token");
}

static void teardown(void)
{
	keyring_fixture_close(&fx);
}

/* The verdict on payload signed RS256 as typ: 0 or -1, the hint released. */
static int hint_of(enum jwt_typ typ, const char *payload, struct id_token_hint *h)
{
	char *tok = keyring_sign(fx.ring, JWT_RS256, typ, payload, strlen(payload));
	int rc;

	ck_assert_ptr_nonnull(tok);
	rc = id_token_verify_hint(fx.ring, ISS, tok, h);
	free(tok);
	return rc;
}

static int verdict(enum jwt_typ typ, const char *payload)
{
	struct id_token_hint h;
	int rc = hint_of(typ, payload, &h);

	if (rc != 0) {
		ck_assert_ptr_null(h.sub);
		ck_assert_ptr_null(h.aud);
	}
	id_token_hint_release(&h);
	return rc;
}

START_TEST(test_hint_accepted)
{
	struct id_token_hint h;

	/* long expired: a hint is still good */
	ck_assert_int_eq(hint_of(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u1\",\"aud\":\"c1\","
	                                     "\"sid\":\"s1\",\"exp\":1,\"iat\":0}", &h), 0);
	ck_assert_str_eq(h.sub, "u1");
	ck_assert_str_eq(h.aud, "c1");
	ck_assert_str_eq(h.sid, "s1");
	id_token_hint_release(&h);
	ck_assert_ptr_null(h.sub);
	/* without sid (a BYOU sign-in), aud as an array of one */
	ck_assert_int_eq(hint_of(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u1\",\"aud\":[\"c1\"]}",
	                         &h), 0);
	ck_assert_str_eq(h.aud, "c1");
	ck_assert_ptr_null(h.sid);
	id_token_hint_release(&h);
}
END_TEST

START_TEST(test_hint_refused)
{
	struct id_token_hint h;

	/* an access token, a logout token */
	ck_assert_int_eq(verdict(JWT_TYP_ACCESS, "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":\"c\"}"),
	                 -1);
	ck_assert_int_eq(verdict(JWT_TYP_LOGOUT, "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":\"c\"}"),
	                 -1);
	/* another issuer, no sub, an empty sub, no aud, two audiences, a scope */
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"https://evil\",\"sub\":\"u\",\"aud\":\"c\"}"),
	                 -1);
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"aud\":\"c\"}"), -1);
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"\",\"aud\":\"c\"}"), -1);
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u\"}"), -1);
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":[\"a\",\"b\"]}"),
	                 -1);
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":\"c\","
	                                     "\"scope\":\"openid\"}"), -1);
	/* a sid that is not a string */
	ck_assert_int_eq(verdict(JWT_TYP_ID, "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":\"c\","
	                                     "\"sid\":7}"), -1);
	/* not a token at all, and none */
	ck_assert_int_eq(id_token_verify_hint(fx.ring, ISS, "a.b.c", &h), -1);
	ck_assert_int_eq(id_token_verify_hint(fx.ring, ISS, NULL, &h), -1);
}
END_TEST

/* A hint signed by a key the ring does not hold is refused. */
START_TEST(test_hint_foreign_key)
{
	char errbuf[128], *tok;
	struct jwt_key *k = jwt_key_generate(JWT_ES256, errbuf, sizeof errbuf);
	const char payload[] = "{\"iss\":\"" ISS "\",\"sub\":\"u\",\"aud\":\"c\"}";
	struct id_token_hint h;

	ck_assert_ptr_nonnull(k);
	tok = jwt_sign_payload(k, JWT_TYP_ID, payload, strlen(payload));
	ck_assert_int_eq(id_token_verify_hint(fx.ring, ISS, tok, &h), -1);
	free(tok);
	jwt_key_free(k);
}
END_TEST

/* ---- the issuing side ---- */

START_TEST(test_scopes)
{
	char text[ID_TOKEN_SCOPES_MAX], *granted;

	ck_assert_uint_eq(id_token_scopes_parse(NULL), 0);
	ck_assert_uint_eq(id_token_scopes_parse("roles  users:read openid x openids"),
	                  ID_TOKEN_SCOPE_OPENID | ID_TOKEN_SCOPE_ROLES);
	ck_assert_str_eq(id_token_scopes_text(id_token_scopes_parse("email roles profile openid"),
	                                      text), "openid profile email roles");
	ck_assert_str_eq(id_token_scopes_text(0, text), "");
	/* granted: the four in their order, only with openid */
	granted = id_token_scopes_granted("offline_access email openid");
	ck_assert_str_eq(granted, "openid email");
	free(granted);
	ck_assert_ptr_null(id_token_scopes_granted("profile email"));
	ck_assert_ptr_null(id_token_scopes_granted(""));
	ck_assert_ptr_null(id_token_scopes_granted(NULL));
}
END_TEST

/* OIDC Core §3.1.3.6: known vectors (Ping Identity's RS256 example, and
 * the oidc-token-hash package's). */
START_TEST(test_at_hash)
{
	char h[ID_TOKEN_AT_HASH_LEN + 1];

	id_token_at_hash("dNZX1hEZ9wBCzNL40Upu646bdzQA", h);
	ck_assert_str_eq(h, "wfgvmE9VxjAudsl9lc6TqA");
	id_token_at_hash("YmJiZTAwYmYtMzgyOC00NzhkLTkyOTItNjJjNDM3MGYzOWIy9sFhvH8K_x8UIHj1osisS57f5D"
	                 "duL-ar_qw5jl3lthwpMjm283aVMQXDmoqqqydDSqJfbhptzw8rUVwkuQbolw", h);
	ck_assert_str_eq(h, "x7vk7f6BvQj0jQHYFIk4ag");
}
END_TEST

static struct user_claims alice(void)
{
	return (struct user_claims){
		.found = true, .is_active = true, .display_name = "Alice", .email = "a@example.com",
		.email_verified = true, .external_user_id = "crm-1",
		.avatar_url = "https://img.example/a.png", .updated_at = 1700000000999,
		.role_code = "clerk",
	};
}

/* The claims of scopes for u, as compact JSON text (caller frees). */
static char *claims_of(const struct user_claims *u, unsigned scopes, const char *permissions)
{
	struct jbody_writer w;
	json_t *c;
	char *text;

	jbody_writer_init(&w, 16);
	id_token_user_claims(&w, u, scopes, permissions);
	text = jbody_writer_finish(&w, NULL);
	c = json_loads(text, JSON_REJECT_DUPLICATES, NULL);   /* well-formed, once each */
	ck_assert_ptr_nonnull(c);
	free(text);
	text = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(c);
	return text;
}

#define ASSERT_CLAIMS(u, scopes, permissions, want) do { \
	char *got_ = claims_of(u, scopes, permissions); \
	ck_assert_str_eq(got_, want); \
	free(got_); \
} while (0)

/* docs/signin.md §"ID tokens": each scope's claims, and a claim without a value left out. */
START_TEST(test_user_claims)
{
	struct user_claims u = alice();

	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_OPENID, "orders:read", "{}");
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_PROFILE, NULL,
	              "{\"name\":\"Alice\",\"picture\":\"https://img.example/a.png\","
	              "\"preferred_username\":\"a@example.com\",\"updated_at\":1700000000}");
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_EMAIL, NULL,
	              "{\"email\":\"a@example.com\",\"email_verified\":true}");
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_ROLES, "orders:read users:read",
	              "{\"permissions\":[\"orders:read\",\"users:read\"],\"role\":\"clerk\"}");
	/* a BYOU user: no email, no picture, no role, no permissions */
	u.email = NULL;
	u.avatar_url = NULL;
	u.role_code = NULL;
	u.email_verified = false;
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_PROFILE | ID_TOKEN_SCOPE_EMAIL | ID_TOKEN_SCOPE_ROLES, "",
	              "{\"name\":\"Alice\",\"preferred_username\":\"crm-1\","
	              "\"updated_at\":1700000000}");
	/* an unverified email, and nothing for preferred_username */
	u.email = "b@example.com";
	u.external_user_id = NULL;
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_EMAIL, NULL,
	              "{\"email\":\"b@example.com\",\"email_verified\":false}");
	u.email = NULL;
	ASSERT_CLAIMS(&u, ID_TOKEN_SCOPE_PROFILE, NULL, "{\"name\":\"Alice\",\"updated_at\":1700000000}");
}
END_TEST

/* The header of a compact JWS, decoded (caller decrefs). */
static json_t *header_of(const char *token)
{
	size_t len;
	unsigned char *raw = b64url_decode_any(token, strcspn(token, "."), &len);
	json_t *h = json_loadb((const char *)raw, len, 0, NULL);

	free(raw);
	ck_assert_ptr_nonnull(h);
	return h;
}

START_TEST(test_issue)
{
	const struct user_claims u = alice();
	struct id_token_request req = {
		.issuer = ISS, .user_id = "u1", .client_id = "c1", .alg = JWT_RS256, .ttl_s = 600,
		.auth_time = 1700000123, .nonce = "n-0", .session_id = "s1",
		.access_token = "dNZX1hEZ9wBCzNL40Upu646bdzQA",
		.scopes = ID_TOKEN_SCOPE_OPENID | ID_TOKEN_SCOPE_EMAIL, .user = &u,
	};
	char *tok = id_token_issue(fx.ring, &req);
	json_t *claims, *h;
	struct id_token_hint hint;

	ck_assert_ptr_nonnull(tok);
	h = header_of(tok);
	ck_assert_str_eq(json_string_value(json_object_get(h, "alg")), "RS256");
	ck_assert_str_eq(json_string_value(json_object_get(h, "typ")), "JWT");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(h, "kid")));
	json_decref(h);
	/* an ID token is no access token */
	ck_assert_ptr_null(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), NULL));
	claims = keyring_verify(fx.ring, JWT_TYP_ID, tok, strlen(tok), NULL);
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "iss")), ISS);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), "u1");
	ck_assert_str_eq(json_string_value(json_object_get(claims, "aud")), "c1");
	ck_assert_int_eq(json_integer_value(json_object_get(claims, "exp")) -
	                 json_integer_value(json_object_get(claims, "iat")), 600);
	ck_assert_int_eq(json_integer_value(json_object_get(claims, "auth_time")), 1700000123);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(claims, "amr"), 0)), "pwd");
	ck_assert_uint_eq(json_array_size(json_object_get(claims, "amr")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "nonce")), "n-0");
	ck_assert_str_eq(json_string_value(json_object_get(claims, "at_hash")),
	                 "wfgvmE9VxjAudsl9lc6TqA");
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sid")), "s1");
	ck_assert_str_eq(json_string_value(json_object_get(claims, "email")), "a@example.com");
	ck_assert_ptr_null(json_object_get(claims, "name"));   /* profile not granted */
	ck_assert_ptr_null(json_object_get(claims, "scope"));
	json_decref(claims);
	/* the logout endpoint takes it as a hint */
	ck_assert_int_eq(id_token_verify_hint(fx.ring, ISS, tok, &hint), 0);
	ck_assert_str_eq(hint.sid, "s1");
	id_token_hint_release(&hint);
	free(tok);

	/* a BYOU sign-in of an ES256 client, on a refresh: no amr, sid or nonce */
	req.alg = JWT_ES256;
	req.session_id = NULL;
	req.nonce = NULL;
	tok = id_token_issue(fx.ring, &req);
	h = header_of(tok);
	ck_assert_str_eq(json_string_value(json_object_get(h, "alg")), "ES256");
	json_decref(h);
	claims = keyring_verify(fx.ring, JWT_TYP_ID, tok, strlen(tok), NULL);
	ck_assert_ptr_nonnull(claims);
	ck_assert_ptr_null(json_object_get(claims, "amr"));
	ck_assert_ptr_null(json_object_get(claims, "sid"));
	ck_assert_ptr_null(json_object_get(claims, "nonce"));
	ck_assert_ptr_nonnull(json_object_get(claims, "at_hash"));
	json_decref(claims);
	free(tok);
}
END_TEST

static Suite *id_token_suite(void)
{
	Suite *s = suite_create("id_token");
	TCase *tc = check_tcase("id_token", setup, teardown);

	tcase_add_test(tc, test_hint_accepted);
	tcase_add_test(tc, test_hint_refused);
	tcase_add_test(tc, test_hint_foreign_key);
	tcase_add_test(tc, test_scopes);
	tcase_add_test(tc, test_at_hash);
	tcase_add_test(tc, test_user_claims);
	tcase_add_test(tc, test_issue);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(id_token_suite()));
}
