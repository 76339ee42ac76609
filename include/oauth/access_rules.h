#ifndef EDGEAUTH_ACCESS_RULES_H
#define EDGEAUTH_ACCESS_RULES_H
/*
 * Who may sign in to which app (docs/signin.md §"Access rules"): a client
 * whose allowed_role_ids is not empty lets in only the users of those
 * roles. One rule for every path that issues a code (the sign-in form, its
 * second step, single sign-on, BYOU codes) and for the device grant; each
 * path renders the refusal its own way (access_denied on a redirect,
 * invalid_params for BYOU). Nothing here knows HTTP.
 */
#include <stdbool.h>

#include "flow.h"
#include "store.h"
#include "store_access.h"

/* Whether a user whose role is role_id (NULL: none) may sign in to a
 * client whose allowed_role_ids is the JSON array text allowed: [] lets
 * everyone in; else role_id must be one of its strings. NULL (no such
 * client) or text that is not a JSON array of strings (another program
 * wrote it) lets no one in: the safe side. */
bool access_rule_allows(const char *allowed, const char *role_id);

/* A check in progress; the caller keeps it until done has run. */
struct access_check {
	struct store_access_facts facts;
	struct completion done;
};

/* Reads the client's rule and the user's role and completes done with
 * NULL (allowed), E_ACCESS_DENIED, or the store's error. */
void access_rule_check(struct access_check *c, struct store *st, const char *client_id,
                       const char *user_id, struct completion done);
void access_check_release(struct access_check *c);

#endif
