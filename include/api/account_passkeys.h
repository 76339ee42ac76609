#ifndef EDGEAUTH_ACCOUNT_PASSKEYS_H
#define EDGEAUTH_ACCOUNT_PASSKEYS_H
/*
 * A user's own passkeys page, /account/passkeys?project_id=P
 * (docs/signin.md §"Passkeys"): signed in through the project's sign-in
 * page as the console is (console.h), it lists the session user's
 * passkeys, registers a new one (WebAuthn, through the one script it
 * serves, pinned by hash in the page's CSP) and removes one. A change needs
 * a password proved at most ACCOUNT_RECENT_S ago and a post from our own
 * page with the session's form token.
 */
#include <stdbool.h>

#include "flow.h"

/* How old a sign-in may be for a change of the account's factors. */
#define ACCOUNT_RECENT_S 300
/* How long a registration's challenge may be answered. */
#define PASSKEY_CHALLENGE_TTL_S 300

/* The page's URL of project_id under issuer (the console's sign-in comes
 * back to it). Caller frees. */
char *account_passkeys_url(const char *issuer, const char *project_id);
/* Whether redirect_uri is that URL of project_id: the console client's
 * sign-in may return there. */
bool account_passkeys_is_url(const char *issuer, const char *project_id,
                             const char *redirect_uri);

/* GET and POST /account/passkeys, GET /account/passkeys.js */
extern flow_step *const account_passkeys_get_steps[];
extern flow_step *const account_passkeys_post_steps[];
extern flow_step *const account_passkeys_script_steps[];

#endif
