/*
 * libFuzzer harness: the WebAuthn verifier's CBOR and COSE input
 * (webauthn.c). Each input is used four ways:
 *   1. as an attestation object, with valid client data: webauthn_register
 *      never accepts it unless it is a "none" attestation whose credential
 *      it then returns within bounds, and whose key reads back the same;
 *   2. as authenticatorData: webauthn_auth_data_parse keeps every pointer
 *      inside the input;
 *   3. as a COSE key: webauthn_cose_key_check names ES256 or RS256 or
 *      refuses;
 *   4. as clientDataJSON of an assertion: refused (no signature can match).
 * ASan and libFuzzer's malloc limit catch a declared CBOR size that makes
 * libcbor allocate beyond the input's size.
 */
#include "fuzz.h"
#include "webauthn.h"

#define CHALLENGE "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
#define ORIGIN "http://localhost"

static const struct webauthn_expect expect = { CHALLENGE, ORIGIN, "localhost", 0 };

static void check_register(const uint8_t *data, size_t size)
{
	static const char cd[] = "{\"type\":\"webauthn.create\",\"challenge\":\"" CHALLENGE
	                         "\",\"origin\":\"" ORIGIN "\"}";
	struct webauthn_credential cred;
	enum webauthn_status st = webauthn_register(
		&expect,
		&(struct webauthn_attestation){ (const unsigned char *)cd, sizeof cd - 1, data, size },
		&cred);
	int alg;

	if (st != WEBAUTHN_OK) {
		FUZZ_CHECK(cred.public_key == NULL);
		return;
	}
	FUZZ_CHECK(cred.cred_id_len > 0 && cred.cred_id_len <= WEBAUTHN_CRED_ID_MAX);
	FUZZ_CHECK(cred.public_key_len > 0 && cred.public_key_len < size);
	FUZZ_CHECK(cred.alg == WEBAUTHN_ALG_ES256 || cred.alg == WEBAUTHN_ALG_RS256);
	/* The stored key reads back as the same algorithm. Only an RS256 key may
	 * read as malformed the second time: OpenSSL's RSA public check (SP
	 * 800-56B §6.4.2.1) runs Miller-Rabin with random bases, so a made-up
	 * modulus with large factors can show one of them on one run and not on
	 * the next. A real key's modulus (two primes) never shows one. */
	st = webauthn_cose_key_check(cred.public_key, cred.public_key_len, &alg);
	FUZZ_CHECK(st == WEBAUTHN_OK ? alg == cred.alg
	                             : cred.alg == WEBAUTHN_ALG_RS256 && st == WEBAUTHN_MALFORMED);
	webauthn_credential_release(&cred);
}

static void check_auth_data(const uint8_t *data, size_t size)
{
	struct webauthn_auth_data ad;

	if (webauthn_auth_data_parse(data, size, &ad) != WEBAUTHN_OK || !(ad.flags & WEBAUTHN_FLAG_AT))
		return;
	FUZZ_CHECK(ad.cred_id >= data && ad.cred_id + ad.cred_id_len <= data + size);
	FUZZ_CHECK(ad.cose_key > ad.cred_id && ad.cose_key + ad.cose_key_len <= data + size);
}

static void check_cose(const uint8_t *data, size_t size)
{
	int alg = 0;
	enum webauthn_status st = webauthn_cose_key_check(data, size, &alg);

	FUZZ_CHECK(st == WEBAUTHN_OK || st == WEBAUTHN_MALFORMED || st == WEBAUTHN_UNSUPPORTED_ALG);
	FUZZ_CHECK(st != WEBAUTHN_OK || alg == WEBAUTHN_ALG_ES256 || alg == WEBAUTHN_ALG_RS256);
}

static void check_client_data(const uint8_t *data, size_t size)
{
	static const unsigned char ad[37] = { 0 }, sig[8] = { 0x30 };
	struct webauthn_use use;

	FUZZ_CHECK(webauthn_verify_assertion(&expect,
	                                     &(struct webauthn_assertion){ data, size, ad, sizeof ad,
	                                                                   sig, sizeof sig },
	                                     ad, sizeof ad, 0, &use) != WEBAUTHN_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_register(data, size);
	check_auth_data(data, size);
	check_cose(data, size);
	check_client_data(data, size);
	return 0;
}
