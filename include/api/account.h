#ifndef EDGEAUTH_ACCOUNT_H
#define EDGEAUTH_ACCOUNT_H
/*
 * The account page (docs/signin.md §"Account page"): a user's own, at
 * /account?project_id=P, signed in through the project's sign-in page as
 * the console is (console.h, whose checks and renderer it uses). It shows
 * the user and their live sessions (each can be ended), and changes the
 * password with the current one; a change of password or factor needs a
 * sign-in at most ACCOUNT_RECENT_S old, else the page sends the user to
 * sign in again. Every post is bound to the session (form token) and to
 * our origin, and changes nothing otherwise.
 */
#include <stdbool.h>
#include <jansson.h>

#include "console_page.h"
#include "flow.h"
#include "request.h"

/* How old a sign-in may be to change the password or a factor: the
 * recent-sign-in rule of PUT /api/v1/users/current (api_users.h). */
#define ACCOUNT_RECENT_S 300

/* Its address: console_account_url (console.h). */

/* The account page's state (the console's view, console_view_state). */
struct account_view;

/* Whether the session's sign-in is at most ACCOUNT_RECENT_S old. */
bool account_recent(struct request_ctx *ctx);

/* The steps before every account page: the project from the query, then
 * the console's checks (project, session: else to the sign-in page and
 * back here, principal and form token of purpose "account", the post's
 * origin and token). */
flow_step account_project_read, account_session_check, account_principal;
#define ACCOUNT_SIGNED_IN                                                   \
	account_project_read, console_project_get, console_project_check,     \
	console_session_find, account_session_check, account_principal,       \
	console_post_check

/* What the pages read into the view: the user's record, then parsed
 * (account_user), the user's live sessions. */
flow_step account_user_get, account_user_parse, account_sessions_get;
const json_t *account_user(struct request_ctx *ctx);
/* The user's remembered consents (docs/signin.md §"Consent"), read by
 * account_consents_get: consent_list's array (NULL before the read). */
flow_step account_consents_get;
const json_t *account_consents(struct request_ctx *ctx);
/* A change's first own step: a sign-in older than ACCOUNT_RECENT_S gets
 * a 403 page with the way to sign in again, and nothing is done. */
flow_step account_need_recent;

/* ---- the page's pieces, for the files of its sections ---- */

/* A page of the account (no navigation), a link back to it, the way to
 * sign in again (prompt=login, coming back to the page). */
void account_page_begin(struct console_page *p, const char *title);
void account_link_back(struct request_ctx *ctx, struct console_page *p);
void account_signin_again(struct request_ctx *ctx, struct console_page *p);
/* The path of a form's action: "/account/<rest>?project_id=...". Caller
 * frees. */
char *account_action_path(struct request_ctx *ctx, const char *rest);
/* Answers with a page that says reason (status); nothing was done. */
enum step_result account_refuse(struct request_ctx *ctx, int status, const char *reason);

/* One part of the page, in the order of the page's section table
 * (account_page.c): each file of a factor (TOTP, passkeys) adds its own.
 * recent: whether the sign-in is recent enough to change things (else a
 * section offers account_signin_again instead of its forms). */
struct account_section {
	const char *name;
	void (*render)(struct request_ctx *ctx, struct console_page *p, bool recent);
};
void account_section_user(struct request_ctx *ctx, struct console_page *p, bool recent);
void account_section_password(struct request_ctx *ctx, struct console_page *p, bool recent);
void account_section_sessions(struct request_ctx *ctx, struct console_page *p, bool recent);

/* GET /account (account_page.c), POST /account/password, POST
 * /account/sessions/end. */
extern flow_step *const account_page_steps[];
extern flow_step *const account_password_steps[];
extern flow_step *const account_session_end_steps[];

#endif
