#ifndef EDGEAUTH_STORE_TOKENS_H
#define EDGEAUTH_STORE_TOKENS_H
/* Authorization codes, refresh tokens, revocation, and what token issue
 * reads of a user. Codes and refresh tokens are looked up by their hash
 * (crypto_hash_secret); the plain value never reaches the store. Times: ms
 * unless named _s. */
#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "store_events.h"

/* A code or refresh token row. Strings owned; store_token_row_release frees. */
struct store_token_row {
	bool found;
	char *family_id;
	char *project_id;
	char *client_id;
	char *user_id;
	char *redirect_uri;      /* codes only */
	char *code_challenge;    /* codes only */
	int64_t created_at;
	int64_t expires_at;
	bool used;
	int64_t used_at;         /* when it was used; 0: not used */
	/* a refresh token: revoked; a code: its session has ended or is gone
	 * (the sign-in ended with it) */
	bool revoked;
	/* created at or before the last deactivation of its user, client or
	 * project: dead for good (docs/tokens.md §"Bearer check") */
	bool predates_deactivation;
	/* The sign-in's OpenID Connect side (schema/008): the OIDC scopes
	 * requested (NULL: a plain OAuth sign-in), the nonce (codes only), when
	 * the user last proved a password (ms), the session (its public id;
	 * NULL for BYOU). */
	char *scope;
	char *nonce;
	int64_t auth_time;
	char *session_id;
	char *amr;               /* the session's (store_sessions.h); NULL: none */
};
void store_token_row_release(struct store_token_row *g);

struct new_code {
	const char *hash;
	const char *family_id;
	const char *project_id;
	const char *client_id;
	const char *user_id;
	const char *redirect_uri;
	const char *code_challenge;
	int64_t expires_at;
	/* the sign-in's OpenID Connect side, as in struct store_token_row */
	const char *scope;
	const char *nonce;
	int64_t auth_time;
	const char *session_id;
	/* the issuer's scope, which must carry what the user holds
	 * (no escalation, store_grants.h); NULL: no check */
	const char *grant_scope;
};
/* Stores a new code, in its own transaction, after the no-escalation check
 * of grant_scope (its refusal, or user_not_found for a user gone). */
void store_code_insert(struct store *st, const struct new_code *c, struct completion done);
/* The code with that hash (out->found false: none). */
void store_code_get(struct store *st, const char *hash, struct store_token_row *out,
                    struct completion done);

struct new_refresh {
	const char *hash;
	const char *family_id;
	const char *project_id;
	const char *client_id;
	const char *user_id;
	const char *access_jti;
	long long access_exp_s;
	int64_t expires_at;
	/* carried from the code, rotation after rotation */
	const char *scope;
	int64_t auth_time;
	const char *session_id;
};
/* The refresh token with that hash (out->found false: none). */
void store_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                       struct completion done);
/* Single use (docs/tokens.md §"Refresh tokens and codes"): marks the code, or the refresh token, used
 * if nothing used or revoked it first, and stores its successor next, in
 * one transaction. *won is false when another use came first: then nothing
 * changed. */
void store_code_redeem(struct store *st, const char *hash, const struct new_refresh *next,
                       bool *won, struct completion done);
void store_refresh_rotate(struct store *st, const char *hash, const struct new_refresh *next,
                          bool *won, struct completion done);
/* The refresh grace (docs/tokens.md §"Refresh grace"): the refresh token hash was used at
 * or after since (ms), and the token that use issued is still unused and
 * not revoked. Then, in one transaction, that successor is revoked (the
 * single use, on its row: a use of it and this repeat race for the same
 * row), its access token too, and next is stored; *won says it happened.
 * The successor of hash stays the revoked one, so a second repeat does not
 * win. *won false: nothing changed. */
void store_refresh_regrace(struct store *st, const char *hash, int64_t since,
                           const struct new_refresh *next, bool *won, struct completion done);

/* Revokes every refresh token of the family and every access token issued
 * with one of them, in one transaction, which records ev (NULL: none). */
void store_family_revoke(struct store *st, const char *family_id, const struct event *ev,
                         struct completion done);
/* Revokes one access token by its jti until exp_s, recording ev (NULL:
 * none) in the same transaction. */
void store_access_revoke(struct store *st, const char *jti, long long exp_s,
                         const struct event *ev, struct completion done);
/* Deletes up to batch codes, refresh tokens and device authorizations
 * (store_device.h) that expired more than grace_ms ago, and revocation entries whose access token expired more than
 * grace_ms before now (ms): a revocation outlives its token by the grace,
 * so that a clock stepped forward and back cannot bring the token back
 * (on PostgreSQL codes and refresh tokens go by the database's clock).
 * Returns how many rows went, or -1. */
int store_purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                        struct api_error *err);


/* ---- what token issue reads of a user ---- */

/* A user as an ID token and UserInfo describe them (docs/signin.md §"UserInfo").
 * Strings owned; user_claims_release frees. */
struct user_claims {
	bool found;               /* the user exists in the project */
	bool is_active;
	char *display_name;
	char *email;              /* NULL: none */
	bool email_verified;
	char *external_user_id;   /* NULL: none */
	char *avatar_url;         /* NULL: none */
	int64_t updated_at;
	char *role_code;          /* NULL: no role */
};
void user_claims_release(struct user_claims *u);
/* The project's user user_id, with the code of its role, in one statement
 * (out->found false: none such). */
void store_user_claims(struct store *st, const char *project_id, const char *user_id,
                       struct user_claims *out, struct completion done);

/* ---- what a bearer check reads ---- */

/* Whether the holders of an access token still stand behind it (docs/tokens.md
 * §"Bearer check"): the client exists in the project, the client and project are active,
 * a user token's user (user_id non-NULL) exists in the project and is
 * active, and none of them was deactivated in or after the second iat_s
 * (schema/006). */
void store_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                            const char *user_id, long long iat_s, bool *ok,
                            struct completion done);
/* Whether the access token jti is revoked, and the stamp of that read. */
void store_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                            struct store_stamp *stamp, struct completion done);

#endif
