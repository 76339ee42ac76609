#ifndef EDGEAUTH_ACCESS_TOKEN_H
#define EDGEAUTH_ACCESS_TOKEN_H
/* Issuing access tokens: the claims of RFC 9068 and CONTRACT.md §5, signed
 * as a JWT (jwt.c). Checking one is auth.c's. */
#include "error.h"
#include "server.h"

struct access_token {
	char *token;     /* compact JWS; caller frees (access_token_release) */
	char *jti;
	long long exp;   /* seconds since the epoch */
};

/* Issues an access token for the holder, signed ES256 by the key ring's
 * signer (refreshed in this request: keyring_refresh): sub is user_id, or
 * client_id when user_id is NULL. scope is space-separated named permissions. -1 with err
 * (system_error) when signing fails; out is then still to be released. */
int access_token_issue(struct server *srv, const char *project_id, const char *client_id,
                       const char *user_id, const char *scope, struct access_token *out,
                       struct api_error *err);
void access_token_release(struct access_token *t);

#endif
