/* issue30.passkey.1: the WebAuthn verifier (webauthn.h) against
 * registrations and assertions built here with libcbor and signed with
 * OpenSSL test keys (ES256 and RS256): the valid ones, then each check of
 * WebAuthn Level 2 §7.1 / §7.2 broken in turn, and hostile CBOR. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <cbor.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>

#include "b64url.h"
#include "check_suite.h"
#include "crypto.h"
#include "webauthn.h"

#define RP_ID "localhost"
#define ORIGIN "http://localhost:8080"
#define CHALLENGE "3q2-7wABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGho"

static EVP_PKEY *key_es256, *key_rs256, *key_other;

/* What a test ceremony is made of; each refusal case changes one field. */
struct ceremony {
	const char *type, *challenge, *origin, *rp_id, *fmt;
	uint8_t flags;
	uint32_t count;
	int alg; /* the COSE alg label written; the key is ES256's unless RS256 */
	int require_uv;
};

static struct ceremony base_create(void)
{
	return (struct ceremony){ "webauthn.create", CHALLENGE, ORIGIN, RP_ID, "none",
		                  WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_UV | WEBAUTHN_FLAG_AT,
		                  0, WEBAUTHN_ALG_ES256, 0 };
}

static struct ceremony base_get(void)
{
	return (struct ceremony){ "webauthn.get", CHALLENGE, ORIGIN, RP_ID, "none",
		                  WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_UV, 7, WEBAUTHN_ALG_ES256, 0 };
}

static const struct webauthn_expect expect = { CHALLENGE, ORIGIN, RP_ID, 0 };

/* A byte buffer the builders append to. */
struct buf {
	unsigned char b[8192];
	size_t n;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	ck_assert_uint_le(b->n + n, sizeof b->b);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void buf_add_cbor(struct buf *b, cbor_item_t *it)
{
	unsigned char *out = NULL;
	size_t size = 0, n = cbor_serialize_alloc(it, &out, &size);

	ck_assert_uint_gt(n, 0);
	buf_add(b, out, n);
	free(out);
	cbor_decref(&it);
}

static void map_put(cbor_item_t *map, cbor_item_t *k, cbor_item_t *v)
{
	ck_assert(cbor_map_add(map, (struct cbor_pair){ .key = cbor_move(k), .value = cbor_move(v) }));
}

static cbor_item_t *cbor_int(int v)
{
	return v >= 0 ? cbor_build_uint16((uint16_t)v) : cbor_build_negint16((uint16_t)(-1 - v));
}

static cbor_item_t *bn_bytes(EVP_PKEY *k, const char *name, int pad)
{
	unsigned char out[1024];
	BIGNUM *bn = NULL;
	int n;

	ck_assert(EVP_PKEY_get_bn_param(k, name, &bn));
	n = pad ? BN_bn2binpad(bn, out, pad) : BN_bn2bin(bn, out);
	BN_free(bn);
	return cbor_build_bytestring(out, (size_t)n);
}

/* The COSE key of k, labelled with alg. */
static void add_cose_key(struct buf *b, EVP_PKEY *k, int alg)
{
	int rsa = EVP_PKEY_is_a(k, "RSA");
	cbor_item_t *m = cbor_new_definite_map(rsa ? 4 : 5);

	map_put(m, cbor_int(1), cbor_int(rsa ? 3 : 2));
	map_put(m, cbor_int(3), cbor_int(alg));
	if (rsa) {
		map_put(m, cbor_int(-1), bn_bytes(k, OSSL_PKEY_PARAM_RSA_N, 0));
		map_put(m, cbor_int(-2), bn_bytes(k, OSSL_PKEY_PARAM_RSA_E, 0));
	} else {
		map_put(m, cbor_int(-1), cbor_int(1));
		map_put(m, cbor_int(-2), bn_bytes(k, OSSL_PKEY_PARAM_EC_PUB_X, 32));
		map_put(m, cbor_int(-3), bn_bytes(k, OSSL_PKEY_PARAM_EC_PUB_Y, 32));
	}
	buf_add_cbor(b, m);
}

static EVP_PKEY *key_of(const struct ceremony *c)
{
	return c->alg == WEBAUTHN_ALG_RS256 ? key_rs256 : key_es256;
}

static const unsigned char cred_id[] = "credential-id-0123456789";

/* authenticatorData (§6.1), with attested credential data when AT is set. */
static void add_auth_data(struct buf *b, const struct ceremony *c)
{
	unsigned char hash[32], cnt[4] = { (unsigned char)(c->count >> 24),
		                           (unsigned char)(c->count >> 16),
		                           (unsigned char)(c->count >> 8), (unsigned char)c->count };
	unsigned char aaguid[16] = { 0 }, idlen[2] = { 0, sizeof cred_id - 1 };

	crypto_sha256(c->rp_id, strlen(c->rp_id), hash);
	buf_add(b, hash, 32);
	buf_add(b, &c->flags, 1);
	buf_add(b, cnt, 4);
	if (c->flags & WEBAUTHN_FLAG_AT) {
		buf_add(b, aaguid, 16);
		buf_add(b, idlen, 2);
		buf_add(b, cred_id, sizeof cred_id - 1);
		add_cose_key(b, key_of(c), c->alg);
	}
}

static void add_client_data(struct buf *b, const struct ceremony *c)
{
	char s[512];
	int n = snprintf(s, sizeof s,
	                 "{\"type\":\"%s\",\"challenge\":\"%s\",\"origin\":\"%s\","
	                 "\"crossOrigin\":false}",
	                 c->type, c->challenge, c->origin);

	buf_add(b, s, (size_t)n);
}

static void add_attestation(struct buf *b, const struct ceremony *c)
{
	struct buf ad = { .n = 0 };
	cbor_item_t *m = cbor_new_definite_map(3);

	add_auth_data(&ad, c);
	map_put(m, cbor_build_string("fmt"), cbor_build_string(c->fmt));
	map_put(m, cbor_build_string("attStmt"), cbor_new_definite_map(0));
	map_put(m, cbor_build_string("authData"), cbor_build_bytestring(ad.b, ad.n));
	buf_add_cbor(b, m);
}

static enum webauthn_status do_register(const struct ceremony *c, struct webauthn_credential *cred)
{
	static struct buf cd, att;
	struct webauthn_expect ex = expect;

	cd.n = att.n = 0;
	add_client_data(&cd, c);
	add_attestation(&att, c);
	ex.require_uv = c->require_uv;
	return webauthn_register(&ex,
	                         &(struct webauthn_attestation){ cd.b, cd.n, att.b, att.n }, cred);
}

/* sig over ad || SHA-256(cd) by k */
static void sign(struct buf *sig, EVP_PKEY *k, const struct buf *ad, const struct buf *cd)
{
	struct buf msg = { .n = 0 };
	unsigned char h[32];
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t n = sizeof sig->b;

	buf_add(&msg, ad->b, ad->n);
	crypto_sha256(cd->b, cd->n, h);
	buf_add(&msg, h, 32);
	ck_assert(EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, k) == 1);
	ck_assert(EVP_DigestSign(md, sig->b, &n, msg.b, msg.n) == 1);
	sig->n = n;
	EVP_MD_CTX_free(md);
}

/* Registers a valid credential of alg's key, then asserts with c (signed
 * by signer, or the ceremony's own key) against stored_count. */
static enum webauthn_status do_assert(const struct ceremony *c, EVP_PKEY *signer,
                                      uint32_t stored, struct webauthn_use *use)
{
	struct ceremony reg = base_create();
	struct webauthn_credential cred;
	struct buf cd = { .n = 0 }, ad = { .n = 0 }, sig = { .n = 0 };
	struct webauthn_expect ex = expect;
	enum webauthn_status st;

	reg.alg = c->alg;
	ck_assert_int_eq(do_register(&reg, &cred), WEBAUTHN_OK);
	add_client_data(&cd, c);
	add_auth_data(&ad, c);
	sign(&sig, signer ? signer : key_of(c), &ad, &cd);
	ex.require_uv = c->require_uv;
	st = webauthn_verify_assertion(&ex,
	                               &(struct webauthn_assertion){ cd.b, cd.n, ad.b, ad.n, sig.b,
	                                                             sig.n },
	                               cred.public_key, cred.public_key_len, stored, use);
	webauthn_credential_release(&cred);
	return st;
}

START_TEST(test_register_valid)
{
	struct ceremony c = base_create();
	struct webauthn_credential cred;

	c.alg = _i ? WEBAUTHN_ALG_RS256 : WEBAUTHN_ALG_ES256;
	ck_assert_int_eq(do_register(&c, &cred), WEBAUTHN_OK);
	ck_assert_int_eq(cred.alg, c.alg);
	ck_assert_uint_eq(cred.cred_id_len, sizeof cred_id - 1);
	ck_assert_mem_eq(cred.cred_id, cred_id, cred.cred_id_len);
	ck_assert_ptr_nonnull(cred.public_key);
	ck_assert_int_eq(webauthn_cose_key_check(cred.public_key, cred.public_key_len, &c.alg),
	                 WEBAUTHN_OK);
	ck_assert_str_eq(webauthn_amr_method(cred.flags), "hwk");
	webauthn_credential_release(&cred);
}
END_TEST


/* issue30.passkey.1: each §7.1 check broken in turn */
static void reg_wrong_type(struct ceremony *c) { c->type = "webauthn.get"; }
static void reg_wrong_challenge(struct ceremony *c) { c->challenge = "3q2-7wABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhs"; }
static void reg_wrong_origin(struct ceremony *c) { c->origin = "http://localhost:8081"; }
static void reg_wrong_rp(struct ceremony *c) { c->rp_id = "example.com"; }
static void reg_no_up(struct ceremony *c) { c->flags &= (uint8_t)~WEBAUTHN_FLAG_UP; }
static void reg_no_uv(struct ceremony *c) { c->flags &= (uint8_t)~WEBAUTHN_FLAG_UV; c->require_uv = 1; }
static void reg_packed(struct ceremony *c) { c->fmt = "packed"; }
static void reg_eddsa(struct ceremony *c) { c->alg = -8; }
static void reg_no_at(struct ceremony *c) { c->flags &= (uint8_t)~WEBAUTHN_FLAG_AT; }

static const struct {
	const char *name;
	void (*change)(struct ceremony *);
	enum webauthn_status want;
} refusals[] = {
	{ "type", reg_wrong_type, WEBAUTHN_WRONG_TYPE },
	{ "challenge", reg_wrong_challenge, WEBAUTHN_WRONG_CHALLENGE },
	{ "origin", reg_wrong_origin, WEBAUTHN_WRONG_ORIGIN },
	{ "rpIdHash", reg_wrong_rp, WEBAUTHN_WRONG_RP_ID },
	{ "UP flag", reg_no_up, WEBAUTHN_USER_NOT_PRESENT },
	{ "UV flag required", reg_no_uv, WEBAUTHN_USER_NOT_VERIFIED },
	{ "fmt packed", reg_packed, WEBAUTHN_UNSUPPORTED_FORMAT },
	{ "alg EdDSA", reg_eddsa, WEBAUTHN_UNSUPPORTED_ALG },
	{ "no attested data", reg_no_at, WEBAUTHN_MALFORMED },
};

START_TEST(test_register_refused)
{
	struct ceremony c = base_create();
	struct webauthn_credential cred;

	refusals[_i].change(&c);
	ck_assert_msg(do_register(&c, &cred) == refusals[_i].want,
	              "issue30.passkey.1: registration with a broken %s: want %s",
	              refusals[_i].name, webauthn_status_name(refusals[_i].want));
	ck_assert_ptr_null(cred.public_key);
}
END_TEST

START_TEST(test_assert_valid)
{
	struct ceremony c = base_get();
	struct webauthn_use use;

	c.alg = _i ? WEBAUTHN_ALG_RS256 : WEBAUTHN_ALG_ES256;
	ck_assert_int_eq(do_assert(&c, NULL, 6, &use), WEBAUTHN_OK);
	ck_assert_uint_eq(use.sign_count, 7);
	/* an authenticator without a counter: 0 and 0 */
	c.count = 0;
	ck_assert_int_eq(do_assert(&c, NULL, 0, &use), WEBAUTHN_OK);
}
END_TEST

/* issue30.passkey.1: each §7.2 check broken in turn (the registration-only
 * rows, fmt and attested data, do not apply) */
START_TEST(test_assert_refused)
{
	struct ceremony c = base_get();
	struct webauthn_use use;

	if (refusals[_i].change == reg_packed || refusals[_i].change == reg_no_at ||
	    refusals[_i].change == reg_eddsa)
		return;
	refusals[_i].change(&c);
	if (refusals[_i].change == reg_wrong_type)
		c.type = "webauthn.create";
	ck_assert_msg(do_assert(&c, NULL, 0, &use) == refusals[_i].want,
	              "issue30.passkey.1: assertion with a broken %s", refusals[_i].name);
}
END_TEST

START_TEST(test_assert_bad_signature)
{
	struct ceremony c = base_get();
	struct webauthn_use use;

	c.alg = _i ? WEBAUTHN_ALG_RS256 : WEBAUTHN_ALG_ES256;
	ck_assert_msg(do_assert(&c, _i ? key_es256 : key_other, 0, &use) == WEBAUTHN_BAD_SIGNATURE,
	              "issue30.passkey.1: a signature by another key");
}
END_TEST

START_TEST(test_assert_count_back)
{
	struct ceremony c = base_get();
	struct webauthn_use use;

	c.count = 5;
	ck_assert_msg(do_assert(&c, NULL, 5, &use) == WEBAUTHN_COUNT_WENT_BACK,
	              "issue30.passkey.1: the same sign count again");
	ck_assert_int_eq(do_assert(&c, NULL, 9, &use), WEBAUTHN_COUNT_WENT_BACK);
	c.count = 0;
	ck_assert_int_eq(do_assert(&c, NULL, 9, &use), WEBAUTHN_COUNT_WENT_BACK);
}
END_TEST

START_TEST(test_backup_eligible_is_swk)
{
	ck_assert_str_eq(webauthn_amr_method(WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_BE), "swk");
	ck_assert_str_eq(webauthn_amr_method(WEBAUTHN_FLAG_UP), "hwk");
}
END_TEST

/* Every prefix of a valid attestation object, and of a valid
 * authenticatorData, is refused as malformed, never read past. */
START_TEST(test_truncated)
{
	struct ceremony c = base_create();
	struct buf cd = { .n = 0 }, att = { .n = 0 };
	struct webauthn_credential cred;
	struct webauthn_auth_data ad;

	c.alg = _i ? WEBAUTHN_ALG_RS256 : WEBAUTHN_ALG_ES256;
	add_client_data(&cd, &c);
	add_attestation(&att, &c);
	for (size_t n = 0; n < att.n; n++) {
		unsigned char *copy = malloc(n ? n : 1); /* so ASan sees a read past n */

		memcpy(copy, att.b, n);
		ck_assert_msg(webauthn_register(&expect,
		                                &(struct webauthn_attestation){ cd.b, cd.n, copy, n },
		                                &cred) == WEBAUTHN_MALFORMED,
		              "issue30.passkey.1: attestation cut at %zu of %zu", n, att.n);
		free(copy);
	}
	att.n = 0;
	add_auth_data(&att, &c);
	for (size_t n = 0; n < att.n; n++)
		ck_assert_int_eq(webauthn_auth_data_parse(att.b, n, &ad), WEBAUTHN_MALFORMED);
	ck_assert_int_eq(webauthn_auth_data_parse(att.b, att.n, &ad), WEBAUTHN_OK);
}
END_TEST

/* Hostile CBOR: garbage, sizes that would make libcbor allocate gigabytes,
 * indefinite lengths, trailing bytes, the wrong top-level type. */
static const struct {
	const char *name;
	const char *hex;
} garbage[] = {
	{ "empty", "" },
	{ "one byte", "ff" },
	{ "array of 2^64-1", "9bffffffffffffffff" },
	{ "map of 2^32-1", "bafffffffff" "f" },
	{ "nested big arrays", "9a000f42409a000f42409a000f4240" },
	{ "indefinite map", "bf63666d74646e6f6e65ff" },
	{ "indefinite bytes", "5f4101ff" },
	{ "text, not a map", "646e6f6e65" },
	{ "trailing byte", "a000" },
	{ "fmt not text", "a363666d740167617474537461740a68617574684461746140" },
	{ "duplicate fmt", "a263666d74646e6f6e6563666d74646e6f6e65" },
};

/* libcbor allocates through the C library's malloc, which this program
 * interposes to see the largest single allocation a hostile input causes.
 * Under AddressSanitizer, which owns malloc (an interposer breaks its
 * start), the sanitizer's own refusal of a huge allocation is the check. */
static size_t biggest_malloc;
#ifndef __SANITIZE_ADDRESS__
extern void *__libc_malloc(size_t n);

void *malloc(size_t n)
{
	if (n > biggest_malloc)
		biggest_malloc = n;
	return __libc_malloc(n);
}
#endif

static size_t unhex(const char *s, unsigned char *out)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2)
		sscanf(s, "%2hhx", &out[n++]);
	return n;
}

START_TEST(test_garbage)
{
	struct ceremony c = base_create();
	struct buf cd = { .n = 0 };
	unsigned char bytes[64];
	size_t n = unhex(garbage[_i].hex, bytes);
	struct webauthn_credential cred;
	int alg;

	add_client_data(&cd, &c);
	biggest_malloc = 0;
	ck_assert_msg(webauthn_register(&expect,
	                                &(struct webauthn_attestation){ cd.b, cd.n, bytes, n },
	                                &cred) == WEBAUTHN_MALFORMED,
	              "issue30.passkey.1: attestation object %s", garbage[_i].name);
	ck_assert_msg(biggest_malloc < 64 * 1024,
	              "issue30.passkey.1: %zu bytes allocated for the %zu of %s", biggest_malloc,
	              n, garbage[_i].name);
	ck_assert_int_eq(webauthn_cose_key_check(bytes, n, &alg), WEBAUTHN_MALFORMED);
}
END_TEST

/* clientDataJSON that is not the object the spec describes */
static const char *const bad_client_data[] = {
	"", "null", "[]", "{\"type\":\"webauthn.create\"}",
	"{\"type\":1,\"challenge\":\"" CHALLENGE "\",\"origin\":\"" ORIGIN "\"}",
	"{\"type\":\"webauthn.create\",\"type\":\"webauthn.create\",\"challenge\":\"" CHALLENGE
	"\",\"origin\":\"" ORIGIN "\"}",
	"{\"type\":\"webauthn.create\",\"challenge\":\"" CHALLENGE "\",\"origin\":\"" ORIGIN "\"",
};

START_TEST(test_bad_client_data)
{
	struct ceremony c = base_create();
	struct buf att = { .n = 0 };
	struct webauthn_credential cred;
	const char *cd = bad_client_data[_i];

	add_attestation(&att, &c);
	ck_assert_int_eq(webauthn_register(&expect,
	                                   &(struct webauthn_attestation){
	                                           (const unsigned char *)cd, strlen(cd), att.b,
	                                           att.n },
	                                   &cred),
	                 WEBAUTHN_MALFORMED);
}
END_TEST

/* A COSE key whose point is not on P-256 is refused before any signature. */
START_TEST(test_point_off_curve)
{
	struct buf b = { .n = 0 };
	cbor_item_t *m = cbor_new_definite_map(5);
	unsigned char x[32], y[32];
	int alg;

	memset(x, 0x11, sizeof x);
	memset(y, 0x22, sizeof y);
	map_put(m, cbor_int(1), cbor_int(2));
	map_put(m, cbor_int(3), cbor_int(-7));
	map_put(m, cbor_int(-1), cbor_int(1));
	map_put(m, cbor_int(-2), cbor_build_bytestring(x, 32));
	map_put(m, cbor_int(-3), cbor_build_bytestring(y, 32));
	buf_add_cbor(&b, m);
	ck_assert_int_eq(webauthn_cose_key_check(b.b, b.n, &alg), WEBAUTHN_MALFORMED);
}
END_TEST

START_TEST(test_status_names)
{
	ck_assert_str_eq(webauthn_status_name(WEBAUTHN_COUNT_WENT_BACK), "sign_count_went_back");
	ck_assert_str_eq(webauthn_status_name((enum webauthn_status)99), "unknown");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("webauthn");
	TCase *tc = tcase_create("webauthn");

	key_es256 = EVP_EC_gen("P-256");
	key_other = EVP_EC_gen("P-256");
	key_rs256 = EVP_RSA_gen(2048);
	if (!key_es256 || !key_other || !key_rs256)
		return 1;
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_register_valid, 0, 2);
	tcase_add_loop_test(tc, test_register_refused, 0, N_ELEMS(refusals));
	tcase_add_loop_test(tc, test_assert_valid, 0, 2);
	tcase_add_loop_test(tc, test_assert_refused, 0, N_ELEMS(refusals));
	tcase_add_loop_test(tc, test_assert_bad_signature, 0, 2);
	tcase_add_test(tc, test_assert_count_back);
	tcase_add_test(tc, test_backup_eligible_is_swk);
	tcase_add_loop_test(tc, test_truncated, 0, 2);
	tcase_add_loop_test(tc, test_garbage, 0, N_ELEMS(garbage));
	tcase_add_loop_test(tc, test_bad_client_data, 0, N_ELEMS(bad_client_data));
	tcase_add_test(tc, test_point_off_curve);
	tcase_add_test(tc, test_status_names);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
