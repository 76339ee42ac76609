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

#include <stdint.h>

#include "crypto.h"
#include "flow.h"
#include "keyring.h"
#include "store.h"
#include "store_access.h"
#include "store_events.h"

/* Whether a user whose role is role_id (NULL: none) may sign in to a
 * client whose allowed_role_ids is the JSON array text allowed: [] lets
 * everyone in; else role_id must be one of its strings. NULL (no such
 * client) or text that is not a JSON array of strings (another program
 * wrote it) lets no one in: the safe side. */
bool access_rule_allows(const char *allowed, const char *role_id);

/* ---- consent (docs/signin.md §"Consent") ---- */

/* Whether every scope of scope (space-separated; NULL or "": a plain OAuth
 * request) is among consented (NULL: no consent, which covers nothing). */
bool consent_covers(const char *consented, const char *scope);
/* The scopes of consented (NULL: none) and those of scope it lacks, in
 * that order, space-separated (caller frees): what an Allow remembers. */
char *consent_union(const char *consented, const char *scope);
/* Whether a sign-in to a client that facts describe, asking for scope,
 * must show the consent page first: the client asks for consent, and the
 * user has not allowed scope, or force (prompt=consent, OIDC Core
 * §3.1.2.1). */
bool consent_needed(const struct store_access_facts *facts, const char *scope, bool force);

/* Whether prompt (space-separated; NULL: none) asks for consent. */
bool consent_prompted(const char *prompt);

/* The consent page's form token: the sign-in it follows (the request's
 * binding, factors.h's factor_binding; the user) and what Allow remembers,
 * living CONSENT_PENDING_TTL_S. Sealed under the key-encryption key for
 * the project, so that no other page's token (a second step's) opens as
 * one. */
#define CONSENT_PENDING_TTL_S 600
struct consent_pending {
	char binding[SECRET_HASH_LEN + 1];
	char *user_id;
	char *scopes;
	int64_t expires_at;
};
void consent_pending_release(struct consent_pending *p);
char *consent_pending_seal(const struct keyring *r, const char *project_id,
                           const struct consent_pending *p);
/* 0, or -1 when text is not one of ours, another project's, or expired at
 * now (ms). */
int consent_pending_open(const struct keyring *r, const char *project_id, const char *text,
                         int64_t now, struct consent_pending *out);

/* A consent's change in progress: its event (consent.grant, consent.deny
 * or consent.revoke, docs/operations.md §"Audit trail": actor the user,
 * target the client, from address, NULL or "": unknown). The caller keeps
 * it, and the strings, until done has run. */
struct consent_change {
	struct event_origin by;
	struct event event;
	struct completion done;   /* consent_deny's */
};
/* The consent page's Allow: remembers scopes (consent_union's) for the
 * user and client (store_consent_grant). */
void consent_grant(struct consent_change *c, struct store *st, const char *project_id,
                   const char *user_id, const char *client_id, const char *scopes,
                   const char *address, struct completion done);
/* The consent page's Deny: records consent.deny (outcome access_denied) as
 * an event of its own and completes done with NULL, recorded or not (the
 * store logs a failure; the refusal stands). Nothing is remembered. */
void consent_deny(struct consent_change *c, struct store *st, const char *project_id,
                  const char *user_id, const char *client_id, const char *address,
                  struct completion done);
/* The account page's (docs/signin.md §"Consent"): the user's consents, a
 * JSON array (store_consent_list), and the revocation of one, which ends
 * the client's refresh tokens of the user (*revoked false: there was
 * none, and nothing is recorded). */
void consent_list(struct store *st, const char *user_id, char **json, struct completion done);
void consent_revoke(struct consent_change *c, struct store *st, const char *project_id,
                    const char *user_id, const char *client_id, const char *address,
                    bool *revoked, struct completion done);

/* Who asks to sign in to what, from where. Strings borrowed until done has
 * run. */
struct access_ask {
	const char *project_id;
	const char *client_id;
	const char *user_id;
	const char *address;   /* the client's; NULL or "": unknown */
};

/* A check in progress; the caller keeps it until done has run. */
struct access_check {
	struct store_access_facts facts;
	struct store *st;
	struct event_origin by;
	struct event event;
	struct api_error denied;
	struct completion done;
};

/* Reads the client's rule and the user's role and completes done with
 * NULL (allowed), E_ACCESS_DENIED, or the store's error. A refusal is
 * recorded first (access.denied: actor the user, target the client,
 * outcome access_denied; docs/operations.md §"Audit trail"). */
void access_rule_check(struct access_check *c, struct store *st, const struct access_ask *ask,
                       struct completion done);
void access_check_release(struct access_check *c);

#endif
