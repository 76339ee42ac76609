#ifndef EDGEAUTH_ACCOUNT_CONSENTS_H
#define EDGEAUTH_ACCOUNT_CONSENTS_H
/*
 * Remembered consents on the account page (docs/signin.md §"Consent"): the
 * apps the user allowed, with the scopes and when, each revocable; a
 * revocation ends the app's refresh tokens of the user (access_rules.h's
 * consent_revoke), and the next sign-in to it asks again.
 */
#include <stdbool.h>

#include "account.h"

/* The page's part: the consents account_consents_get read. */
void account_section_consents(struct request_ctx *ctx, struct console_page *p, bool recent);

/* POST /account/consents/revoke (form: client_id) */
extern flow_step *const account_consent_revoke_steps[];

#endif
