/*
 * WebAuthn's relying-party checks (webauthn.h), in the order of the Level 2
 * spec's §7.1 and §7.2 steps, which the comments cite. Never trusts a
 * length or a size from the input: CBOR goes through cbor_prescan before
 * libcbor builds anything from it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>
#include <jansson.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "crypto.h"
#include "util.h"
#include "webauthn.h"

/* COSE key map labels (RFC 8152 §7.1, §13.1.1; RFC 8230 §4) */
#define COSE_KTY 1
#define COSE_ALG 3
#define COSE_CRV_OR_N (-1)
#define COSE_X_OR_E (-2)
#define COSE_Y (-3)
#define COSE_KTY_EC2 2
#define COSE_KTY_RSA 3
#define COSE_CRV_P256 1
#define P256_COORD_BYTES 32
#define RSA_E_MAX_BYTES 8

/* authenticatorData's fixed part (§6.1) and attested credential data's (§6.5.1) */
#define AD_FIXED 37
#define AD_ATTESTED_FIXED (16 + 2)

const char *webauthn_status_name(enum webauthn_status status)
{
	static const char *const names[] = {
		[WEBAUTHN_OK] = "ok",
		[WEBAUTHN_MALFORMED] = "malformed",
		[WEBAUTHN_WRONG_TYPE] = "wrong_type",
		[WEBAUTHN_WRONG_CHALLENGE] = "wrong_challenge",
		[WEBAUTHN_WRONG_ORIGIN] = "wrong_origin",
		[WEBAUTHN_WRONG_RP_ID] = "wrong_rp_id",
		[WEBAUTHN_USER_NOT_PRESENT] = "user_not_present",
		[WEBAUTHN_USER_NOT_VERIFIED] = "user_not_verified",
		[WEBAUTHN_UNSUPPORTED_FORMAT] = "unsupported_format",
		[WEBAUTHN_UNSUPPORTED_ALG] = "unsupported_alg",
		[WEBAUTHN_BAD_SIGNATURE] = "bad_signature",
		[WEBAUTHN_COUNT_WENT_BACK] = "sign_count_went_back",
	};

	if ((unsigned)status >= sizeof names / sizeof names[0] || !names[status])
		return "unknown";
	return names[status];
}

const char *webauthn_amr_method(uint8_t flags)
{
	return (flags & WEBAUTHN_FLAG_BE) ? "swk" : "hwk";
}

/* ---- CBOR ---- */

/* What cbor_prescan counts: the elements every container declares, and
 * whether any is of indefinite length (which WebAuthn's CTAP2 canonical
 * encoding never uses). */
struct prescan {
	size_t declared;
	bool indefinite;
};

static void prescan_array(void *ctx, size_t n)
{
	struct prescan *p = ctx;

	p->declared = n > SIZE_MAX / 4 - p->declared ? SIZE_MAX / 4 : p->declared + n;
}

static void prescan_map(void *ctx, size_t n)
{
	prescan_array(ctx, n > SIZE_MAX / 4 ? SIZE_MAX / 4 : 2 * n);
}

static void prescan_indefinite(void *ctx)
{
	((struct prescan *)ctx)->indefinite = true;
}

/*
 * libcbor allocates a container's slots when it reads the header, before
 * its elements: a few bytes could ask for gigabytes. Each element takes at
 * least one byte, so valid CBOR of len bytes declares at most len elements
 * in all; walk the events and refuse more, indefinite lengths, and anything
 * libcbor's own decoder refuses.
 */
static bool cbor_prescan(const unsigned char *buf, size_t len)
{
	struct cbor_callbacks cb = cbor_empty_callbacks;
	struct prescan p = { 0 };
	size_t off = 0;

	cb.array_start = prescan_array;
	cb.map_start = prescan_map;
	cb.indef_array_start = prescan_indefinite;
	cb.indef_map_start = prescan_indefinite;
	cb.byte_string_start = prescan_indefinite;
	cb.string_start = prescan_indefinite;
	while (off < len) {
		struct cbor_decoder_result r = cbor_stream_decode(buf + off, len - off, &cb, &p);

		if (r.status != CBOR_DECODER_FINISHED || r.read == 0)
			return false;
		off += r.read;
		if (p.indefinite || p.declared > len)
			return false;
	}
	return true;
}

/* The first CBOR item of buf[0..len), *read its length; NULL when len is
 * over WEBAUTHN_CBOR_MAX or the bytes are not (safe) CBOR. */
static cbor_item_t *cbor_load_checked(const unsigned char *buf, size_t len, size_t *read)
{
	struct cbor_load_result res;
	cbor_item_t *item;

	if (len == 0 || len > WEBAUTHN_CBOR_MAX || !cbor_prescan(buf, len))
		return NULL;
	item = cbor_load(buf, len, &res);
	if (!item || res.error.code != CBOR_ERR_NONE) {
		if (item)
			cbor_decref(&item);
		return NULL;
	}
	*read = res.read;
	return item;
}

/* An integer item's value in *v: false when it is not an integer or does
 * not fit. */
static bool cbor_int_value(const cbor_item_t *it, int64_t *v)
{
	uint64_t n;

	if (!cbor_isa_uint(it) && !cbor_isa_negint(it))
		return false;
	n = cbor_get_int(it);
	if (n > INT64_MAX)
		return false;
	*v = cbor_isa_uint(it) ? (int64_t)n : -1 - (int64_t)n;
	return true;
}

/* A definite text item equal to s. */
static bool cbor_text_is(const cbor_item_t *it, const char *s)
{
	size_t n = strlen(s);

	return cbor_isa_string(it) && cbor_string_is_definite(it) &&
	       cbor_string_length(it) == n && memcmp(cbor_string_handle(it), s, n) == 0;
}

/* A definite byte string's bytes and length, or NULL. */
static const unsigned char *cbor_bytes(const cbor_item_t *it, size_t *len)
{
	if (!it || !cbor_isa_bytestring(it) || !cbor_bytestring_is_definite(it))
		return NULL;
	*len = cbor_bytestring_length(it);
	return cbor_bytestring_handle(it);
}

/* ---- COSE keys ---- */

/* The labels of a COSE key that we read; each at most once. */
struct cose_fields {
	int64_t kty, alg, crv;
	const cbor_item_t *n_or_crv, *e_or_x, *y;
	bool has_kty, has_alg;
};

static enum webauthn_status cose_read_fields(const cbor_item_t *map, struct cose_fields *f)
{
	struct cbor_pair *pairs;
	size_t n;

	if (!cbor_isa_map(map) || !cbor_map_is_definite(map))
		return WEBAUTHN_MALFORMED;
	memset(f, 0, sizeof *f);
	pairs = cbor_map_handle(map);
	n = cbor_map_size(map);
	for (size_t i = 0; i < n; i++) {
		const cbor_item_t *v = pairs[i].value;
		int64_t label;

		if (!cbor_int_value(pairs[i].key, &label))
			continue; /* text labels: none we need */
		if (label == COSE_KTY || label == COSE_ALG) {
			bool *seen = label == COSE_KTY ? &f->has_kty : &f->has_alg;
			int64_t *val = label == COSE_KTY ? &f->kty : &f->alg;

			if (*seen || !cbor_int_value(v, val))
				return WEBAUTHN_MALFORMED;
			*seen = true;
		} else if (label == COSE_CRV_OR_N || label == COSE_X_OR_E || label == COSE_Y) {
			const cbor_item_t **slot = label == COSE_CRV_OR_N ? &f->n_or_crv
			                           : label == COSE_X_OR_E  ? &f->e_or_x
			                                                   : &f->y;
			if (*slot)
				return WEBAUTHN_MALFORMED;
			*slot = v;
		}
	}
	return f->has_kty && f->has_alg ? WEBAUTHN_OK : WEBAUTHN_MALFORMED;
}

/* An EVP_PKEY from OSSL_PARAMs of a public key of type name, or NULL. */
static EVP_PKEY *pkey_from_params(const char *name, OSSL_PARAM *params)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
	EVP_PKEY *pkey = NULL;

	if (!ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	if (pkey) {
		/* a point on the curve, an RSA modulus that is odd and not tiny */
		EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);

		if (!check || EVP_PKEY_public_check(check) != 1) {
			EVP_PKEY_free(pkey);
			pkey = NULL;
		}
		EVP_PKEY_CTX_free(check);
	}
	(void)crypto_openssl_reason(); /* empties OpenSSL's error queue */
	return pkey;
}

/* RFC 9053 §7.1.1 / RFC 8152 §13.1.1: EC2 on P-256, x and y of 32 bytes. */
static EVP_PKEY *cose_es256(const struct cose_fields *f)
{
	unsigned char point[1 + 2 * P256_COORD_BYTES];
	const unsigned char *x, *y;
	size_t xl = 0, yl = 0;
	int64_t crv;
	OSSL_PARAM params[3];

	if (f->kty != COSE_KTY_EC2 || !f->n_or_crv || !cbor_int_value(f->n_or_crv, &crv) ||
	    crv != COSE_CRV_P256)
		return NULL;
	x = cbor_bytes(f->e_or_x, &xl);
	y = cbor_bytes(f->y, &yl);
	if (!x || !y || xl != P256_COORD_BYTES || yl != P256_COORD_BYTES)
		return NULL;
	point[0] = 0x04; /* SEC 1 §2.3.3: uncompressed */
	memcpy(point + 1, x, P256_COORD_BYTES);
	memcpy(point + 1 + P256_COORD_BYTES, y, P256_COORD_BYTES);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0);
	params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point);
	params[2] = OSSL_PARAM_construct_end();
	return pkey_from_params("EC", params);
}

/* RFC 8230 §4: RSA, n and e as big-endian byte strings. */
static EVP_PKEY *cose_rs256(const struct cose_fields *f)
{
	const unsigned char *n, *e;
	size_t nl = 0, el = 0;
	BIGNUM *bn_n = NULL, *bn_e = NULL;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY *pkey = NULL;

	if (f->kty != COSE_KTY_RSA || f->y)
		return NULL;
	n = cbor_bytes(f->n_or_crv, &nl);
	e = cbor_bytes(f->e_or_x, &el);
	if (!n || !e || el == 0 || el > RSA_E_MAX_BYTES || nl == 0 || n[0] == 0 ||
	    nl * 8 < WEBAUTHN_RSA_MIN_BITS || nl * 8 > WEBAUTHN_RSA_MAX_BITS)
		return NULL;
	bn_n = BN_bin2bn(n, (int)nl, NULL);
	bn_e = BN_bin2bn(e, (int)el, NULL);
	bld = OSSL_PARAM_BLD_new();
	if (bn_n && bn_e && bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e))
		params = OSSL_PARAM_BLD_to_param(bld);
	if (params)
		pkey = pkey_from_params("RSA", params);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bn_e);
	BN_free(bn_n);
	return pkey;
}

/* The public key of the COSE key item, its algorithm in *alg. */
static enum webauthn_status cose_to_pkey(const cbor_item_t *map, EVP_PKEY **pkey, int *alg)
{
	struct cose_fields f;
	enum webauthn_status st = cose_read_fields(map, &f);

	if (st != WEBAUTHN_OK)
		return st;
	/* §7.1 step 16: an algorithm of pubKeyCredParams, ours being ES256 and RS256 */
	if (f.alg == WEBAUTHN_ALG_ES256)
		*pkey = cose_es256(&f);
	else if (f.alg == WEBAUTHN_ALG_RS256)
		*pkey = cose_rs256(&f);
	else
		return WEBAUTHN_UNSUPPORTED_ALG;
	*alg = (int)f.alg;
	return *pkey ? WEBAUTHN_OK : WEBAUTHN_MALFORMED;
}

/* The COSE key in cose[0..len), exactly one item, as a public key. */
static enum webauthn_status cose_bytes_to_pkey(const unsigned char *cose, size_t len,
                                               EVP_PKEY **pkey, int *alg)
{
	size_t read = 0;
	cbor_item_t *item = cbor_load_checked(cose, len, &read);
	enum webauthn_status st = WEBAUTHN_MALFORMED;

	if (item && read == len)
		st = cose_to_pkey(item, pkey, alg);
	if (item)
		cbor_decref(&item);
	return st;
}

enum webauthn_status webauthn_cose_key_check(const unsigned char *cose, size_t len, int *alg)
{
	EVP_PKEY *pkey = NULL;
	enum webauthn_status st = cose_bytes_to_pkey(cose, len, &pkey, alg);

	EVP_PKEY_free(pkey);
	return st;
}

/* ---- authenticatorData ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* §6.5.1: AAGUID, the credential ID's length and bytes, the COSE key (one
 * CBOR item, whose length only parsing tells). */
static enum webauthn_status auth_data_attested(const unsigned char *p, size_t len,
                                               struct webauthn_auth_data *out)
{
	size_t id_len, key_len = 0;
	cbor_item_t *key;

	if (len < AD_ATTESTED_FIXED)
		return WEBAUTHN_MALFORMED;
	memcpy(out->aaguid, p, 16);
	id_len = (size_t)p[16] << 8 | p[17];
	p += AD_ATTESTED_FIXED;
	len -= AD_ATTESTED_FIXED;
	if (id_len == 0 || id_len > WEBAUTHN_CRED_ID_MAX || id_len >= len)
		return WEBAUTHN_MALFORMED;
	out->cred_id = p;
	out->cred_id_len = id_len;
	p += id_len;
	len -= id_len;
	key = cbor_load_checked(p, len, &key_len);
	if (!key)
		return WEBAUTHN_MALFORMED;
	cbor_decref(&key);
	/* what follows the key is extensions, only when ED says so */
	if (key_len < len && !(out->flags & WEBAUTHN_FLAG_ED))
		return WEBAUTHN_MALFORMED;
	out->cose_key = p;
	out->cose_key_len = key_len;
	return WEBAUTHN_OK;
}

enum webauthn_status webauthn_auth_data_parse(const unsigned char *ad, size_t len,
                                              struct webauthn_auth_data *out)
{
	memset(out, 0, sizeof *out);
	if (!ad || len < AD_FIXED || len > WEBAUTHN_CBOR_MAX)
		return WEBAUTHN_MALFORMED;
	memcpy(out->rp_id_hash, ad, 32);
	out->flags = ad[32];
	out->sign_count = be32(ad + 33);
	if (out->flags & WEBAUTHN_FLAG_AT)
		return auth_data_attested(ad + AD_FIXED, len - AD_FIXED, out);
	if (len > AD_FIXED && !(out->flags & WEBAUTHN_FLAG_ED))
		return WEBAUTHN_MALFORMED;
	return WEBAUTHN_OK;
}

/* §7.1 steps 13-15 / §7.2 steps 15-17: the RP ID's hash, then the flags. */
static enum webauthn_status auth_data_check(const struct webauthn_expect *ex,
                                            const struct webauthn_auth_data *ad)
{
	unsigned char want[32];

	crypto_sha256(ex->rp_id, strlen(ex->rp_id), want);
	if (CRYPTO_memcmp(want, ad->rp_id_hash, sizeof want) != 0)
		return WEBAUTHN_WRONG_RP_ID;
	if (!(ad->flags & WEBAUTHN_FLAG_UP))
		return WEBAUTHN_USER_NOT_PRESENT;
	if (ex->require_uv && !(ad->flags & WEBAUTHN_FLAG_UV))
		return WEBAUTHN_USER_NOT_VERIFIED;
	return WEBAUTHN_OK;
}

/* ---- clientDataJSON ---- */

/* A string member of obj, or NULL. */
static const char *json_member_string(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/*
 * §7.1 steps 5-9 / §7.2 steps 10-13: clientDataJSON is a JSON object whose
 * type is want_type, whose challenge is the base64url of ours (compared in
 * constant time), and whose origin is ours exactly. tokenBinding (step 10
 * / 14) is not used by browsers any more and is not checked.
 */
static enum webauthn_status client_data_check(const struct webauthn_expect *ex,
                                              const unsigned char *cd, size_t len,
                                              const char *want_type)
{
	enum webauthn_status st = WEBAUTHN_MALFORMED;
	const char *type, *challenge, *origin;
	json_t *obj;

	if (!cd || len == 0 || len > WEBAUTHN_CLIENT_DATA_MAX)
		return WEBAUTHN_MALFORMED;
	obj = json_loadb((const char *)cd, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(obj))
		goto out;
	type = json_member_string(obj, "type");
	challenge = json_member_string(obj, "challenge");
	origin = json_member_string(obj, "origin");
	if (!type || !challenge || !origin)
		goto out;
	if (strcmp(type, want_type) != 0)
		st = WEBAUTHN_WRONG_TYPE;
	else if (!crypto_equal(challenge, ex->challenge))
		st = WEBAUTHN_WRONG_CHALLENGE;
	else if (strcmp(origin, ex->origin) != 0)
		st = WEBAUTHN_WRONG_ORIGIN;
	else
		st = WEBAUTHN_OK;
out:
	json_decref(obj);
	return st;
}

/* ---- registration (§7.1) ---- */

/* The members of an attestation object (§6.5.4) we read; each once. */
struct attestation_fields {
	const cbor_item_t *fmt, *att_stmt, *auth_data;
};

static enum webauthn_status attestation_fields(const cbor_item_t *map,
                                               struct attestation_fields *f)
{
	struct cbor_pair *pairs;

	memset(f, 0, sizeof *f);
	if (!cbor_isa_map(map) || !cbor_map_is_definite(map))
		return WEBAUTHN_MALFORMED;
	pairs = cbor_map_handle(map);
	for (size_t i = 0; i < cbor_map_size(map); i++) {
		const cbor_item_t **slot = cbor_text_is(pairs[i].key, "fmt")        ? &f->fmt
		                           : cbor_text_is(pairs[i].key, "attStmt")  ? &f->att_stmt
		                           : cbor_text_is(pairs[i].key, "authData") ? &f->auth_data
		                                                                    : NULL;
		if (!slot)
			continue;
		if (*slot)
			return WEBAUTHN_MALFORMED;
		*slot = pairs[i].value;
	}
	if (!f->fmt || !f->att_stmt || !f->auth_data || !cbor_isa_string(f->fmt) ||
	    !cbor_isa_map(f->att_stmt))
		return WEBAUTHN_MALFORMED;
	/* §7.1 step 18-19, §8.7: "none", whose attStmt is an empty map */
	if (!cbor_text_is(f->fmt, "none"))
		return WEBAUTHN_UNSUPPORTED_FORMAT;
	return cbor_map_size(f->att_stmt) == 0 ? WEBAUTHN_OK : WEBAUTHN_MALFORMED;
}

/* §7.1 steps 12-16 over the decoded attestation object; fills out. */
static enum webauthn_status register_auth_data(const struct webauthn_expect *ex,
                                               const cbor_item_t *att,
                                               struct webauthn_credential *out)
{
	struct attestation_fields f;
	struct webauthn_auth_data ad;
	const unsigned char *raw;
	size_t raw_len = 0;
	EVP_PKEY *pkey = NULL;
	enum webauthn_status st = attestation_fields(att, &f);

	if (st != WEBAUTHN_OK)
		return st;
	raw = cbor_bytes(f.auth_data, &raw_len);
	if (!raw || (st = webauthn_auth_data_parse(raw, raw_len, &ad)) != WEBAUTHN_OK)
		return WEBAUTHN_MALFORMED;
	if ((st = auth_data_check(ex, &ad)) != WEBAUTHN_OK)
		return st;
	if (!(ad.flags & WEBAUTHN_FLAG_AT))
		return WEBAUTHN_MALFORMED; /* a registration without a credential */
	st = cose_bytes_to_pkey(ad.cose_key, ad.cose_key_len, &pkey, &out->alg);
	EVP_PKEY_free(pkey);
	if (st != WEBAUTHN_OK)
		return st;
	memcpy(out->cred_id, ad.cred_id, ad.cred_id_len);
	out->cred_id_len = ad.cred_id_len;
	out->public_key = xmalloc(ad.cose_key_len);
	memcpy(out->public_key, ad.cose_key, ad.cose_key_len);
	out->public_key_len = ad.cose_key_len;
	out->sign_count = ad.sign_count;
	out->flags = ad.flags;
	memcpy(out->aaguid, ad.aaguid, sizeof out->aaguid);
	return WEBAUTHN_OK;
}

enum webauthn_status webauthn_register(const struct webauthn_expect *ex,
                                       const struct webauthn_attestation *in,
                                       struct webauthn_credential *out)
{
	enum webauthn_status st;
	cbor_item_t *att;
	size_t read = 0;

	memset(out, 0, sizeof *out);
	st = client_data_check(ex, in->client_data, in->client_data_len, "webauthn.create");
	if (st != WEBAUTHN_OK)
		return st;
	/* step 12: CBOR decoding of the attestation object, one item and nothing after */
	att = cbor_load_checked(in->attestation_object, in->attestation_object_len, &read);
	if (!att)
		return WEBAUTHN_MALFORMED;
	st = read == in->attestation_object_len ? register_auth_data(ex, att, out)
	                                        : WEBAUTHN_MALFORMED;
	cbor_decref(&att);
	if (st != WEBAUTHN_OK)
		webauthn_credential_release(out);
	return st;
}

void webauthn_credential_release(struct webauthn_credential *c)
{
	if (!c)
		return;
	free(c->public_key);
	memset(c, 0, sizeof *c);
}

/* ---- assertion (§7.2) ---- */

/* Step 20: sig over authData || SHA-256(clientDataJSON), by pkey with SHA-256
 * (ECDSA's DER signature, RSA's PKCS#1 v1.5: each key type's default). */
static bool signature_valid(EVP_PKEY *pkey, const struct webauthn_assertion *in)
{
	size_t msg_len = in->auth_data_len + 32;
	unsigned char *msg = xmalloc(msg_len);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok;

	memcpy(msg, in->auth_data, in->auth_data_len);
	crypto_sha256(in->client_data, in->client_data_len, msg + in->auth_data_len);
	ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
	     EVP_DigestVerify(md, in->signature, in->signature_len, msg, msg_len) == 1;
	EVP_MD_CTX_free(md);
	free(msg);
	(void)crypto_openssl_reason();
	return ok;
}

enum webauthn_status webauthn_verify_assertion(const struct webauthn_expect *ex,
                                               const struct webauthn_assertion *in,
                                               const unsigned char *public_key,
                                               size_t public_key_len, uint32_t stored_count,
                                               struct webauthn_use *out)
{
	struct webauthn_auth_data ad;
	EVP_PKEY *pkey = NULL;
	enum webauthn_status st;
	int alg = 0;

	if (!in->signature || in->signature_len == 0 || in->signature_len > WEBAUTHN_SIGNATURE_MAX)
		return WEBAUTHN_MALFORMED;
	st = client_data_check(ex, in->client_data, in->client_data_len, "webauthn.get");
	if (st != WEBAUTHN_OK)
		return st;
	if (webauthn_auth_data_parse(in->auth_data, in->auth_data_len, &ad) != WEBAUTHN_OK)
		return WEBAUTHN_MALFORMED;
	if ((st = auth_data_check(ex, &ad)) != WEBAUTHN_OK)
		return st;
	if ((st = cose_bytes_to_pkey(public_key, public_key_len, &pkey, &alg)) != WEBAUTHN_OK)
		return st;
	st = signature_valid(pkey, in) ? WEBAUTHN_OK : WEBAUTHN_BAD_SIGNATURE;
	EVP_PKEY_free(pkey);
	if (st != WEBAUTHN_OK)
		return st;
	/* step 21: a count that does not grow may be a cloned authenticator */
	if ((ad.sign_count != 0 || stored_count != 0) && ad.sign_count <= stored_count)
		return WEBAUTHN_COUNT_WENT_BACK;
	out->sign_count = ad.sign_count;
	out->flags = ad.flags;
	return WEBAUTHN_OK;
}
