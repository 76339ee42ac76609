/*
 * Signing keys: the schedule (key_schedule.c: which key signs when, how
 * long each stays published, retirement), sealing under the key-encryption
 * key (crypto_seal: the round trip, a wrong key, the kid as associated
 * data), and the key ring over a real store (keyring.c: a new store's keys,
 * the KEK file's checks, rotation, a retirement seen by a refresh, RS256
 * and the typ of each token).
 */
#include <check.h>
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "crypto.h"
#include "jwt.h"
#include "key_schedule.h"
#include "keyring.h"
#include "store.h"
#include "store_keys.h"
#include "util.h"

/* ---- the schedule ---- */

static struct key_row row(const char *kid, enum jwt_alg alg, int64_t activates_at)
{
	struct key_row k = { .alg = alg, .created_at = activates_at,
	                     .activates_at = activates_at, .publish_until = KEY_NO_BOUND };

	snprintf(k.kid, sizeof k.kid, "%s", kid);
	return k;
}

START_TEST(test_signer_by_clock)
{
	struct key_row r[3] = {
		row("k1", JWT_ES256, 0), row("k2", JWT_ES256, 1000), row("r1", JWT_RS256, 0),
	};

	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 500), 0);
	ck_assert_int_eq(key_schedule_state(r, 3, 1, 500), KEY_PENDING);
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 1000), 1);
	ck_assert_int_eq(key_schedule_state(r, 3, 0, 1000), KEY_SUPERSEDED);
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_RS256, 1000), 2);
	/* a retired key never signs: the one before it goes on */
	r[1].retired_at = 1200;
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 1500), 0);
	ck_assert_int_eq(key_schedule_state(r, 3, 1, 1500), KEY_RETIRED);
	/* the active key retired before the next one activates: that one signs at once */
	r[1].retired_at = 0;
	r[0].retired_at = 600;
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 700), 1);
	ck_assert_int_eq(key_schedule_state(r, 3, 1, 700), KEY_ACTIVE);
	/* nothing of an algorithm without keys */
	r[2].retired_at = 1;
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_RS256, 700), -1);
	ck_assert_str_eq(key_state_name(KEY_EXPIRED), "expired");
}
END_TEST

/* A key taken over from is published until the new key's activation + the
 * lifetime + the margin, then expires; the newest has no bound. */
START_TEST(test_publication_bound)
{
	struct key_row r[3] = {
		row("k1", JWT_ES256, 0), row("k2", JWT_ES256, 1000), row("r1", JWT_RS256, 0),
	};
	int64_t bound = 1000 + 900 + KEY_PUBLISH_MARGIN_MS;

	key_schedule_bounds(r, 3, JWT_ES256, 500, 900);
	ck_assert_int_eq(r[0].publish_until, bound);
	ck_assert_int_eq(r[1].publish_until, KEY_NO_BOUND);
	ck_assert_int_eq(r[2].publish_until, KEY_NO_BOUND);   /* another alg: untouched */
	ck_assert(key_schedule_published(&r[0], bound - 1));
	ck_assert(!key_schedule_published(&r[0], bound));
	ck_assert_int_eq(key_schedule_state(r, 3, 0, bound), KEY_EXPIRED);
	ck_assert_uint_eq(key_schedule_count(r, 3, JWT_ES256, bound - 1), 2);
	ck_assert_uint_eq(key_schedule_count(r, 3, JWT_ES256, bound), 1);

	/* a bound already promised never shrinks (a shorter lifetime later) */
	key_schedule_bounds(r, 3, JWT_ES256, 500, 10);
	ck_assert_int_eq(r[0].publish_until, bound);

	/* the key that took over retired before it signed: the old one signs
	 * again and loses its bound */
	r[1].retired_at = 600;
	key_schedule_bounds(r, 3, JWT_ES256, 600, 900);
	ck_assert_int_eq(r[0].publish_until, KEY_NO_BOUND);
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 5000), 0);

	/* an expired key is never brought back */
	r[0].publish_until = 100;
	key_schedule_bounds(r, 3, JWT_ES256, 600, 900);
	ck_assert_int_eq(r[0].publish_until, 100);
	ck_assert_int_eq(key_schedule_signer(r, 3, JWT_ES256, 600), -1);
}
END_TEST

/* ---- sealing ---- */

START_TEST(test_seal_round_trip)
{
	unsigned char kek[CRYPTO_AEAD_KEY_BYTES], other[CRYPTO_AEAD_KEY_BYTES];
	const unsigned char secret[] = "a private key, in DER";
	size_t sealed_len, n, open_len;
	unsigned char *sealed, *opened, *again;

	crypto_random(kek, sizeof kek);
	crypto_random(other, sizeof other);
	sealed = crypto_seal(kek, "kid-1", secret, sizeof secret, &sealed_len);
	ck_assert_uint_eq(sealed_len, sizeof secret + CRYPTO_AEAD_OVERHEAD);
	ck_assert_ptr_null(memmem(sealed, sealed_len, "private", 7));
	opened = crypto_open(kek, "kid-1", sealed, sealed_len, &open_len);
	ck_assert_ptr_nonnull(opened);
	ck_assert_uint_eq(open_len, sizeof secret);
	ck_assert_mem_eq(opened, secret, sizeof secret);
	free(opened);

	/* a fresh nonce each time */
	again = crypto_seal(kek, "kid-1", secret, sizeof secret, &n);
	ck_assert(memcmp(again, sealed, sealed_len) != 0);
	free(again);

	/* another key, another kid (the sealed key moved to another row), one
	 * flipped byte anywhere, a cut value: nothing opens */
	ck_assert_ptr_null(crypto_open(other, "kid-1", sealed, sealed_len, &n));
	ck_assert_ptr_null(crypto_open(kek, "kid-2", sealed, sealed_len, &n));
	for (size_t i = 0; i < sealed_len; i++) {
		sealed[i] ^= 0x01;
		ck_assert_ptr_null(crypto_open(kek, "kid-1", sealed, sealed_len, &n));
		sealed[i] ^= 0x01;
	}
	ck_assert_ptr_null(crypto_open(kek, "kid-1", sealed, sealed_len - 1, &n));
	ck_assert_ptr_null(crypto_open(kek, "kid-1", sealed, CRYPTO_AEAD_OVERHEAD - 1, &n));
	free(sealed);
}
END_TEST

/* ---- RS256 and the typ of each token ---- */

static const struct jwt_key *the_only_key;

static const struct jwt_key *lookup_only(void *arg, const char *kid)
{
	(void)arg;
	(void)kid;
	return the_only_key;
}

START_TEST(test_rs256_and_typ)
{
	char errbuf[256] = "", *tok;
	struct jwt_key *rsa = jwt_key_generate(JWT_RS256, errbuf, sizeof errbuf), *back;
	unsigned char *der;
	size_t der_len;
	json_t *claims, *jwk;
	const char payload[] = "{\"sub\":\"u1\"}";

	ck_assert_msg(rsa != NULL, "%s", errbuf);
	ck_assert_int_eq(jwt_key_alg(rsa), JWT_RS256);
	jwk = jwt_key_jwk(rsa);
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "kty")), "RSA");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "alg")), "RS256");
	ck_assert_str_eq(json_string_value(json_object_get(jwk, "e")), "AQAB");
	ck_assert_ptr_null(json_object_get(jwk, "d"));
	json_decref(jwk);

	/* the DER round trip keeps the key (and so the kid, its thumbprint) */
	ck_assert_int_eq(jwt_key_to_der(rsa, &der, &der_len), 0);
	back = jwt_key_from_der(der, der_len, errbuf, sizeof errbuf);
	ck_assert_msg(back != NULL, "%s", errbuf);
	ck_assert_str_eq(jwt_key_kid(back), jwt_key_kid(rsa));
	OPENSSL_cleanse(der, der_len);
	free(der);

	/* an ID token (typ JWT) verifies as one, and as nothing else */
	tok = jwt_sign_payload(rsa, JWT_TYP_ID, payload, strlen(payload));
	ck_assert_ptr_nonnull(tok);
	ck_assert_uint_gt(strlen(tok), 342);   /* a 256-byte signature */
	the_only_key = back;
	claims = jwt_verify_with(lookup_only, NULL, JWT_TYP_ID, tok, strlen(tok));
	ck_assert_ptr_nonnull(claims);
	json_decref(claims);
	ck_assert_ptr_null(jwt_verify_with(lookup_only, NULL, JWT_TYP_LOGOUT, tok, strlen(tok)));
	ck_assert_ptr_null(jwt_verify(back, tok, strlen(tok)));   /* jwt_verify: at+jwt only */
	free(tok);
	tok = jwt_sign_payload(rsa, JWT_TYP_ACCESS, payload, strlen(payload));
	claims = jwt_verify(back, tok, strlen(tok));
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), "u1");
	json_decref(claims);
	/* one changed character of the signature */
	tok[strlen(tok) - 5] = tok[strlen(tok) - 5] == 'A' ? 'B' : 'A';
	ck_assert_ptr_null(jwt_verify(back, tok, strlen(tok)));
	free(tok);

	/* neither garbage nor a small RSA key is a signing key */
	ck_assert_ptr_null(jwt_key_from_der((const unsigned char *)"nope", 4, errbuf,
	                                    sizeof errbuf));
	{
		EVP_PKEY *small = EVP_RSA_gen(1024);
		unsigned char *p = NULL;
		int n = i2d_PrivateKey(small, &p);

		ck_assert_int_gt(n, 0);
		ck_assert_ptr_null(jwt_key_from_der(p, (size_t)n, errbuf, sizeof errbuf));
		OPENSSL_free(p);
		EVP_PKEY_free(small);
	}
	jwt_key_free(back);
	jwt_key_free(rsa);
}
END_TEST

/* ---- the ring over a store ---- */

static struct keyring_fixture fx;

static void ring_setup(void)
{
	keyring_fixture_open(&fx, "check_keys");
}

static void ring_teardown(void)
{
	keyring_fixture_close(&fx);
}

/* The keys of the store, as `key list` reads them. */
static struct key_rows list(void)
{
	struct key_rows all;
	struct api_error err;

	ck_assert_int_eq(store_keys_list(fx.st, &all, &err), 0);
	return all;
}

static struct keyring *reopen(char *errbuf, size_t errlen)
{
	return keyring_open(&fx.cfg, fx.st, errbuf, errlen);
}

/* A new store: the key file's P-256 key with its kid, and an RSA key; the
 * KEK file is made, 32 bytes, 0600; each alg signs its typ of token. */
START_TEST(test_ring_new_store)
{
	struct key_rows all = list();
	struct jwt_key *file_key = NULL;
	char errbuf[256], *tok;
	struct keyring_verdict v;
	struct stat sb;
	json_t *claims, *jwks;
	const char payload[] = "{\"sub\":\"s\"}";

	ck_assert_uint_eq(all.count, 2);
	ck_assert_int_eq(jwt_key_load(fx.key, &file_key, errbuf, sizeof errbuf), 0);
	ck_assert_ptr_nonnull(keyring_find(fx.ring, jwt_key_kid(file_key)));
	ck_assert_int_eq(stat(fx.kek, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_int_eq(sb.st_size, KEYRING_KEK_BYTES);

	tok = keyring_sign(fx.ring, JWT_ES256, JWT_TYP_ACCESS, payload, strlen(payload));
	claims = keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v);
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_eq(v.kid, jwt_key_kid(file_key));
	json_decref(claims);
	ck_assert_ptr_null(keyring_verify(fx.ring, JWT_TYP_ID, tok, strlen(tok), NULL));
	free(tok);
	tok = keyring_sign(fx.ring, JWT_RS256, JWT_TYP_ID, payload, strlen(payload));
	claims = keyring_verify(fx.ring, JWT_TYP_ID, tok, strlen(tok), &v);
	ck_assert_ptr_nonnull(claims);
	ck_assert_str_ne(v.kid, jwt_key_kid(file_key));
	json_decref(claims);
	free(tok);

	jwks = keyring_jwks(fx.ring);
	ck_assert_uint_eq(json_array_size(json_object_get(jwks, "keys")), 2);
	json_decref(jwks);

	/* opened again: the same keys, nothing added */
	keyring_free(fx.ring);
	fx.ring = reopen(errbuf, sizeof errbuf);
	ck_assert_msg(fx.ring != NULL, "%s", errbuf);
	store_keys_rows_release(&all);
	all = list();
	ck_assert_uint_eq(all.count, 2);
	store_keys_rows_release(&all);
	jwt_key_free(file_key);
}
END_TEST

/* The KEK file: readable by others, of another size, or another key: the
 * ring does not open, and says which file. */
START_TEST(test_ring_kek_refused)
{
	char errbuf[256] = "";
	FILE *f;

	keyring_free(fx.ring);
	fx.ring = NULL;
	ck_assert_int_eq(chmod(fx.kek, 0640), 0);
	ck_assert_ptr_null(reopen(errbuf, sizeof errbuf));
	ck_assert_msg(strstr(errbuf, fx.kek) && strstr(errbuf, "accessible to others"), "%s",
	              errbuf);
	ck_assert_int_eq(chmod(fx.kek, 0600), 0);

	f = fopen(fx.kek, "w");
	ck_assert_ptr_nonnull(f);
	fputs("short", f);
	fclose(f);
	ck_assert_ptr_null(reopen(errbuf, sizeof errbuf));
	ck_assert_msg(strstr(errbuf, "must hold 32 bytes"), "%s", errbuf);

	f = fopen(fx.kek, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0123456789abcdef0123456789abcdef", f);
	fclose(f);
	ck_assert_ptr_null(reopen(errbuf, sizeof errbuf));
	ck_assert_msg(strstr(errbuf, "does not open") && strstr(errbuf, fx.kek), "%s", errbuf);
}
END_TEST

/* A sealed key moved to another row does not open there: the kid is the
 * associated data. */
START_TEST(test_ring_swapped_ciphertext)
{
	char errbuf[256] = "";

	keyring_free(fx.ring);
	fx.ring = NULL;
	ck_assert_int_eq(sqlite3_exec(sqlite_of(fx.st)->db,
		"UPDATE signing_keys SET private_key = (SELECT private_key FROM signing_keys s"
		" WHERE s.kid <> signing_keys.kid)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_ptr_null(reopen(errbuf, sizeof errbuf));
	ck_assert_msg(strstr(errbuf, "does not open"), "%s", errbuf);
}
END_TEST

/* Rotation with the default delay: the new key is published at once and
 * signs an hour later; the old one keeps signing and gets its bound. */
START_TEST(test_ring_rotate_delayed)
{
	enum jwt_alg alg = JWT_ES256;
	struct key_row added;
	struct api_error err;
	struct key_rows all;
	json_t *jwks;
	char *tok;
	struct keyring_verdict v;
	const char payload[] = "{}";
	int64_t now = now_ms();

	tok = keyring_sign(fx.ring, JWT_ES256, JWT_TYP_ACCESS, payload, 2);
	json_decref(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v));
	free(tok);
	ck_assert_int_eq(keyring_rotate(fx.ring, fx.st, &alg, 1, &added, &err), 0);
	ck_assert_ptr_null(added.sealed);
	ck_assert_int_ge(added.activates_at, now + 3600 * 1000LL);

	all = list();
	ck_assert_uint_eq(all.count, 3);
	for (size_t i = 0; i < all.count; i++) {
		enum key_state s = key_schedule_state(all.rows, all.count, i, now_ms());

		if (!strcmp(all.rows[i].kid, added.kid)) {
			ck_assert_int_eq(s, KEY_PENDING);
		} else if (!strcmp(all.rows[i].kid, v.kid)) {
			ck_assert_int_eq(s, KEY_ACTIVE);
			ck_assert_int_eq(all.rows[i].publish_until,
			                 added.activates_at + keyring_lifetime_ms(&fx.cfg) +
			                 KEY_PUBLISH_MARGIN_MS);
		}
	}
	store_keys_rows_release(&all);

	/* the ring in memory sees it after a (forced) refresh: published, not signing */
	{
		struct keyring_refresh r = { 0 };
		struct sync_result done;

		keyring_refresh(&r, fx.ring, fx.st, true, sync_completion(&done));
		ck_assert(done.done && !done.failed);
		keyring_refresh_release(&r);
	}
	ck_assert_ptr_nonnull(keyring_find(fx.ring, added.kid));
	jwks = keyring_jwks(fx.ring);
	ck_assert_uint_eq(json_array_size(json_object_get(jwks, "keys")), 3);
	json_decref(jwks);
	tok = keyring_sign(fx.ring, JWT_ES256, JWT_TYP_ACCESS, payload, 2);
	json_decref(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v));
	ck_assert_str_ne(v.kid, added.kid);
	free(tok);
}
END_TEST

/* A retirement by another writer is seen by the next refresh after the
 * request read the store, without force; the last key is never retired. */
START_TEST(test_ring_retire_seen)
{
	enum jwt_alg alg = JWT_ES256;
	struct key_row added;
	struct api_error err;
	struct keyring_refresh r = { 0 };
	struct sync_result done;
	struct keyring_verdict v;
	char *tok;
	int64_t life = keyring_lifetime_ms(&fx.cfg);

	tok = keyring_sign(fx.ring, JWT_ES256, JWT_TYP_ACCESS, "{}", 2);
	json_decref(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v));
	ck_assert_int_eq(store_key_retire(fx.st, v.kid, now_ms(), life, &err), -1);
	ck_assert_str_eq(err.code, "invalid_params");
	ck_assert_int_eq(store_key_retire(fx.st, "no-such-kid", now_ms(), life, &err), 0);

	ck_assert_int_eq(keyring_rotate(fx.ring, fx.st, &alg, 1, &added, &err), 0);
	ck_assert_int_eq(store_key_retire(fx.st, v.kid, now_ms(), life, &err), 1);
	ck_assert_int_eq(store_key_retire(fx.st, v.kid, now_ms(), life, &err), 1);  /* again: no-op */
	ck_assert_ptr_nonnull(keyring_find(fx.ring, v.kid));   /* not read yet */
	keyring_refresh(&r, fx.ring, fx.st, false, sync_completion(&done));
	ck_assert(done.done && !done.failed);
	ck_assert_ptr_null(keyring_find(fx.ring, v.kid));
	ck_assert_ptr_null(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v));
	ck_assert(v.kid_unknown);
	free(tok);
	/* the pending key signs at once: the active one is gone */
	tok = keyring_sign(fx.ring, JWT_ES256, JWT_TYP_ACCESS, "{}", 2);
	json_decref(keyring_verify(fx.ring, JWT_TYP_ACCESS, tok, strlen(tok), &v));
	ck_assert_str_eq(v.kid, added.kid);
	free(tok);
	keyring_refresh_release(&r);
}
END_TEST

/* A superseded key stays published as long as the longest-lived of what
 * it signed: access, ID or logout tokens, whichever config makes longest. */
START_TEST(test_lifetime_longest)
{
	struct config cfg;

	config_init(&cfg);
	ck_assert_int_eq(keyring_lifetime_ms(&cfg), 3600 * 1000LL);   /* id_token_ttl_s */
	cfg.access_ttl_s = 7200;
	ck_assert_int_eq(keyring_lifetime_ms(&cfg), 7200 * 1000LL);
	cfg.access_ttl_s = 60;
	cfg.id_token_ttl_s = 30;
	ck_assert_int_eq(keyring_lifetime_ms(&cfg), LOGOUT_TOKEN_TTL_S * 1000LL);
	ck_assert_int_eq(LOGOUT_TOKEN_TTL_S, 120);
	cfg.id_token_ttl_s = 121;
	ck_assert_int_eq(keyring_lifetime_ms(&cfg), 121 * 1000LL);
	config_release(&cfg);
}
END_TEST

static Suite *keys_suite(void)
{
	Suite *s = suite_create("keys");
	TCase *tc = tcase_create("schedule");
	TCase *ring = check_tcase("ring", ring_setup, ring_teardown);

	tcase_add_test(tc, test_signer_by_clock);
	tcase_add_test(tc, test_publication_bound);
	tcase_add_test(tc, test_lifetime_longest);
	tcase_add_test(tc, test_seal_round_trip);
	tcase_add_test(tc, test_rs256_and_typ);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tcase_add_test(ring, test_ring_new_store);
	tcase_add_test(ring, test_ring_kek_refused);
	tcase_add_test(ring, test_ring_swapped_ciphertext);
	tcase_add_test(ring, test_ring_rotate_delayed);
	tcase_add_test(ring, test_ring_retire_seen);
	tcase_set_timeout(ring, 30);
	suite_add_tcase(s, ring);
	return s;
}

int main(void)
{
	return check_run(srunner_create(keys_suite()));
}
