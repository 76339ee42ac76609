#ifndef EDGEAUTH_PASSKEY_AUTH_H
#define EDGEAUTH_PASSKEY_AUTH_H
/*
 * Passkeys as the sign-in uses them (docs/signin.md §"Passkeys"): the
 * relying party's origin and RP ID from the issuer, the challenge of a
 * sign-in's second step, the sign-in page's value of a passkey alone, and
 * an assertion checked against a stored passkey (webauthn.h). Nothing here
 * knows HTTP or the store's calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "keyring.h"
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

/* An assertion as the form carries it: base64url texts. user_handle is
 * a passkey alone's (NULL: none sent). */
struct passkey_answer {
	const char *credential_id;
	const char *client_data;
	const char *auth_data;
	const char *signature;
	const char *user_handle;
};

/* §7.2 against the stored passkey pk of the issuer's RP: WEBAUTHN_OK with
 * *use (the new sign count, the flags), or why not (WEBAUTHN_MALFORMED for
 * text that is not base64url). require_uv: the UV flag must be set (a
 * passkey alone, the only factor). */
enum webauthn_status passkey_assertion_check(const char *issuer, const char *challenge,
                                             const struct store_passkey *pk,
                                             const struct passkey_answer *ans, bool require_uv,
                                             struct webauthn_use *use);

/* A passkey alone (docs/signin.md §"Passkeys"): the sign-in page hands out
 * a sealed value of one authorization request (factor_binding) and the time
 * it was made; its challenge is passkey_signin_challenge's of that value.
 * It is good PASSKEY_ALONE_TTL_S, and once per passkey: a passkey used
 * since the value was made (its last use at or after issued_at) refuses it. */
#define PASSKEY_ALONE_TTL_S 600
/* The value for project_id's request of binding, made at now (ms); caller
 * frees. */
char *passkey_alone_seal(const struct keyring *r, const char *project_id,
                         const char binding[SECRET_HASH_LEN + 1], int64_t now);
/* Opens a value of project_id: 0 with *issued_at and its binding, or -1
 * when it is not one of ours, another project's or expired at now (ms). */
int passkey_alone_open(const struct keyring *r, const char *project_id, const char *text,
                       int64_t now, char binding[SECRET_HASH_LEN + 1], int64_t *issued_at);
/* Whether the userHandle sent (base64url) is user_id's: the user.id the
 * registration gave the authenticator is the user's ID as UTF-8 bytes. */
bool passkey_user_handle_is(const char *user_handle, const char *user_id);

#endif
