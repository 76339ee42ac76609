#ifndef EDGEAUTH_WEBAUTHN_H
#define EDGEAUTH_WEBAUTHN_H
/*
 * Passkeys: the relying party's checks of WebAuthn Level 2 (§7.1 registering
 * a credential, §7.2 verifying an assertion) over libcbor, jansson and
 * OpenSSL. Attestation format "none" only; COSE keys ES256 (EC2 P-256) and
 * RS256 (RSA PKCS#1 v1.5, SHA-256). Pure functions: the challenge, the
 * origin, the RP ID and the stored sign count are the caller's
 * (docs/signin.md §"Passkeys"). Every input is hostile: lengths are checked
 * before use and CBOR is pre-scanned so that no declared size makes libcbor
 * allocate more than the input's own size.
 */
#include <stddef.h>
#include <stdint.h>

/* COSE algorithm identifiers (RFC 8152 §8.1, RFC 8812 §2) */
#define WEBAUTHN_ALG_ES256 (-7)
#define WEBAUTHN_ALG_RS256 (-257)

/* authenticatorData flags (WebAuthn Level 2 §6.1; BE is Level 3's) */
#define WEBAUTHN_FLAG_UP 0x01
#define WEBAUTHN_FLAG_UV 0x04
#define WEBAUTHN_FLAG_BE 0x08
#define WEBAUTHN_FLAG_AT 0x40
#define WEBAUTHN_FLAG_ED 0x80

/* Bounds of what a browser sends (an RSA-4096 key's attestation is under
 * 1 KiB); more is refused as malformed before any parsing. */
#define WEBAUTHN_CRED_ID_MAX 1023 /* §5.8.3: credential IDs are at most 1023 bytes */
#define WEBAUTHN_CLIENT_DATA_MAX 4096
#define WEBAUTHN_CBOR_MAX 8192    /* attestationObject, authenticatorData */
#define WEBAUTHN_SIGNATURE_MAX 1024
#define WEBAUTHN_RSA_MIN_BITS 2048
#define WEBAUTHN_RSA_MAX_BITS 8192
#define WEBAUTHN_CHALLENGE_BYTES 32

enum webauthn_status {
	WEBAUTHN_OK = 0,
	WEBAUTHN_MALFORMED,          /* not the JSON or CBOR the spec describes */
	WEBAUTHN_WRONG_TYPE,         /* clientData.type */
	WEBAUTHN_WRONG_CHALLENGE,
	WEBAUTHN_WRONG_ORIGIN,
	WEBAUTHN_WRONG_RP_ID,        /* rpIdHash */
	WEBAUTHN_USER_NOT_PRESENT,   /* UP flag */
	WEBAUTHN_USER_NOT_VERIFIED,  /* UV flag, when required */
	WEBAUTHN_UNSUPPORTED_FORMAT, /* an attestation other than "none" */
	WEBAUTHN_UNSUPPORTED_ALG,    /* a key other than ES256 / RS256 */
	WEBAUTHN_BAD_SIGNATURE,
	WEBAUTHN_COUNT_WENT_BACK,    /* §7.2 step 21: a cloned authenticator? */
};

/* A short, static name of status for audit events and metrics labels
 * ("bad_signature"); never holds input. */
const char *webauthn_status_name(enum webauthn_status status);

/* What the relying party expects of a ceremony. challenge is the base64url
 * (no padding) of the bytes it sent; origin the exact origin
 * ("https://id.example"); rp_id the host name whose SHA-256 the
 * authenticator signs. */
struct webauthn_expect {
	const char *challenge;
	const char *origin;
	const char *rp_id;
	int require_uv;
};

/* authenticatorData (§6.1), its pointers into the parsed buffer. */
struct webauthn_auth_data {
	unsigned char rp_id_hash[32];
	uint8_t flags;
	uint32_t sign_count;
	/* with WEBAUTHN_FLAG_AT (§6.5.1): */
	unsigned char aaguid[16];
	const unsigned char *cred_id;
	size_t cred_id_len;
	const unsigned char *cose_key;
	size_t cose_key_len;
};

/* Parses ad[0..len). Returns WEBAUTHN_OK or WEBAUTHN_MALFORMED (short,
 * truncated attested data, a credential ID over WEBAUTHN_CRED_ID_MAX, bytes
 * after the key without the ED flag). */
enum webauthn_status webauthn_auth_data_parse(const unsigned char *ad, size_t len,
                                              struct webauthn_auth_data *out);

/* Checks that cose[0..len) is one COSE key of a supported algorithm that
 * OpenSSL accepts as a public key (a point on P-256, an RSA key of
 * WEBAUTHN_RSA_MIN_BITS..MAX_BITS); sets *alg. Returns WEBAUTHN_OK,
 * WEBAUTHN_MALFORMED or WEBAUTHN_UNSUPPORTED_ALG. */
enum webauthn_status webauthn_cose_key_check(const unsigned char *cose, size_t len, int *alg);

/* A registration's response (AuthenticatorAttestationResponse). */
struct webauthn_attestation {
	const unsigned char *client_data;
	size_t client_data_len;
	const unsigned char *attestation_object;
	size_t attestation_object_len;
};

/* A new credential: what the store keeps. public_key is the COSE key's
 * bytes (a new buffer); webauthn_credential_release frees it. */
struct webauthn_credential {
	unsigned char cred_id[WEBAUTHN_CRED_ID_MAX];
	size_t cred_id_len;
	unsigned char *public_key;
	size_t public_key_len;
	int alg;
	uint32_t sign_count;
	uint8_t flags;
	unsigned char aaguid[16];
};

void webauthn_credential_release(struct webauthn_credential *c);

/* §7.1 steps 5-19: the client data (type "webauthn.create", challenge,
 * origin), then the attestation object (fmt "none" with an empty attStmt),
 * its rpIdHash, UP (and UV when required), and the credential's public key.
 * Fills *out on WEBAUTHN_OK only (release it); step 22, a credential ID
 * not registered yet, is the store's. */
enum webauthn_status webauthn_register(const struct webauthn_expect *ex,
                                       const struct webauthn_attestation *in,
                                       struct webauthn_credential *out);

/* An assertion's response (AuthenticatorAssertionResponse). */
struct webauthn_assertion {
	const unsigned char *client_data;
	size_t client_data_len;
	const unsigned char *auth_data;
	size_t auth_data_len;
	const unsigned char *signature;
	size_t signature_len;
};

/* What a verified assertion tells: the new sign count to store, the flags. */
struct webauthn_use {
	uint32_t sign_count;
	uint8_t flags;
};

/* §7.2 steps 10-21 against the stored credential (its COSE key and sign
 * count): client data (type "webauthn.get", challenge, origin), rpIdHash,
 * UP (UV when required), the signature over authenticatorData ||
 * SHA-256(clientDataJSON), then the sign count, which must grow when
 * either it or the stored one is not zero. Fills *out on WEBAUTHN_OK. */
enum webauthn_status webauthn_verify_assertion(const struct webauthn_expect *ex,
                                               const struct webauthn_assertion *in,
                                               const unsigned char *public_key,
                                               size_t public_key_len, uint32_t stored_count,
                                               struct webauthn_use *out);

/* RFC 8176's method of a passkey with these flags: "swk" when the
 * credential may be backed up (synced off the device: BE), else "hwk". */
const char *webauthn_amr_method(uint8_t flags);

#endif
