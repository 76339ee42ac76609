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

#include "account.h"
#include "flow.h"

struct evbuffer;
struct evkeyvalq;
struct passkey_answer;

/* How long a registration's challenge may be answered. */
#define PASSKEY_CHALLENGE_TTL_S 300

/* The page's URL of project_id under issuer (the console's sign-in comes
 * back to it). Caller frees. */
char *account_passkeys_url(const char *issuer, const char *project_id);
/* Whether redirect_uri is that URL of project_id: the console client's
 * sign-in may return there. */
bool account_passkeys_is_url(const char *issuer, const char *project_id,
                             const char *redirect_uri);

/* The account page's row of passkeys (account.h's sections): a link to
 * this page. */
void account_section_passkeys(struct request_ctx *ctx, struct console_page *p, bool recent);

/* The one script's SHA-256, base64 (standard alphabet): the CSP's hash
 * source and the script tag's integrity, on this page and on the sign-in's
 * second step, which runs the same file. Static. */
const char *account_passkeys_script_hash(void);
#define ACCOUNT_PASSKEYS_SCRIPT "/account/passkeys.js"

/* The sign-in's second step with a passkey (docs/signin.md §"Passkeys"):
 * the fields of its form (the hidden answer, the options as data: the
 * challenge of factor_token, the RP ID, the credential IDs allowed, ids),
 * its button, and the script; buf holds the form's beginning. */
void account_passkeys_factor_fields(struct evbuffer *buf, const char *issuer,
                                    const char *factor_token, const char *ids);
/* The sign-in page's "Sign in with a passkey" (docs/signin.md §"Passkeys"):
 * the fields of its form (the value passkey_token, the hidden answer, the
 * options: its challenge, the RP ID, no credential IDs: a discoverable
 * passkey), its button and the script; buf holds the form's beginning. */
void account_passkeys_alone_fields(struct evbuffer *buf, const char *issuer,
                                   const char *passkey_token);
/* The assertion a sign-in's form carries into *out (borrowed from
 * form): true when it carries one. */
bool account_passkeys_answer_read(const struct evkeyvalq *form, struct passkey_answer *out);

/* GET and POST /account/passkeys, GET /account/passkeys.js */
extern flow_step *const account_passkeys_get_steps[];
extern flow_step *const account_passkeys_post_steps[];
extern flow_step *const account_passkeys_script_steps[];

#endif
