#ifndef EDGEAUTH_STORE_FACTORS_H
#define EDGEAUTH_STORE_FACTORS_H
/*
 * Second factors (schema/014_factors.sql, docs/signin.md §"Second factors"):
 * a user's TOTP secret, sealed by the caller under the key-encryption key
 * (this area never sees it in the clear), whether its enrollment is
 * confirmed, and the time step of the last code accepted, which makes a
 * code good once. The user record's second_factors lists the confirmed
 * kinds (store_users.h). Each operation is one transaction and calls done
 * once (store.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "flow.h"
#include "store.h"
#include "store_events.h"

/* A user's TOTP factor as sign-in and the account page read it. Owned:
 * store_totp_row_release frees (and wipes the sealed text). */
struct store_totp_row {
	bool found;
	bool confirmed;
	char *sealed;        /* base64url of crypto_seal's output */
	int64_t last_step;   /* RFC 6238 time step of the last code accepted; 0: none */
};
void store_totp_row_release(struct store_totp_row *r);

/* The user's TOTP factor into *out (found false: none). */
void store_totp_get(struct store *st, const char *user_id, struct store_totp_row *out,
                    struct completion done);
/* Starts an enrollment with a new sealed secret: it replaces one that waits
 * for its first code; a confirmed factor stays as it is (*begun false). */
void store_totp_begin(struct store *st, const char *user_id, const char *sealed, bool *begun,
                      struct completion done);
/* A code of time step accepted: when the stored last step is earlier, the
 * factor is confirmed already (confirm false) or waits for its first code
 * (confirm true, which confirms it), last_step becomes step and ev is
 * recorded, *won true; else nothing changes (a replay, a use that lost a
 * race, a factor removed meanwhile), *won false. */
void store_totp_use(struct store *st, const char *user_id, int64_t step, bool confirm,
                    const struct event *ev, bool *won, struct completion done);
/* Removes the user's TOTP factor (*removed: whether there was one); ev is
 * recorded when there was. */
void store_totp_remove(struct store *st, const char *user_id, const struct event *ev,
                       bool *removed, struct completion done);

/* Recovery codes (schema/018_recovery_codes.sql): the user's codes become
 * those of hashes (space-separated crypto_hash_secret values), the old
 * ones void, and ev is recorded. */
void store_recovery_set(struct store *st, const char *user_id, const char *hashes,
                        const struct event *ev, struct completion done);
/* The user's unused code of that hash is spent (*won; a second use, an
 * unknown or a voided code, or a user whose unused codes are no longer
 * left of them: false) and ev recorded when it is. left is the count the
 * sign-in's first step saw: of two codes used with one first step, on any
 * nodes, one wins (docs/signin.md §"Second factors"). */
void store_recovery_use(struct store *st, const char *user_id, const char *hash, long long left,
                        const struct event *ev, bool *won, struct completion done);
/* How many unused codes the user has. */
void store_recovery_count(struct store *st, const char *user_id, long long *n,
                          struct completion done);
/* An administrator's reset (DELETE /users/{id}/factors, `edgeauth user
 * reset-factors`): every factor of the project's user goes and its
 * sessions end (with what was signed in through them), with the event
 * EVENT_USER_RESET_FACTORS by by. Errors, in this order: user_not_found,
 * insufficient_permission (no escalation, as for an update of the user:
 * its role holds a default-resource permission that scope lacks; NULL
 * scope: the CLI, no check), system_error. */
void store_factors_reset(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *user_id, const char *scope, struct completion done);

#endif
