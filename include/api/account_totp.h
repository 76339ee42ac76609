#ifndef EDGEAUTH_ACCOUNT_TOTP_H
#define EDGEAUTH_ACCOUNT_TOTP_H
/*
 * The account page's TOTP (docs/signin.md §"Second factors"): set up with a
 * new secret shown as an otpauth:// URI (QR code and text) until a first
 * valid code confirms it, and removed. Each change needs a recent sign-in
 * (account.h). The secret is stored only sealed (factors.h).
 */
#include <stdbool.h>

#include "account.h"
#include "keyring.h"

/* The page's TOTP section (struct account_section). */
void account_section_totp(struct request_ctx *ctx, struct console_page *p, bool recent);

/* The key of a set-up waiting for its first code, user_id's secret sealed
 * (factors.h): what to do, the otpauth:// URI as a QR code and as text,
 * and the key; also the sign-in's enrollment (docs/signin.md §"Second
 * factors"). -1, with nothing written, when it does not open. */
int account_totp_key_show(struct console_page *p, const struct keyring *keys,
                          const char *issuer, const char *user_id, const char *email,
                          const char *sealed);

/* POST /account/totp/begin, /account/totp/confirm, /account/totp/remove. */
extern flow_step *const account_totp_begin_steps[];
extern flow_step *const account_totp_confirm_steps[];
extern flow_step *const account_totp_remove_steps[];

#endif
