#ifndef EDGEAUTH_AUTH_H
#define EDGEAUTH_AUTH_H
/* Bearer tokens on the management API (CONTRACT.md §5): a token is valid when
 * its signature, iss and exp check, it is not revoked, its client and project
 * are active and, for a user token, its user exists and is active. */
#include <stdbool.h>

#include "error.h"
#include "http.h"

/* Checks the Authorization header value (may be NULL) and fills *out.
 * Fails with invalid_authorization_token (err->token_was_sent set when a
 * token was given) or system_error. */
int auth_bearer(struct server *srv, const char *header, struct principal *out,
                struct api_error *err);
/* Frees the principal's strings; safe on a zeroed one. */
void principal_release(struct principal *p);
/* The verified-token cache hung on the server (created on first use). */
struct auth_cache;
void auth_cache_free(struct auth_cache *c);
/* True when the token's scope holds the named permission. */
bool principal_has(const struct principal *p, const char *permission);

#endif
