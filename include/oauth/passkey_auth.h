#ifndef EDGEAUTH_PASSKEY_AUTH_H
#define EDGEAUTH_PASSKEY_AUTH_H
/*
 * Passkeys as the sign-in uses them (docs/signin.md §"Passkeys"): the
 * relying party's origin and RP ID from the issuer, the challenge of a
 * sign-in's second step, and an assertion checked against a stored
 * passkey (webauthn.h). Nothing here knows HTTP or the store's calls.
 */
#include <stdbool.h>
#include <stddef.h>

#include "crypto.h"
#include "store_passkeys.h"
#include "webauthn.h"

#define PASSKEY_ORIGIN_MAX 256
#define PASSKEY_RP_ID_MAX 256

/* The issuer's origin (scheme://host[:port]) and host, the RP ID; false
 * when the issuer is not such a URL or its host is an IP address, which
 * browsers refuse as RP ID (WebAuthn Level 2 §5.1.3: a valid domain). */
bool passkey_rp(const char *issuer, char origin[PASSKEY_ORIGIN_MAX],
                char rp_id[PASSKEY_RP_ID_MAX]);

/* The challenge of the second step that factor_token carries: the
 * base64url SHA-256 of it, with a purpose, so good for that sign-in and
 * its 300 s only. */
void passkey_signin_challenge(const char *factor_token, char out[SECRET_HASH_LEN + 1]);

/* An assertion as the form carries it: base64url texts. */
struct passkey_answer {
	const char *credential_id;
	const char *client_data;
	const char *auth_data;
	const char *signature;
};

/* §7.2 against the stored passkey pk of the issuer's RP: WEBAUTHN_OK with
 * *use (the new sign count, the flags), or why not (WEBAUTHN_MALFORMED for
 * text that is not base64url). */
enum webauthn_status passkey_assertion_check(const char *issuer, const char *challenge,
                                             const struct store_passkey *pk,
                                             const struct passkey_answer *ans,
                                             struct webauthn_use *use);

#endif
