#ifndef EDGEAUTH_RECOVERY_BATCH_H
#define EDGEAUTH_RECOVERY_BATCH_H
/*
 * A new set of recovery codes (docs/signin.md §"Second factors"):
 * FACTOR_RECOVERY_CODES single-use codes made and stored as hashes
 * (factors.h), voiding the old ones, for the page that shows them once:
 * the account page's, and the sign-in's enrollment of a role that
 * requires a second factor.
 */
#include "factors.h"
#include "store.h"
#include "store_events.h"

/* A new set of codes, their hashes (space-separated) and its event. */
struct recovery_batch {
	char codes[FACTOR_RECOVERY_CODES][FACTOR_RECOVERY_TEXT];
	char *hashes;
	struct event event;
};
/* Wipes the codes; safe on a zeroed batch. */
void recovery_batch_release(struct recovery_batch *b);
/* Makes b and stores it for user_id of project_id, voiding the old codes
 * (factor.recovery_codes by by, counted); done when stored. */
void recovery_batch_store(struct store *st, const struct event_origin *by,
                          const char *project_id, const char *user_id, struct recovery_batch *b,
                          struct completion done);

#endif
