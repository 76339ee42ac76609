#ifndef EDGEAUTH_GRANTS_H
#define EDGEAUTH_GRANTS_H
/*
 * The token grants (RFC 6749 §4.1.3, §4.4, §6; PKCE RFC 7636) and the
 * revocation of what they issued (RFC 7009, docs/tokens.md §"Revocation" (current/revoke)). The
 * rules and their order are those of docs/tokens.md §"Order of checks"; api_tokens.c and api_revoke.c
 * only read the request and render the answer. Nothing here knows HTTP.
 *
 * Each call is a flow (flow.h) that may wait on the store: the caller hands
 * in a struct grant it keeps until done runs, with the request's fields
 * (borrowed for as long), and gets the result in *out.
 */
#include <stdbool.h>
#include <stdint.h>

#include "basic_auth.h"
#include "crypto.h"
#include "flow.h"
#include "server.h"
#include "store.h"
#include "store_clients.h"
#include "store_device.h"
#include "store_tokens.h"
#include "access_token.h"
#include "keyring.h"

/* A token request's fields, as read from the form. */
struct grant_request {
	const char *grant_type;
	struct client_credentials client;
	const char *code;
	const char *redirect_uri;
	const char *code_verifier;
	const char *refresh_token;
	const char *device_code;  /* RFC 8628 §3.4 (docs/device.md) */
	const char *scope;        /* a device authorization request's (RFC 8628 §3.1) */
	const char *address;     /* the client's, for the audit trail; NULL: unknown */
};

/* RFC 6749 §5.1: what a grant issues. Strings owned; grant_tokens_release. */
struct grant_tokens {
	char *access_token;
	long long expires_in;
	char *scope;             /* the OIDC scopes granted, then named permissions */
	char *refresh_token;     /* NULL for client_credentials */
	char *id_token;          /* an OIDC sign-in's (docs/signin.md §"ID tokens"); else NULL */
};
void grant_tokens_release(struct grant_tokens *t);

/* A revocation request: the token (access or refresh) and who asks. */
struct revoke_request {
	const char *token;
	struct client_credentials client;
	/* docs/tokens.md §"Revocation" (current/revoke) rather than RFC 7009: token is a refresh
	 * token of the body's client, and bearer_token (or NULL) an access
	 * token to revoke too, whoever's. The client authenticates only when
	 * confidential (or when it sends a secret); an unknown one is no error. */
	bool current;
	const char *bearer_token;
	const char *address;     /* the client's, for the audit trail; NULL: unknown */
};

struct device_start;

/* A grant or revocation in progress; fields below flow are the flow's. */
struct grant {
	struct flow flow;
	struct server *srv;
	const struct grant_request *in;
	const struct revoke_request *revoke;
	struct grant_tokens *out;
	struct completion done;
	const char *client_id;               /* the client that asks */
	struct client_auth client;
	struct store_token_row record;
	struct user_claims user;             /* the user of a code or refresh token */
	char *permissions;                   /* the holder's named permissions */
	char *scope;                         /* the granted scope */
	unsigned oidc;                       /* the sign-in's OIDC scopes (id_token.h) */
	struct access_token access;
	char *id_token;
	char *refresh;                       /* a new refresh token, plain */
	struct new_refresh next;
	char hash[SECRET_HASH_LEN + 1];      /* of the code or refresh token */
	char next_hash[SECRET_HASH_LEN + 1]; /* of its successor */
	char *family_id;                     /* of a new sign-in */
	int found;                           /* the last look-up's */
	bool won;                            /* the single use was ours */
	bool grace;                          /* a repeat within the refresh grace */
	bool writing;                        /* the single use's write is under way */
	bool device;                         /* the device grant (device_grant.h) */
	char device_hash[SECRET_HASH_LEN + 1];   /* of the device code */
	struct device_row device_row;            /* as the poll read it */
	struct device_start *device_out;         /* a device authorization's answer */
	bool device_refused;                     /* a final poll without tokens, audited */
	enum api_code device_refusal;            /* its answer: access_denied, expired_token */
	int64_t repeat_ms;                   /* how far back a rotation may be repeated */
	enum api_code reuse_error;           /* the replay's answer */
	struct keyring_refresh keys;         /* brings the signing keys up to the store */
	struct event_origin by;              /* the audit trail's: the client, from its address */
	struct event event;
	char *access_project;                /* the project of an access token revoked */
};

/* Runs the grant of in->grant_type (client_credentials, authorization_code,
 * refresh_token; anything else is invalid_params). On success *out holds the
 * tokens, with an ID token for a sign-in whose code asked for openid
 * (docs/signin.md §"ID tokens"). A confidential client must send its secret
 * (invalid_client_credentials, docs/tokens.md §"Client authentication"). Within [tokens]
 * refresh_reuse_grace_s of a rotation, the rotated refresh token may be
 * used once more while its successor is unused (store_refresh_regrace);
 * so may a token whose rotation failed on this node within UNTOLD_WINDOW_S
 * (untold.h): it may have committed unknown to the client.
 * Errors: those of docs/tokens.md §"Order of checks", first to last. g is released by done's caller
 * with grant_release. */
void grants_exchange(struct grant *g, struct server *srv, const struct grant_request *in,
                     struct grant_tokens *out, struct completion done);
/* Revokes what req names if it belongs to the asking client: a refresh
 * token revokes its whole sign-in (RFC 7009 §2.1), an access token itself.
 * Unknown tokens are no error (RFC 7009 §2.2). Errors: the client's
 * (invalid_client, invalid_client_credentials: also a confidential client
 * without its secret), system_error. */
void grants_revoke(struct grant *g, struct server *srv, const struct revoke_request *req,
                   struct completion done);
void grant_release(struct grant *g);

/* RFC 8628 §3.4's grant type, whose steps are device_grant.c's (a branch
 * of grants_exchange). */
#define GRANT_TYPE_DEVICE_CODE "urn:ietf:params:oauth:grant-type:device_code"
extern flow_step *const device_code_steps[];

/* The steps and helpers the grants (grants.c) and the revocation
 * (grants_revoke.c) share; steps of a flow run by one of the calls above. */
struct grant *grant_of(struct flow *f);
void grant_finish(struct flow *f, enum step_result r);
bool grant_missing(const char *v);
/* The client's credentials as the request sent them. */
const struct client_credentials *grant_credentials(const struct grant *g);
/* Checks the secret a client sent against its own (a public client names
 * itself and must exist). */
enum step_result grant_client_authenticate(struct flow *f);
/* A confidential client must have proven its secret. */
enum step_result grant_client_proven(struct flow *f);
/* client_not_active, then project_not_active. */
enum step_result grant_client_usable(struct flow *f);
/* The asking client of a user grant: the Basic header's or the form's. */
enum step_result grant_user_client(struct flow *f);
/* The record's user (g->user), active (else the grant's invalid code or
 * token, invalid_grant for the device grant), and their permissions. */
enum step_result grant_user_read(struct flow *f);
enum step_result grant_user_active(struct flow *f);
enum step_result grant_user_scope(struct flow *f);
/* Signs the access token (and the ID token of an OIDC sign-in) of
 * g->record's sign-in and makes its successor refresh token (g->next),
 * ready for the single-use write. 0, or -1 with err. */
int grant_prepare_tokens(struct grant *g, struct api_error *err);
/* The single use of the code g->hash (g->record's): prepares the tokens
 * and redeems it, g->won saying whether this use won. */
enum step_result grant_code_redeem(struct flow *f);
/* Moves what was signed into g->out and counts the grant. */
void grant_hand_out(struct grant *g);
/* The signing keys as the store has them now, before a signature. */
enum step_result grant_keys_fresh(struct flow *f);
/* The audit trail's event of what g does, by the asking client; its
 * strings live as long as g. */
const struct event *grant_event(struct grant *g, const char *project_id, const char *action,
                                const char *target, const char *outcome);

#endif
