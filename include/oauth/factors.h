#ifndef EDGEAUTH_FACTORS_H
#define EDGEAUTH_FACTORS_H
/*
 * Second factors' rules (docs/signin.md §"Second factors"): a TOTP secret
 * sealed under the key-encryption key with its user bound in, a code
 * checked against it (totp.h), and the value that binds a sign-in's second
 * step to its first. Nothing here knows HTTP or the store.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "keyring.h"

/* How long the second step may follow the password. */
#define FACTOR_PENDING_TTL_S 300

/* A TOTP secret of user_id, sealed (keyring_seal_text). Caller frees. */
char *factor_totp_seal(const struct keyring *r, const char *user_id, const unsigned char *key,
                       size_t len);
/* user_id's sealed secret opened, for the enrollment page that shows it
 * until its first code (*len its length): caller frees with
 * crypto_free_wiped. NULL when it does not open with this key. */
unsigned char *factor_totp_open(const struct keyring *r, const char *user_id, const char *sealed,
                                size_t *len);
/* Checks code against user_id's sealed secret at now_s, after last_step
 * (totp_verify): the matched step, or -1 (wrong, malformed, a replay, or a
 * secret that does not open with this key-encryption key). */
int64_t factor_totp_check(const struct keyring *r, const char *user_id, const char *sealed,
                          const char *code, int64_t now_s, int64_t last_step);

/* Recovery codes (docs/security.md §"Recovery codes"): FACTOR_RECOVERY_CODES
 * at a time, each 128 random bits written as base32 in groups of four
 * ("abcd-efgh-..."), kept only as crypto_hash_secret of the normalized
 * text: random codes need no slow hash, so checking one costs a SHA-256. */
#define FACTOR_RECOVERY_CODES 10
#define FACTOR_RECOVERY_BYTES 16
/* 26 base32 characters, a '-' after each 4: 32 and the '\0' */
#define FACTOR_RECOVERY_TEXT 33
/* A new code's text into out. */
void factor_recovery_new(char out[FACTOR_RECOVERY_TEXT]);
/* The hash of typed (any case, '-' and blanks ignored) into out: 0, or -1
 * when it is not a recovery code's form (a TOTP code, say). */
int factor_recovery_hash(const char *typed, char out[SECRET_HASH_LEN + 1]);

/* What a sign-in's first step hands its second (sealed, in the form): whose
 * password was right, the email as typed (the throttle's account key),
 * the TOTP factor's last step then, the user's unused recovery codes then
 * and the latest use of any of the user's passkeys then (a TOTP code
 * accepted moves the first, a recovery code the second, a passkey the
 * third, which spends the value: single use), when it expires (ms), and the
 * authorization request it belongs to (factor_binding). Strings owned:
 * factor_pending_release. */
struct factor_pending {
	char *user_id;
	char *email;
	int64_t last_step;
	long long recovery_left;
	int64_t passkey_used_at;
	int64_t expires_at;
	char binding[SECRET_HASH_LEN + 1];
};
void factor_pending_release(struct factor_pending *p);
/* The hash of an authorization request's parameters (NULL as ""), so that
 * a second step finishes the request its first step began. */
void factor_binding(const char *client_id, const char *redirect_uri, const char *code_challenge,
                    const char *scope, const char *nonce, char out[SECRET_HASH_LEN + 1]);
/* Opens a token sealed (keyring_seal_fields) for one authorization
 * request: n >= 2 fields, fields[0] the request's factor_binding and
 * fields[1] when the token expires (ms). The plain text, as
 * keyring_open_fields's, or NULL when it does not open, holds no binding or
 * has expired at now. */
char *factor_binding_open(const struct keyring *r, const char *aad, const char *text, int64_t now,
                          char **fields, size_t n);
/* p sealed for project_id (base64url; caller frees). */
char *factor_pending_seal(const struct keyring *r, const char *project_id,
                          const struct factor_pending *p);
/* Opens a value of project_id into *out: 0, or -1 when it is not one of
 * ours, another project's, or expired at now (ms). */
int factor_pending_open(const struct keyring *r, const char *project_id, const char *text,
                        int64_t now, struct factor_pending *out);

/* What the password step of a user whose role requires a second factor,
 * and who has none, hands the enrollment step (docs/signin.md §"Second
 * factors"), sealed in its form: whose password was right, the email as
 * typed (the throttle's account key), the hash of the TOTP secret sealed
 * for the enrollment (a later set-up replaces it, and its confirmation
 * spends the value: single use), when it expires (ms), and the
 * authorization request it belongs to. Strings owned: factor_enroll_release. */
struct factor_enroll {
	char *user_id;
	char *email;
	char secret_hash[SECRET_HASH_LEN + 1];
	int64_t expires_at;
	char binding[SECRET_HASH_LEN + 1];
};
void factor_enroll_release(struct factor_enroll *e);
/* e sealed for project_id (base64url; caller frees). */
char *factor_enroll_seal(const struct keyring *r, const char *project_id,
                         const struct factor_enroll *e);
/* Opens a value of project_id into *out: 0, or -1 when it is not one of
 * ours (a second step's value included), another project's, or expired at
 * now (ms). */
int factor_enroll_open(const struct keyring *r, const char *project_id, const char *text,
                       int64_t now, struct factor_enroll *out);

#endif
