/* issue30.passkey.1: the WebAuthn verifier (webauthn.h) against ceremonies a
 * real browser made (webauthn_recorded.h: Chromium's virtual authenticator,
 * ES256 and RS256): each registration and assertion is valid as recorded,
 * then each check of WebAuthn Level 2 §7.1 / §7.2 is broken in turn, on the
 * recorded bytes or on what the relying party expects of them. */
#include <check.h>
#include <string.h>

#include "b64url.h"
#include "check_suite.h"
#include "crypto.h"
#include "webauthn.h"
#include "webauthn_recorded.h"

/* A recorded ceremony decoded into buffers a case may change. */
struct ceremony {
	struct webauthn_expect ex;
	unsigned char *id, *create_cd, *att, *get_cd, *ad, *sig;
	size_t id_len, create_cd_len, att_len, get_cd_len, ad_len, sig_len;
	unsigned char *att_ad; /* the authenticatorData inside att */
	/* the assertion is checked against this credential's key and count */
	struct webauthn_credential cred;
	uint32_t stored_count;
};

static unsigned char *decode(const char *s, size_t *len)
{
	unsigned char *out = b64url_decode_any(s, strlen(s), len);

	ck_assert_ptr_nonnull(out);
	return out;
}

static enum webauthn_status do_register(struct ceremony *c, struct webauthn_credential *out)
{
	return webauthn_register(&c->ex,
	                         &(struct webauthn_attestation){ c->create_cd, c->create_cd_len,
	                                                         c->att, c->att_len },
	                         out);
}

static enum webauthn_status do_assert(struct ceremony *c, struct webauthn_use *use)
{
	return webauthn_verify_assertion(&c->ex,
	                                 &(struct webauthn_assertion){ c->get_cd, c->get_cd_len,
	                                                               c->ad, c->ad_len, c->sig,
	                                                               c->sig_len },
	                                 c->cred.public_key, c->cred.public_key_len,
	                                 c->stored_count, use);
}

/* Recorded ceremony i, its registration verified as recorded (the key the
 * assertion is checked against), expecting the assertion's challenge. */
static void load(struct ceremony *c, size_t i)
{
	const struct recorded_ceremony *r = &recorded[i];
	unsigned char hash[32];

	memset(c, 0, sizeof *c);
	c->id = decode(r->credential_id, &c->id_len);
	c->create_cd = decode(r->create_client_data, &c->create_cd_len);
	c->att = decode(r->attestation_object, &c->att_len);
	c->get_cd = decode(r->get_client_data, &c->get_cd_len);
	c->ad = decode(r->auth_data, &c->ad_len);
	c->sig = decode(r->signature, &c->sig_len);
	crypto_sha256(REC_RP_ID, strlen(REC_RP_ID), hash);
	c->att_ad = memmem(c->att, c->att_len, hash, sizeof hash);
	ck_assert_ptr_nonnull(c->att_ad);
	c->ex = (struct webauthn_expect){ REC_CREATE_CHALLENGE, REC_ORIGIN, REC_RP_ID, 1 };
	ck_assert_int_eq(do_register(c, &c->cred), WEBAUTHN_OK);
	c->ex.challenge = REC_GET_CHALLENGE;
}

static void unload(struct ceremony *c)
{
	webauthn_credential_release(&c->cred);
	free(c->id);
	free(c->create_cd);
	free(c->att);
	free(c->get_cd);
	free(c->ad);
	free(c->sig);
}

START_TEST(test_register_valid)
{
	struct ceremony c;
	struct webauthn_auth_data ad;

	load(&c, (size_t)_i);
	ck_assert_int_eq(c.cred.alg, recorded[_i].alg);
	ck_assert_mem_eq(c.cred.cred_id, c.id, c.id_len);
	ck_assert_uint_eq(c.cred.cred_id_len, c.id_len);
	ck_assert_uint_eq(c.cred.flags,
	                  WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_UV | WEBAUTHN_FLAG_AT);
	ck_assert_int_eq(webauthn_auth_data_parse(c.att_ad, c.att_len - (size_t)(c.att_ad - c.att),
	                                          &ad),
	                 WEBAUTHN_OK);
	ck_assert_uint_eq(c.cred.sign_count, ad.sign_count);
	ck_assert_str_eq(webauthn_amr_method(c.cred.flags), "hwk");
	unload(&c);
}
END_TEST

START_TEST(test_assert_valid)
{
	struct ceremony c;
	struct webauthn_use use;

	load(&c, (size_t)_i);
	c.stored_count = c.cred.sign_count; /* the count of the registration */
	ck_assert_int_eq(do_assert(&c, &use), WEBAUTHN_OK);
	ck_assert_uint_gt(use.sign_count, c.cred.sign_count);
	ck_assert_uint_eq(use.flags, WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_UV);
	c.stored_count = use.sign_count - 1;
	ck_assert_int_eq(do_assert(&c, &use), WEBAUTHN_OK);
	unload(&c);
}
END_TEST

/* The first byte of the value of "key":" in client data cd. */
static unsigned char *json_value(unsigned char *cd, size_t len, const char *key)
{
	char pat[32];
	unsigned char *p;

	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	p = memmem(cd, len, pat, strlen(pat));
	ck_assert_ptr_nonnull(p);
	return p + strlen(pat);
}

static void next_char(unsigned char *p) { *p = *p == 'A' ? 'B' : 'A'; }

/* What each case changes: the registration's (c->create_cd, c->att_ad) or
 * the assertion's (c->get_cd, c->ad, c->sig, c->stored_count), or c->ex. */
static void expect_other_challenge(struct ceremony *c, int reg)
{
	c->ex.challenge = reg ? REC_GET_CHALLENGE : REC_CREATE_CHALLENGE;
}
static void challenge_byte(struct ceremony *c, int reg)
{
	next_char(reg ? json_value(c->create_cd, c->create_cd_len, "challenge")
	              : json_value(c->get_cd, c->get_cd_len, "challenge"));
}
static void expect_other_origin(struct ceremony *c, int reg)
{
	(void)reg;
	c->ex.origin = "http://localhost:8081";
}
static void origin_byte(struct ceremony *c, int reg)
{
	unsigned char *o = reg ? json_value(c->create_cd, c->create_cd_len, "origin")
	                       : json_value(c->get_cd, c->get_cd_len, "origin");

	o[strlen(REC_ORIGIN) - 1] ^= 1; /* :8080 -> :8081 */
}
static void expect_other_rp_id(struct ceremony *c, int reg)
{
	(void)reg;
	c->ex.rp_id = "example.com";
}
static unsigned char *auth_data(struct ceremony *c, int reg) { return reg ? c->att_ad : c->ad; }
static void rp_id_hash_bit(struct ceremony *c, int reg) { auth_data(c, reg)[31] ^= 1; }
static void no_up(struct ceremony *c, int reg) { auth_data(c, reg)[32] &= ~WEBAUTHN_FLAG_UP; }
static void no_uv(struct ceremony *c, int reg) { auth_data(c, reg)[32] &= ~WEBAUTHN_FLAG_UV; }
static void no_uv_not_required(struct ceremony *c, int reg)
{
	no_uv(c, reg);
	c->ex.require_uv = 0;
}
static void signature_bit(struct ceremony *c, int reg)
{
	(void)reg;
	c->sig[c->sig_len - 1] ^= 1;
}
static void signature_middle_bit(struct ceremony *c, int reg)
{
	(void)reg;
	c->sig[c->sig_len / 2] ^= 0x10;
}
static void count_bit(struct ceremony *c, int reg) { auth_data(c, reg)[36] ^= 1; }
static void count_same(struct ceremony *c, int reg)
{
	(void)reg;
	c->stored_count = (uint32_t)c->ad[33] << 24 | (uint32_t)c->ad[34] << 16 |
	                  (uint32_t)c->ad[35] << 8 | c->ad[36];
}
static void count_ahead(struct ceremony *c, int reg)
{
	count_same(c, reg);
	c->stored_count += 1000;
}
/* The COSE key's alg (label 3) made another: ES256's -7 (0x26) becomes -8
 * (EdDSA), RS256's -257 (0x39 0x01 0x00) -258 (RS384). */
static void cose_alg(struct ceremony *c, int reg)
{
	size_t rest = c->att_len - (size_t)(c->att_ad - c->att);
	unsigned char *es = memmem(c->att_ad, rest, "\x03\x26", 2);
	unsigned char *rs = memmem(c->att_ad, rest, "\x03\x39\x01\x00", 4);

	(void)reg;
	ck_assert_msg(es || rs, "no alg label in the recorded COSE key");
	if (es)
		es[1] = 0x27;
	else
		rs[3] = 0x01;
}
/* The assertion checked against the other recorded credential's key, of
 * the other algorithm. */
static void other_alg_key(struct ceremony *c, int reg)
{
	struct ceremony other;
	struct webauthn_credential cred;

	(void)reg;
	load(&other, recorded[0].alg == c->cred.alg ? 1 : 0);
	cred = other.cred;
	other.cred = c->cred;
	c->cred = cred;
	unload(&other);
}
/* The other ceremony's client data: webauthn.get's in the registration,
 * webauthn.create's in the assertion. */
static void swap_client_data(struct ceremony *c, int reg)
{
	unsigned char *cd = c->create_cd;
	size_t len = c->create_cd_len;

	(void)reg;
	c->create_cd = c->get_cd;
	c->create_cd_len = c->get_cd_len;
	c->get_cd = cd;
	c->get_cd_len = len;
}
/* the attestation's fmt "none" made "nonf": another format */
static void fmt_other(struct ceremony *c, int reg)
{
	unsigned char *p = memmem(c->att, c->att_len, "\x64none", 5);

	(void)reg;
	ck_assert_ptr_nonnull(p);
	p[4] = 'f';
}

static const struct {
	const char *name;
	int reg; /* the registration (1) or the assertion (0) */
	void (*change)(struct ceremony *c, int reg);
	enum webauthn_status want;
} cases[] = {
	{ "another challenge expected", 1, expect_other_challenge, WEBAUTHN_WRONG_CHALLENGE },
	{ "a challenge byte changed", 1, challenge_byte, WEBAUTHN_WRONG_CHALLENGE },
	{ "another origin expected", 1, expect_other_origin, WEBAUTHN_WRONG_ORIGIN },
	{ "the origin's port changed", 1, origin_byte, WEBAUTHN_WRONG_ORIGIN },
	{ "another RP ID expected", 1, expect_other_rp_id, WEBAUTHN_WRONG_RP_ID },
	{ "a bit of rpIdHash", 1, rp_id_hash_bit, WEBAUTHN_WRONG_RP_ID },
	{ "UP cleared", 1, no_up, WEBAUTHN_USER_NOT_PRESENT },
	{ "UV cleared, required", 1, no_uv, WEBAUTHN_USER_NOT_VERIFIED },
	{ "the COSE key's alg another", 1, cose_alg, WEBAUTHN_UNSUPPORTED_ALG },
	{ "a webauthn.get client data", 1, swap_client_data, WEBAUTHN_WRONG_TYPE },
	{ "attestation format other than none", 1, fmt_other, WEBAUTHN_UNSUPPORTED_FORMAT },
	{ "another challenge expected", 0, expect_other_challenge, WEBAUTHN_WRONG_CHALLENGE },
	{ "a challenge byte changed", 0, challenge_byte, WEBAUTHN_WRONG_CHALLENGE },
	{ "another origin expected", 0, expect_other_origin, WEBAUTHN_WRONG_ORIGIN },
	{ "the origin's port changed", 0, origin_byte, WEBAUTHN_WRONG_ORIGIN },
	{ "another RP ID expected", 0, expect_other_rp_id, WEBAUTHN_WRONG_RP_ID },
	{ "a bit of rpIdHash", 0, rp_id_hash_bit, WEBAUTHN_WRONG_RP_ID },
	{ "UP cleared", 0, no_up, WEBAUTHN_USER_NOT_PRESENT },
	{ "UV cleared, required", 0, no_uv, WEBAUTHN_USER_NOT_VERIFIED },
	/* the flag's check passes; the signature covers the flags */
	{ "UV cleared, not required", 0, no_uv_not_required, WEBAUTHN_BAD_SIGNATURE },
	{ "the signature's last bit", 0, signature_bit, WEBAUTHN_BAD_SIGNATURE },
	{ "a bit in the signature's middle", 0, signature_middle_bit, WEBAUTHN_BAD_SIGNATURE },
	{ "a bit of the signed count", 0, count_bit, WEBAUTHN_BAD_SIGNATURE },
	{ "the count stored already", 0, count_same, WEBAUTHN_COUNT_WENT_BACK },
	{ "a count ahead stored", 0, count_ahead, WEBAUTHN_COUNT_WENT_BACK },
	{ "the other algorithm's key", 0, other_alg_key, WEBAUTHN_BAD_SIGNATURE },
	{ "a webauthn.create client data", 0, swap_client_data, WEBAUTHN_WRONG_TYPE },
};

/* _i: case _i / 2 on recorded ceremony _i % 2 */
START_TEST(test_refused)
{
	size_t k = (size_t)_i / N_ELEMS(recorded);
	struct ceremony c;
	struct webauthn_credential cred;
	struct webauthn_use use;
	enum webauthn_status st;

	load(&c, (size_t)_i % N_ELEMS(recorded));
	if (cases[k].reg)
		c.ex.challenge = REC_CREATE_CHALLENGE;
	cases[k].change(&c, cases[k].reg);
	st = cases[k].reg ? do_register(&c, &cred) : do_assert(&c, &use);
	if (st == WEBAUTHN_OK && cases[k].reg)
		webauthn_credential_release(&cred);
	ck_assert_msg(st == cases[k].want, "issue30.passkey.1: %s, %s %s: %s, expected %s",
	              recorded[_i % N_ELEMS(recorded)].name,
	              cases[k].reg ? "registration" : "assertion", cases[k].name,
	              webauthn_status_name(st), webauthn_status_name(cases[k].want));
	unload(&c);
}
END_TEST

/* UV is only checked when required: the registration without it stands. */
START_TEST(test_register_uv_not_required)
{
	struct ceremony c;
	struct webauthn_credential cred;

	load(&c, (size_t)_i);
	c.ex.challenge = REC_CREATE_CHALLENGE;
	no_uv_not_required(&c, 1);
	ck_assert_int_eq(do_register(&c, &cred), WEBAUTHN_OK);
	ck_assert_uint_eq(cred.flags, WEBAUTHN_FLAG_UP | WEBAUTHN_FLAG_AT);
	webauthn_credential_release(&cred);
	unload(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("webauthn_recorded");
	TCase *tc = tcase_create("webauthn_recorded");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_register_valid, 0, N_ELEMS(recorded));
	tcase_add_loop_test(tc, test_assert_valid, 0, N_ELEMS(recorded));
	tcase_add_loop_test(tc, test_refused, 0, N_ELEMS(cases) * N_ELEMS(recorded));
	tcase_add_loop_test(tc, test_register_uv_not_required, 0, N_ELEMS(recorded));
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
