#ifndef EDGEAUTH_SIGNIN_H
#define EDGEAUTH_SIGNIN_H
/*
 * Signing users in (docs/signin.md §"Password sign-in", §"OpenID Connect"): the throttle on failed attempts
 * (docs/operations.md §"Configuration" [signin]), the user look-up, the password check on the
 * worker pool, the session a password sign-in starts, the silent sign-in a
 * live session gives (single sign-on), and the code either ends with. A
 * sign-in is a flow (flow.h) nested in the caller's step, whose outcome is
 * a plain result for the caller to render. Nothing here knows HTTP: the
 * caller hands in the client's address and the session cookie's value.
 */
#include <stdbool.h>

#include "access_rules.h"
#include "crypto.h"
#include "factors.h"
#include "flow.h"
#include "metrics.h"
#include "passkey_auth.h"
#include "recovery_batch.h"
#include "server.h"
#include "session.h"
#include "store_events.h"
#include "store_factors.h"
#include "store_tokens.h"
#include "store_users.h"

/* The OpenID Connect scopes edgeauth knows (docs/signin.md §"ID tokens"), in the order
 * a code stores them. */
#define SIGNIN_OIDC_SCOPES { "openid", "profile", "email", "roles" }
#define SIGNIN_NONCE_MAX_CHARS 512

/* The OIDC scopes of an authorization request's scope (space-separated):
 * those of SIGNIN_OIDC_SCOPES it asks for, each once, in that order, when
 * it asks for openid (an OpenID Connect request); NULL when it does not (a
 * plain OAuth request). Other values are ignored. Caller frees. */
char *signin_oidc_scope(const char *scope);

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
	/* a BYOU code's: the caller's scope, which must carry what the user
	 * holds (no escalation, store_grants.h); NULL: no check */
	const char *grant_scope;
	/* docs/signin.md §"Consent": ask even when the user allowed the scopes
	 * (prompt=consent); never ask (a BYOU code: the project's backend
	 * vouches for the user) */
	bool consent_force;
	bool consent_skip;
	const char *address;          /* the client's, for an access refusal's event; NULL: unknown */
};

/* A code being stored; the caller keeps it until done runs. */
struct code_mint {
	char hash[SECRET_HASH_LEN + 1];
	char *family_id;
	struct new_code row;
	struct access_check access;   /* the client's access rule, checked first */
	struct server *srv;
	struct completion done;
	bool consent_force, consent_skip;
	char *consent_scopes;         /* E_CONSENT_REQUIRED: what an Allow remembers */
};
/* The user's named permissions the consent page lists (facts read by the
 * mint; NULL: none). */
const char *code_mint_permissions(const struct code_mint *m);

/* Makes a new authorization code: random (256 bits), stored only as its
 * hash, bound to the client, redirect URI, challenge and user, living
 * [tokens] code_ttl_s, the first of a new sign-in family. On success *out
 * is the code (caller wipes and frees: crypto_free_wiped). A code of a
 * session counts against [sessions] max_codes_per_minute (docs/tokens.md
 * "Limits"): past it done gets E_THROTTLED with retry_after_s, and nothing
 * is stored. First of all the client's access rule (access_rules.h) must
 * let the user in, else done gets E_ACCESS_DENIED and nothing is stored;
 * then a client that asks for consent must have it for the scopes (or be
 * asked again: req->consent_force), else done gets E_CONSENT_REQUIRED,
 * m->consent_scopes is what an Allow remembers, and nothing is stored. */
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
	const char *scope;            /* signin_oidc_scope's; NULL: plain OAuth */
	const char *nonce;            /* NULL: none */
	const char *email;
	const char *password;
	const char *address;          /* the client's address, for the throttle; "" unknown */
	const char *session_cookie;   /* the project's cookie the browser sent; NULL: none */
	/* The second step (docs/signin.md §"Second factors"): the value the
	 * first step handed out (signin_result's factor_token) and the code
	 * typed; email and password are then not read. NULL: a first step. */
	const char *factor_token;
	const char *factor_code;
	/* or a passkey's assertion (docs/signin.md §"Passkeys"); NULL: none */
	const struct passkey_answer *passkey;
	/* A passkey alone (docs/signin.md §"Passkeys"): the sign-in page's
	 * value (passkey_alone_seal) whose challenge passkey answers; email,
	 * password and the factor's fields are then not read. NULL: none. */
	const char *passkey_token;
	/* The enrollment step of a user whose role requires a second factor
	 * (docs/signin.md §"Second factors"): the value the first step handed
	 * out (SIGNIN_ENROLL_NEEDED's factor_token), with the first code of
	 * the new TOTP secret in factor_code. NULL: not that step. */
	const char *enroll_token;
	bool consent_force;           /* prompt=consent */
	/* the console's sign-in (docs/console.md): the session is all it
	 * needs, so no client is recorded in it and no code is minted
	 * (SIGNIN_SIGNED_IN with code NULL) */
	bool session_only;
};

enum signin_outcome {
	SIGNIN_SIGNED_IN,    /* code is the new authorization code */
	SIGNIN_NO_CODE,      /* the password was right, but no code could be stored */
	/* A wrong email or password, or a user that is not active: one answer
	 * for all, so that it tells nothing about the account. */
	SIGNIN_REFUSED,
	SIGNIN_THROTTLED,    /* past a limit: retry_after_s; no password was checked */
	/* the hash queue is full, or the hash could not run (no memory):
	 * err (temporarily_unavailable); not counted as a failure */
	SIGNIN_BUSY,
	/* the password was right and the session goes on (session_secret), but
	 * it was given [sessions] max_codes_per_minute codes in the last
	 * minute: no code, retry_after_s */
	SIGNIN_TOO_MANY_CODES,
	/* the password was right and the user has a second factor: nothing is
	 * started yet; factor_token carries the sign-in to its second step */
	SIGNIN_FACTOR_NEEDED,
	/* a second step's code was wrong, or used already: counted as a failed
	 * attempt; the same factor_token may be sent again */
	SIGNIN_FACTOR_REFUSED,
	/* a second step's factor_token is not one of ours, of another request,
	 * expired or spent: the sign-in starts again */
	SIGNIN_FACTOR_EXPIRED,
	/* the password (and factor) were right and the session goes on
	 * (session_secret), but the client's access rule does not let the
	 * user's role in: no code (docs/signin.md §"Access rules") */
	SIGNIN_ACCESS_DENIED,
	/* the sign-in stands (session_secret), but the client asks for consent
	 * the user has not given: consent_scopes and user_id for the page */
	SIGNIN_CONSENT_NEEDED,
	/* the password was right, the user's role requires a second factor
	 * and the user has none: nothing is started yet; a new TOTP secret
	 * waits for its first code (enroll_sealed, of user_id), and
	 * factor_token carries the sign-in to its enrollment step */
	SIGNIN_ENROLL_NEEDED,
	/* the enrollment step's code was wrong: counted as a failed attempt;
	 * the same factor_token may be sent again (enroll_sealed again) */
	SIGNIN_ENROLL_REFUSED,
};
/* The metrics label of an outcome (edgeauth_signins_total). */
enum metrics_signin signin_metric(enum signin_outcome outcome);


/* How a sign-in ended. signin_result_release wipes the code and secret. */
struct signin_result {
	enum signin_outcome outcome;
	char *code;
	/* SIGNIN_SIGNED_IN: the session's new cookie value, for the browser */
	char *session_secret;
	/* SIGNIN_FACTOR_NEEDED and SIGNIN_FACTOR_REFUSED: the second step's
	 * value, for the form */
	char *factor_token;
	/* ... and the user's passkeys' credential IDs (base64url, space
	 * separated) when the second step may be a passkey; NULL: none */
	char *passkey_ids;
	/* SIGNIN_CONSENT_NEEDED: what an Allow remembers, and the user's ID */
	char *consent_scopes;
	char *user_id;
	char *consent_permissions;    /* the user's, for the page; NULL: none */
	/* SIGNIN_ENROLL_NEEDED and SIGNIN_ENROLL_REFUSED: the TOTP secret to
	 * show, sealed (factor_totp_open with user_id) */
	char *enroll_sealed;
	/* an enrollment that passed: the new recovery codes, to be shown once
	 * before whatever the outcome leads to; NULL otherwise */
	struct recovery_batch *recovery;
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

/* The key of the account's counter (SIGNIN_COUNT_ACCOUNT, srv->signin_accounts)
 * of email in project_id: the account page's check of the current password
 * counts there too, so that a session cannot guess it unthrottled. Caller
 * frees. */
char *signin_account_key(const char *project_id, const char *email);

/* A sign-in in progress; the fields below flow are the flow's. */
struct signin {
	struct flow flow;
	struct server *srv;
	const struct signin_request *in;
	struct signin_result *out;
	struct completion done;
	char *keys[SIGNIN_COUNT__N];   /* each counter's key of this attempt */
	struct store_user_signin user;
	const char *email;             /* the throttle's account: typed, or the first step's */
	struct factor_pending pending; /* a second step's first step */
	struct factor_enroll enroll;   /* an enrollment step's first step */
	struct store_signin_factors factors;   /* the user's, read once */
	int64_t step;                  /* the time step of the code accepted */
	/* the code typed is a recovery code's (factors.h): its hash, used in
	 * place of the TOTP code */
	bool recovery;
	char recovery_hash[SECRET_HASH_LEN + 1];
	bool won;                      /* store_totp_use's (store_passkey_use's) */
	struct store_passkey passkey;  /* the one the assertion names */
	bool passkey_found;
	struct webauthn_use passkey_use;
	/* a passkey alone's: when its value was made, and the passkey's user's
	 * record (NULL: not of this project) and email (the throttle's account;
	 * NULL: counted by address only) */
	int64_t alone_issued_at;
	char *alone_record;
	char *alone_email;
	const char *amr;               /* the session's, once a factor passed */
	const char *failure_action;    /* the refusal's event */
	enum signin_outcome refusal;   /* and its outcome */
	int verified;                  /* passwords_verify's ok */
	struct session_begin session;
	struct code_mint mint;
	bool code_failed;
	bool too_many_codes;           /* the session's bound refused the code */
	bool access_denied;            /* the client's access rule refused the code */
	bool consent_needed;           /* the client asks for consent first */
	bool user_gone;                /* deleted or deactivated since user_get */
	/* the audit trail (store_events.h): who the sign-in's events are by,
	 * which counters this attempt brought to their limit, the events */
	struct event_origin by;
	bool throttle_started[SIGNIN_COUNT__N];
	struct event events[1 + SIGNIN_COUNT__N];
};

/* Signs in->email in with in->password. In order: refused unchecked
 * (SIGNIN_THROTTLED) while any counter of the account or address is past
 * its limit; the user is looked up; the attempt counts, when its check is
 * queued, not when it ends, so that of a burst of guesses at most the limit
 * is checked (taken back when the queue is full: SIGNIN_BUSY); the password
 * is checked, against a dummy hash for an unknown account so that the time
 * tells nothing; a success wipes the account's counts and takes its own
 * count back from the address's, starts a session (session_begin, with
 * in->session_cookie as the old cookie) and mints a code of that session
 * (SIGNIN_NO_CODE when either cannot be stored). The audit trail gets
 * signin.success in the session's transaction, or signin.failure (target:
 * the user's ID when the email names one, else NULL, never the email)
 * with signin.throttled for each counter the attempt brought to its
 * limit; all by the client, from in->address. done's err is set only
 * when the store failed to look the user up (system_error); else *out says
 * how it ended. s is the caller's until done has run; signin_release.
 *
 * Second factors (docs/signin.md §"Second factors"): after a right password
 * a user with a confirmed TOTP factor starts nothing (SIGNIN_FACTOR_NEEDED,
 * the attempt still counted until the factor passes, so that a known
 * password does not reset the throttle); the second step (in->factor_token)
 * opens the value (SIGNIN_FACTOR_EXPIRED), is throttled and counted as a
 * password is, checks the code (a wrong or replayed one: factor.failure,
 * SIGNIN_FACTOR_REFUSED), records the step used (factor.use: a code is good
 * once) and then goes on as a right password does.
 *
 * A passkey alone (in->passkey_token, docs/signin.md §"Passkeys"): the value
 * opens for this request (else SIGNIN_FACTOR_EXPIRED), the passkey is found
 * by its credential ID among the project's users, the attempt is throttled
 * and counted as a password is (by the address alone when no user is
 * known), and the assertion must be the passkey's user's (userHandle), of
 * an active user, not of a value the passkey was used with already, with
 * user verification, and count on (factor.failure, SIGNIN_REFUSED); its use
 * is recorded (factor.use) and the sign-in goes on as a right password and
 * factor do, with amr "hwk user" (or "swk user").
 *
 * A user whose role requires a second factor and who has none gets, after
 * a right password, a new TOTP secret waiting for its first code
 * (SIGNIN_ENROLL_NEEDED, the attempt counted as for a factor); the
 * enrollment step (in->enroll_token) opens the value (SIGNIN_FACTOR_EXPIRED
 * also when the secret waiting is no longer the value's, or is confirmed),
 * is throttled and counted, checks the code (a wrong one: factor.failure,
 * SIGNIN_ENROLL_REFUSED), confirms the factor (factor.enroll), stores new
 * recovery codes (out->recovery) and goes on as a right second factor
 * does (amr "pwd otp mfa"). */
void signin_run(struct signin *s, struct server *srv, const struct signin_request *in,
                struct signin_result *out, struct completion done);
void signin_release(struct signin *s);

/* ---- single sign-on ---- */

/* An authorization request's silent sign-in, its client checked as for a
 * sign-in. Strings borrowed until done has run. */
struct signin_silent_request {
	const char *project_id;
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *scope;
	const char *nonce;
	const char *session_cookie;   /* NULL: none */
	const char *address;          /* the client's; NULL or "": unknown */
	struct session_ask ask;
	bool consent_force;           /* prompt=consent */
	bool session_only;            /* the console's: as signin_request's */
};

enum signin_silent_outcome {
	SILENT_SIGNED_IN,        /* code is the new authorization code */
	SILENT_NO_CODE,          /* the session would do, but no code could be stored */
	SILENT_FORM,             /* the sign-in form is to be shown */
	SILENT_LOGIN_REQUIRED,   /* it would be, but the request said prompt=none */
	/* the session was given [sessions] max_codes_per_minute codes in the
	 * last minute: no code, retry_after_s */
	SILENT_TOO_MANY_CODES,
	/* the session would do, but the client's access rule does not let the
	 * user's role in: access_denied, prompt=none too */
	SILENT_ACCESS_DENIED,
	/* the session would do, but the client asks for consent first:
	 * consent_scopes, and the session's user; with prompt=none the caller
	 * answers consent_required (OIDC Core §3.1.2.6) */
	SILENT_CONSENT_NEEDED,
};

/* A silent sign-in in progress; the fields are the flow's. */
struct signin_silent {
	struct flow flow;
	struct server *srv;
	const struct signin_silent_request *in;
	enum signin_silent_outcome *outcome;
	char **code;
	struct completion done;
	struct session_lookup session;
	struct code_mint mint;
	bool code_failed;
	bool too_many_codes;
	bool access_denied;
	bool consent_needed;
	char *consent_scopes;       /* SILENT_CONSENT_NEEDED: what an Allow remembers */
	int retry_after_s;          /* SILENT_TOO_MANY_CODES: seconds to wait */
};

/* docs/signin.md §"Sessions": the live session in->session_cookie names in the
 * client's project signs the user in without the form, unless session_judge
 * says the form (or login_required): the client is recorded in the session
 * (back-channel logout) and a code is minted that carries the session's id
 * and auth_time. *code (caller wipes and frees) is set for
 * SILENT_SIGNED_IN. done's err is set only when the store failed to look
 * the session up. s is the caller's until done has run;
 * signin_silent_release. */
void signin_silent_run(struct signin_silent *s, struct server *srv,
                       const struct signin_silent_request *in,
                       enum signin_silent_outcome *outcome, char **code, struct completion done);
void signin_silent_release(struct signin_silent *s);

#endif
