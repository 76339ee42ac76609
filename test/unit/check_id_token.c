/*
 * ID tokens (id_token.c): what the logout endpoint accepts as an
 * id_token_hint. The tokens here are signed by a real key ring over a new
 * store, so each refusal is of the one claim or header the case changes.
 */
#include <check.h>
#include "check_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "id_token.h"
#include "jwt.h"
#include "keyring.h"
#include "store.h"

#define ISS "https://auth.example"

static struct {
	char dir[64], path[96];
	struct config cfg;
	struct store *st;
	struct keyring *ring;
} fx;

static void setup(void)
{
	char errbuf[256];

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_id_token.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.path, sizeof fx.path, "%s/e.db", fx.dir);
	config_init(&fx.cfg);
	fx.st = store_open(fx.path, false, errbuf, sizeof errbuf);
	ck_assert_msg(fx.st != NULL, "%s", errbuf);
	fx.ring = check_keyring(&fx.cfg, fx.st, fx.dir);
}

static void teardown(void)
{
	char p[128];

	keyring_free(fx.ring);
	store_close(fx.st);
	config_release(&fx.cfg);
	unlink(fx.path);
	snprintf(p, sizeof p, "%s/key.pem", fx.dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/kek", fx.dir);
	unlink(p);
	rmdir(fx.dir);
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

static Suite *id_token_suite(void)
{
	Suite *s = suite_create("id_token");
	TCase *tc = check_tcase("hint", setup, teardown);

	tcase_add_test(tc, test_hint_accepted);
	tcase_add_test(tc, test_hint_refused);
	tcase_add_test(tc, test_hint_foreign_key);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(id_token_suite()));
}
