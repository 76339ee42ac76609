#ifndef EDGEAUTH_ID_TOKEN_H
#define EDGEAUTH_ID_TOKEN_H
/*
 * OpenID Connect ID tokens (docs/signin.md §"ID tokens"): the OIDC scopes a sign-in
 * carries, the claims they grant (the ID token's and UserInfo's, one
 * builder), issuing an ID token (the code and refresh grants, grants.c),
 * and reading one back (the logout endpoint's id_token_hint, OIDC
 * RP-Initiated Logout §2).
 */
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "jbody.h"
#include "jwt.h"
#include "store_tokens.h"

struct keyring;

/* The OIDC scopes (docs/signin.md §"ID tokens"), as bits of a mask. */
enum {
	ID_TOKEN_SCOPE_OPENID = 1 << 0,
	ID_TOKEN_SCOPE_PROFILE = 1 << 1,
	ID_TOKEN_SCOPE_EMAIL = 1 << 2,
	ID_TOKEN_SCOPE_ROLES = 1 << 3,
};
/* Room for the text of every scope. */
#define ID_TOKEN_SCOPES_MAX sizeof "openid profile email roles"

/* The OIDC scopes among the space-separated words of scope (NULL: none);
 * other words are ignored. */
unsigned id_token_scopes_parse(const char *scope);
/* The scopes of mask, space-separated in the fixed order openid, profile,
 * email, roles, into out; "" for none. Returns out. */
const char *id_token_scopes_text(unsigned mask, char out[ID_TOKEN_SCOPES_MAX]);
/* What a sign-in stores as its OIDC scopes (store_tokens.h): those of
 * requested, in the fixed order, when openid is among them; NULL (a plain
 * OAuth sign-in) otherwise. Caller frees. */
char *id_token_scopes_granted(const char *requested);

/* Writes into w the claims of user u that scopes grant (docs/signin.md §"ID tokens"):
 * profile: name, preferred_username (the email, else the external ID),
 * picture, updated_at (seconds); email, for a user with one: email,
 * email_verified; roles: role (its code) and permissions (the named
 * permissions of the space-separated permissions, in their order). A
 * claim without a value is left out. */
void id_token_user_claims(struct jbody_writer *w, const struct user_claims *u, unsigned scopes,
                          const char *permissions);

/* at_hash (OIDC Core §3.1.3.6): the base64url of the left half of the
 * SHA-256 of the access token, the hash both ES256 and RS256 name. */
#define ID_TOKEN_AT_HASH_LEN 22
void id_token_at_hash(const char *access_token, char out[ID_TOKEN_AT_HASH_LEN + 1]);

/* What an ID token says. Strings borrowed. */
struct id_token_request {
	const char *issuer;
	const char *user_id;         /* sub */
	const char *client_id;       /* aud */
	enum jwt_alg alg;            /* the client's id_token_signed_response_alg */
	long long ttl_s;             /* [oidc] id_token_ttl_s */
	long long auth_time;         /* seconds; 0: none */
	const char *nonce;           /* the code grant's; NULL: none */
	const char *session_id;      /* sid, and amr; NULL: none (BYOU) */
	const char *amr;             /* the session's, space-separated; NULL: "pwd" */
	const char *access_token;    /* issued beside it, for at_hash */
	unsigned scopes;
	const struct user_claims *user;
	const char *permissions;     /* the user's named permissions, for roles */
};
/* Signs the ID token (typ JWT) with the key ring's signer of req->alg.
 * Returns a new string, or NULL when no key signs alg or signing failed. */
char *id_token_issue(const struct keyring *r, const struct id_token_request *req);

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
