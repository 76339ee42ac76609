#ifndef EDGEAUTH_STORE_ACCESS_H
#define EDGEAUTH_STORE_ACCESS_H
/*
 * What the access rules of the sign-in read (docs/signin.md §"Access
 * rules"): a client's allowed_role_ids and a user's role, in one read. The
 * rule itself is a service's (access_rules.h); the clients API writes the
 * list (store_clients.h). Each operation calls done once (store.h).
 */
#include <stdbool.h>

#include "flow.h"
#include "store.h"

/* Owned: store_access_facts_release frees. */
struct store_access_facts {
	char *allowed_role_ids;   /* the client's JSON array; NULL: no such client */
	char *role_id;            /* the user's role; NULL: none, or no such user */
};
void store_access_facts_release(struct store_access_facts *f);

/* The client's allowed_role_ids and the user's role into *out. */
void store_access_facts(struct store *st, const char *client_id, const char *user_id,
                        struct store_access_facts *out, struct completion done);

#endif
