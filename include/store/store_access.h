#ifndef EDGEAUTH_STORE_ACCESS_H
#define EDGEAUTH_STORE_ACCESS_H
/*
 * What the access rules of the sign-in read (docs/signin.md §"Access
 * rules", §"Consent"): a client's allowed_role_ids and consent_required, a
 * user's role and the scopes the user allowed the client, in one read; and
 * the consents users give (schema/024_consents.sql). The rules themselves
 * are a service's (access_rules.h); the clients API writes the client's
 * fields (store_clients.h). Each operation calls done once (store.h).
 */
#include <stdbool.h>

#include "flow.h"
#include "store.h"
#include "store_events.h"

/* Owned: store_access_facts_release frees. */
struct store_access_facts {
	char *allowed_role_ids;   /* the client's JSON array; NULL: no such client */
	char *role_id;            /* the user's role; NULL: none, or no such user */
	bool consent_required;    /* the client's */
	char *consented;          /* the scopes the user allowed the client; NULL: none */
	char *permissions;        /* the user's named permissions, sorted, space-separated */
};
void store_access_facts_release(struct store_access_facts *f);

/* The client's allowed_role_ids and the user's role into *out. */
void store_access_facts(struct store *st, const char *client_id, const char *user_id,
                        struct store_access_facts *out, struct completion done);

/* Remembers that the user allowed the client scopes (space-separated; ""
 * for a plain OAuth request), replacing what was remembered, at now, and
 * records ev (consent.grant) in the same transaction. */
void store_consent_grant(struct store *st, const char *user_id, const char *client_id,
                         const char *scopes, const struct event *ev, struct completion done);
/* The user's consents into *json (caller frees): a JSON array of
 * {client_id, client_name, scopes, granted_at} (granted_at as an ISO 8601
 * text, docs/api.md §"Field values"), the newest first. */
void store_consent_list(struct store *st, const char *user_id, char **json,
                        struct completion done);
/* Forgets the user's consent to the client, and revokes the client's
 * refresh tokens of the user with their access tokens, in one transaction
 * that records ev (consent.revoke); *revoked: whether there was one
 * (nothing is revoked nor recorded without it). */
void store_consent_revoke(struct store *st, const char *user_id, const char *client_id,
                          const struct event *ev, bool *revoked, struct completion done);

#endif
