#ifndef EDGEAUTH_TOKENS_H
#define EDGEAUTH_TOKENS_H
/* Access tokens: JWTs per RFC 9068 and CONTRACT.md §5. */
#include "error.h"
#include "server.h"

struct access_token {
	char *token;     /* compact JWS; caller frees (tokens_access_release) */
	char *jti;
	long long exp;   /* seconds since the epoch */
};

/* Issues an access token for the holder: sub is user_id, or client_id when
 * user_id is NULL. scope is space-separated named permissions. -1 with err
 * (system_error) when signing fails; out is then still to be released. */
int tokens_issue_access(struct server *srv, const char *project_id, const char *client_id,
                        const char *user_id, const char *scope, struct access_token *out,
                        struct api_error *err);
void tokens_access_release(struct access_token *t);

#endif
