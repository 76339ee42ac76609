#ifndef EDGEAUTH_DEVICE_GRANT_H
#define EDGEAUTH_DEVICE_GRANT_H
/*
 * The device authorization grant (RFC 8628, docs/device.md): a device's
 * request for a pair of codes, its polls at the token endpoint, and the
 * user's decision on /device. An approval stores an authorization code of
 * the user's session under a key only the device code leads to
 * (device_code_key), so that the tokens are those of a code grant, issued
 * once by the code's single use (store_code_redeem). Nothing here knows
 * HTTP.
 */
#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"
#include "flow.h"
#include "grants.h"
#include "server.h"
#include "store_device.h"
#include "store_events.h"
#include "store_tokens.h"

#define DEVICE_GRANT_TYPE GRANT_TYPE_DEVICE_CODE
/* RFC 8628 §6.1: 8 letters of 20 consonants, no vowels (no words) and no
 * look-alikes: 20^8 = 2.56e10 codes (docs/security.md) */
#define DEVICE_USER_CODE_ALPHABET "BCDFGHJKLMNPQRSTVWXZ"
#define DEVICE_USER_CODE_LEN 8
/* How much a slow_down adds to a device's interval (RFC 8628 §3.5). */
#define DEVICE_SLOW_DOWN_S 5
/* A request's scope, at most (invalid_params past it). */
#define DEVICE_SCOPE_MAX_CHARS 1000

/* What a device authorization request answers (RFC 8628 §3.2). */
struct device_start {
	char *device_code;                            /* wiped on release */
	char user_code[DEVICE_USER_CODE_LEN + 2];     /* shown XXXX-XXXX */
	long long expires_in;
	int interval;
};
void device_start_release(struct device_start *d);

/* A user code as typed: letters of either case, dashes and spaces ignored.
 * 0 with the eight letters, upper case, in out; -1 when it is not eight
 * letters of the alphabet. */
int device_user_code_normalize(const char *typed, char out[DEVICE_USER_CODE_LEN + 1]);
/* The hash the store keeps of a normalized user code. */
void device_user_code_hash(const char *code, char out[SECRET_HASH_LEN + 1]);
/* The key of the authorization code an approval stores, from the device
 * code's hash: the hash of that hash, which no code sent to the token
 * endpoint hashes to but the stored device hash itself. */
void device_code_key(const char *device_hash, char out[SECRET_HASH_LEN + 1]);

/* RFC 8628 §3.1-3.2: the client (authenticated as at the token endpoint:
 * a confidential one with its secret), active, allowed the grant (else
 * unauthorized_client), gets a device code and a user code living
 * [device] code_ttl_s, polled every [device] interval_s. in carries the
 * client's credentials, scope and address. g is released with
 * grant_release. */
void grants_device_authorize(struct grant *g, struct server *srv,
                             const struct grant_request *in, struct device_start *out,
                             struct completion done);

/* device_code_steps (declared in grants.h), the token endpoint's
 * device_code grant (RFC 8628 §3.4-3.5), a branch of grants_exchange: invalid_params without device_code; the client's
 * checks; unauthorized_client; invalid_grant (unknown, another client's,
 * used); expired_token; access_denied; slow_down; authorization_pending;
 * then the code grant's checks of the user and the tokens, once. */

/* The user's decision on /device, as the session's user: the authorization
 * row (found by store_device_find) is approved, after the code its device's
 * poll redeems is stored, or denied; ev is recorded with the decision. won
 * false: it was decided already or expired. Strings borrowed until done
 * ran. */
struct device_decision {
	struct server *srv;
	const struct device_row *row;
	const char *user_code_hash;
	bool approve;
	const char *user_id;
	const char *session_id;
	int64_t auth_time;           /* the session's (ms) */
	const struct event *ev;
	bool won;
	char key[SECRET_HASH_LEN + 1];
	char *family_id;
	struct new_code code;
	struct completion done;
};
void device_decide(struct device_decision *d, struct completion done);
void device_decision_release(struct device_decision *d);

#endif
