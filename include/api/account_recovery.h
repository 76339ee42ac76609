#ifndef EDGEAUTH_ACCOUNT_RECOVERY_H
#define EDGEAUTH_ACCOUNT_RECOVERY_H
/*
 * Recovery codes on the account page (docs/signin.md §"Second factors"):
 * FACTOR_RECOVERY_CODES single-use codes, shown once when the first factor
 * is enrolled and on regeneration (which voids the old ones), stored only
 * as hashes (factors.h); the page says how many are left.
 */
#include <stdbool.h>

#include "account.h"
#include "recovery_batch.h"

/* recovery_batch_store for the account page's user. */
void account_recovery_store(struct request_ctx *ctx, struct recovery_batch *b,
                            struct completion done);
/* The codes, to be written down now: they are not shown again. */
void account_recovery_show(struct console_page *p, const struct recovery_batch *b);

/* The page's part: how many codes are left (account_recovery_count, a
 * step of the page before it) and a new set, for a user with a factor. */
flow_step account_recovery_count;
void account_section_recovery(struct request_ctx *ctx, struct console_page *p, bool recent);

/* POST /account/recovery/new */
extern flow_step *const account_recovery_new_steps[];

#endif
