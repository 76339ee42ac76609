#ifndef EDGEAUTH_ID_TOKEN_H
#define EDGEAUTH_ID_TOKEN_H
/*
 * OpenID Connect ID tokens (CONTRACT.md §7): issuing them is the code and
 * refresh grants' (grants.c), reading one back is the logout endpoint's
 * (id_token_hint, OIDC RP-Initiated Logout §2).
 */
#include <stddef.h>

struct keyring;

/* What an id_token_hint says, once id_token_verify_hint accepted it. */
struct id_token_hint {
	char *sub;   /* the user */
	char *aud;   /* the client it was issued to */
	char *sid;   /* the session, NULL when the sign-in had none (BYOU) */
};

/*
 * Accepts token as an edgeauth ID token: typ JWT, signed by a key the ring
 * publishes now, iss equal to issuer, string sub and aud (aud may be an
 * array of one), no scope claim (an access token is not a hint). Expiry is
 * not checked: a hint names who signed in, and logging out after the ID
 * token expired is the normal case (RP-Initiated Logout §2). 0 with *out
 * filled, or -1 with *out empty.
 */
int id_token_verify_hint(const struct keyring *r, const char *issuer, const char *token,
                         struct id_token_hint *out);
/* Frees the hint's strings; safe on a zeroed one. */
void id_token_hint_release(struct id_token_hint *h);

#endif
