#ifndef EDGEAUTH_ACCESS_TOKEN_H
#define EDGEAUTH_ACCESS_TOKEN_H
/* Issuing access tokens: the claims of RFC 9068 and docs/tokens.md §"Access tokens", signed
 * as a JWT (jwt.c). Checking one is auth.c's. */
#include "error.h"
#include "server.h"

struct access_token {
	char *token;     /* compact JWS; caller frees (access_token_release) */
	char *jti;
	long long exp;   /* seconds since the epoch */
};

/* Whom an access token speaks for (RFC 9068 §2.2). Strings borrowed. */
struct access_claims {
	const char *project_id;
	const char *client_id;
	const char *user_id;    /* NULL: the client itself (client_credentials) */
	const char *scope;      /* the granted scope: OIDC scopes, then named permissions */
	long long auth_time;    /* seconds: the user's sign-in (RFC 9068 §2.2.1); 0: none */
};

/* Issues an access token for c, signed ES256 by the key ring's signer
 * (refreshed in this request: keyring_refresh): sub is the user, or the
 * client when there is none. -1 with err (system_error) when signing
 * fails; out is then still to be released. */
int access_token_issue(struct server *srv, const struct access_claims *c,
                       struct access_token *out, struct api_error *err);
void access_token_release(struct access_token *t);

#endif
