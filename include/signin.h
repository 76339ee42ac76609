#ifndef EDGEAUTH_SIGNIN_H
#define EDGEAUTH_SIGNIN_H
/*
 * Signing users in (CONTRACT.md §6): the throttle on failed attempts
 * (CONTRACT.md §1 [signin]), the user look-up, the password check on the
 * worker pool, and the code a sign-in ends with. A sign-in is a flow
 * (flow.h) nested in the caller's step, whose outcome is a plain result for
 * the caller to render. Nothing here knows HTTP: the caller hands in the
 * client's address.
 */
#include <stdbool.h>

#include "crypto.h"
#include "flow.h"
#include "server.h"
#include "store_tokens.h"
#include "store_users.h"

/* Whom a new code is for. Strings borrowed for the call's life. */
struct code_request {
	const char *project_id;
	const char *client_id;
	const char *user_id;
	const char *redirect_uri;
	const char *code_challenge;   /* S256 (RFC 7636) */
	/* The OpenID Connect side (store_tokens.h, struct store_token_row): the
	 * OIDC scopes asked for (NULL: plain OAuth), the nonce, when the user
	 * last proved a password (ms; 0: now, as for a BYOU code), the session
	 * (NULL for BYOU). */
	const char *scope;
	const char *nonce;
	int64_t auth_time;
	const char *session_id;
};

/* A code being stored; the caller keeps it until done runs. */
struct code_mint {
	char hash[SECRET_HASH_LEN + 1];
	char *family_id;
	struct new_code row;
};

/* Makes a new authorization code: random (256 bits), stored only as its
 * hash, bound to the client, redirect URI, challenge and user, living
 * [tokens] code_ttl_s, the first of a new sign-in family. On success *out
 * is the code (caller wipes and frees: crypto_wipe_free). */
void signin_code_mint(struct code_mint *m, struct server *srv, const struct code_request *req,
                      char **out, struct completion done);
void code_mint_release(struct code_mint *m);

/* A sign-in's form, its client already checked (known, active, the
 * redirect URI registered, the challenge S256). Strings borrowed until done
 * has run. */
struct signin_request {
	const char *project_id;       /* the client's */
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *email;
	const char *password;
	const char *address;          /* the client's address, for the throttle; "" unknown */
};

enum signin_outcome {
	SIGNIN_SIGNED_IN,    /* code is the new authorization code */
	SIGNIN_NO_CODE,      /* the password was right, but no code could be stored */
	/* A wrong email or password, or a user that is not active: one answer
	 * for all, so that it tells nothing about the account. */
	SIGNIN_REFUSED,
	SIGNIN_THROTTLED,    /* past a limit: retry_after_s; no password was checked */
	SIGNIN_BUSY,         /* the hash queue is full: err (temporarily_unavailable) */
};

/* How a sign-in ended. signin_result_release wipes the code. */
struct signin_result {
	enum signin_outcome outcome;
	char *code;
	int retry_after_s;
	struct api_error err;
};
void signin_result_release(struct signin_result *r);

/* The attempt counters (server.h): one account from one address, one
 * account from all addresses (so that one address cannot lock an account
 * for everyone, yet a spread guessing still stops), and one address over
 * all accounts. */
enum signin_counter {
	SIGNIN_COUNT_ACCOUNT_ADDRESS,
	SIGNIN_COUNT_ACCOUNT,
	SIGNIN_COUNT_ADDRESS,
	SIGNIN_COUNT__N
};

/* A sign-in in progress; the fields below flow are the flow's. */
struct signin {
	struct flow flow;
	struct server *srv;
	const struct signin_request *in;
	struct signin_result *out;
	struct completion done;
	char *keys[SIGNIN_COUNT__N];   /* each counter's key of this attempt */
	struct store_user_signin user;
	int verified;                  /* passwords_verify's ok */
	struct code_mint mint;
	bool code_failed;
};

/* Signs in->email in with in->password. In order: refused unchecked
 * (SIGNIN_THROTTLED) while any counter of the account or address is past
 * its limit; the user is looked up; the attempt counts, when its check is
 * queued, not when it ends, so that of a burst of guesses at most the limit
 * is checked (taken back when the queue is full: SIGNIN_BUSY); the password
 * is checked, against a dummy hash for an unknown account so that the time
 * tells nothing; a success wipes the account's counts and takes its own
 * count back from the address's, and mints a code. done's err is set only
 * when the store failed to look the user up (system_error); else *out says
 * how it ended. s is the caller's until done has run; signin_release. */
void signin_run(struct signin *s, struct server *srv, const struct signin_request *in,
                struct signin_result *out, struct completion done);
void signin_release(struct signin *s);

#endif
