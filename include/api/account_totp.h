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

/* The page's TOTP section (struct account_section). */
void account_section_totp(struct request_ctx *ctx, struct console_page *p, bool recent);

/* POST /account/totp/begin, /account/totp/confirm, /account/totp/remove. */
extern flow_step *const account_totp_begin_steps[];
extern flow_step *const account_totp_confirm_steps[];
extern flow_step *const account_totp_remove_steps[];

#endif
