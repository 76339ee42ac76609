#ifndef EDGEAUTH_AUTHORIZE_PAGES_H
#define EDGEAUTH_AUTHORIZE_PAGES_H
/*
 * The pages the authorization endpoint answers with (api_authorize.h,
 * docs/signin.md §"Password sign-in"), and the request's state its steps
 * (api_authorize.c) fill in and the pages read. Every page's form posts the
 * request's parameters back, so that the next attempt is the same request.
 */
#include <stdbool.h>
#include <stddef.h>

#include "access_rules.h"
#include "id_token.h"
#include "keyring.h"
#include "request.h"
#include "session.h"
#include "signin.h"
#include "store_clients.h"
#include "store_projects.h"

/* What the pages say after a failure. */
#define SIGNIN_FAILED "The email or password is wrong."
/* one sentence for every refusal of a passkey alone: it tells nothing of
 * which check failed */
#define PASSKEY_FAILED "The passkey was not accepted. Try again, or sign in with your password."
#define FACTOR_FAILED "The code is wrong or was used already. Type the code your app shows now."
#define FACTOR_EXPIRED "The sign-in took too long. Sign in again."

/* The authorize parameters, borrowed from the request (query or form),
 * which lives until the reply. */
struct authz_params {
	const char *response_type;
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *code_challenge_method;
	const char *state;
	/* OpenID Connect (docs/signin.md §"OpenID Connect") */
	const char *scope;
	const char *nonce;
	const char *prompt;
	const char *max_age;
	const char *login_hint;
	const char *id_token_hint;    /* GET only: whom a silent sign-in may be for */
	const char *request;          /* never supported: only checked for */
	const char *request_uri;
	/* the form's own fields (POST) */
	const char *email;
	const char *password;
	/* the second step's (docs/signin.md §"Second factors") */
	const char *factor_token;
	const char *otp;
	/* a passkey alone's (docs/signin.md §"Passkeys") */
	const char *passkey_token;
	/* the enrollment step's (docs/signin.md §"Second factors") */
	const char *enroll_token;
};

/* The table of the parameters read from the query or the form
 * (authorize_pages.c), authz_params_n of them: each one's name, its member
 * of struct authz_params, and whether the pages' forms carry it. */
struct authz_param {
	const char *name;
	size_t offset;
	bool carried;
};
extern const struct authz_param authz_params[];
extern const size_t authz_params_n;
/* The member of p that d names. */
const char **authz_param_slot(struct authz_params *p, const struct authz_param *d);

/* The request's state (ctx->state), what GET and POST share. */
struct authorize {
	struct authz_params p;
	/* the console's reserved client_id names this project (console.h): no
	 * client record, no code; the session is the sign-in */
	const char *console_project;
	struct project_state project;
	struct client_auth client;
	char *client_name;            /* NULL until read */
	bool registered;              /* the redirect URI is the client's */
	struct session_ask ask;
	struct keyring_refresh keys;  /* for the id_token_hint */
	struct id_token_hint hint;
	char *oidc_scope;             /* signin_oidc_scope's; NULL: plain OAuth */
	char *cookie;                 /* the project's session cookie, as sent */
	struct signin_request in;
	struct passkey_answer passkey;  /* a second step's, borrowed from the form */
	bool passkeys_offered;        /* the page runs the passkeys script */
	struct signin signin;
	struct signin_result result;
	struct signin_silent_request silent_in;
	struct signin_silent silent;
	enum signin_silent_outcome silent_outcome;
	char *silent_code;
	/* docs/signin.md §"Consent": the page is to be shown (GET), and an
	 * answer's form token opened (POST) */
	bool consent_show;
	struct consent_pending consent;
	struct consent_change consent_change;   /* Allow's or Deny's event */
};

/* The pages: ctx->state is the request's struct authorize; status the
 * answer's; message (NULL: none) says why the page is shown again. */

/* The sign-in form, and a passkey's; error_code NULL: access_denied. */
void authorize_form_reply(struct request_ctx *ctx, int status, const char *message,
                          const char *error_code);
/* The second step's page: the authenticator app's code, or a passkey. */
void authorize_factor_reply(struct request_ctx *ctx, int status, const char *token,
                            const char *message);
/* The enrollment step's page: a new TOTP secret and its first code. */
void authorize_enroll_reply(struct request_ctx *ctx, int status, const char *message);
/* An enrollment's recovery codes; Continue goes to location (freed here). */
void authorize_recovery_reply(struct request_ctx *ctx, char *location);
/* The consent page of user_id's sign-in, whose Allow remembers scopes. */
enum step_result authorize_consent_show(struct request_ctx *ctx, const char *user_id,
                                        const char *scopes, const char *permissions);

/* The authorization request again, as its form carries it, for a GET.
 * Caller frees. */
char *authorize_again(const char *issuer, struct authz_params *p);

#endif
