#ifndef EDGEAUTH_AUTH_H
#define EDGEAUTH_AUTH_H
/* Bearer tokens on the management API (docs/tokens.md §"Bearer check"): a token is valid when
 * its signature, iss and exp check, it is not revoked, its client and project
 * are active and, for a user token, its user exists and is active, and none
 * of them was deactivated since it was issued. */
#include <stdbool.h>

#include "error.h"
#include "flow.h"
#include "keyring.h"
#include "server.h"
#include "store_cache.h"

/* How far a token's iat may be ahead of this node's clock (another node's
 * clock, a second's rounding); beyond it the token is refused (docs/decisions.md
 * "Clock steps"). */
#define AUTH_IAT_LEEWAY_S 60

/* Who the bearer token speaks for, once auth_bearer accepted it. */
struct principal {
	bool present;
	char *project_id;
	char *client_id;
	char *user_id;       /* NULL for a client_credentials token */
	char *jti;
	char *scope;         /* space-separated named permissions */
	char *kid;           /* of the key that signed it */
	long long iat;
	long long exp;
	long long auth_time;  /* seconds; a user sign-in's latest password check, 0 if none */
};

/* A bearer check in progress (the caller keeps it until done runs). */
struct bearer_check {
	struct flow flow;
	struct server *srv;
	const char *token;
	struct principal *out;
	struct completion done;
	bool revoked;
	bool holders_ok;
	bool kid_unknown;     /* the signature check found no key of the token's kid */
	bool keys_forced;     /* ... and the ring was read again for it */
	struct store_stamp stamp;
	struct keyring_refresh keys;
};

/* The token of an Authorization header value "Bearer <token>" (RFC 6750
 * §2.1: the scheme is case-insensitive, one or more spaces follow), or NULL
 * when it is none. Points into header. */
const char *auth_bearer_token(const char *header);
/* Checks the Authorization header value (may be NULL) and fills *out: a
 * token of a retired key, or one whose key's publication is over, fails
 * at once, even when its signature was checked before. Fails
 * with invalid_authorization_token (err->token_was_sent set when a token was
 * given) or system_error; *out is then empty. */
void auth_bearer(struct bearer_check *c, struct server *srv, const char *header,
                 struct principal *out, struct completion done);
/* The same for a token itself (NULL: none), as introspection hands it in:
 * only an access token (typ at+jwt) is valid, never an ID or logout token. */
void auth_token(struct bearer_check *c, struct server *srv, const char *token,
                struct principal *out, struct completion done);
/* Frees the principal's strings; safe on a zeroed one. */
void auth_principal_release(struct principal *p);
/* The verified-token cache hung on the server (created on first use). */
struct auth_cache;
void auth_cache_free(struct auth_cache *c);
/* True when the token's scope holds the named permission. */
bool auth_principal_has(const struct principal *p, const char *permission);
/* The first of permissions (named permissions, space-separated as a scope
 * is) that the token's scope lacks, *len its length; NULL when it holds
 * them all. */
const char *auth_principal_lacks(const struct principal *p, const char *permissions,
                                 size_t *len);

#endif
