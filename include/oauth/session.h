#ifndef EDGEAUTH_SESSION_H
#define EDGEAUTH_SESSION_H
/*
 * Browser sessions (docs/signin.md §"Sessions"): a password sign-in starts one, and
 * while it lives every client of its project signs the user in without the
 * form (single sign-on). The cookie holds a secret of 256 bits that the
 * store keeps only hashed; the session's public id (the ID token's sid) is
 * another value. This file holds the rules: the cookie's name, form and
 * reading, when a session spares the form (prompt, max_age), and starting
 * and finding one. Nothing here knows HTTP: callers hand in header values.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "flow.h"
#include "server.h"
#include "store_sessions.h"

/* ---- the cookie ---- */

/* With an https issuer the cookie is a __Host- cookie, Secure; either way it
 * is for every path (the console and account pages need it). */
bool session_cookie_secure(const char *issuer);
/* The project's cookie name: "__Host-edgeauth_<project_id>" when secure,
 * else "edgeauth_<project_id>". Caller frees. */
char *session_cookie_name(const char *project_id, bool secure);
/* The value of the cookie called name in the Cookie header values
 * headers[0..n) (RFC 6265 §5.4: "name=value" pairs separated by ';',
 * blanks around them ignored; names compared exactly). NULL when it is not
 * there, is empty, or is there more than once (two cookies of one name:
 * one was planted, and we cannot tell which). Caller frees. */
char *session_cookie_value(const char *const *headers, size_t n, const char *name);
/* How many times the cookie called name is in headers[0..n). */
size_t session_cookie_count(const char *const *headers, size_t n, const char *name);
/* The Set-Cookie value that sets name to value for max_age_s seconds, or
 * (value NULL) removes it, with docs/signin.md §"Sessions"'s attributes. Caller frees. */
char *session_cookie_header(const char *name, const char *value, bool secure, long max_age_s);
/* The Set-Cookie value that removes the cookie of an http issuer's old path, /api/v1/. */
char *session_cookie_legacy_clear(const char *name);

/* ---- when the form is spared ---- */

/* What the authorization request asks of a session (OIDC Core §3.1.2.1). */
struct session_ask {
	bool prompt_none;    /* never show the form: login_required instead */
	bool prompt_login;   /* always show the form */
	long max_age;        /* seconds since the last password check; -1: any */
	/* the user an id_token_hint names (borrowed; NULL: no hint) */
	const char *user_hint;
};
#define SESSION_MAX_AGE_MAX 2147483647L

/* Reads prompt (space-separated; none and login, others ignored) and
 * max_age (an integer 0..2^31-1) when present (NULL: absent). 0, or -1 with
 * *why, a sentence for error_description (invalid_request): none with any
 * other value, or a max_age that is not such an integer. */
int session_ask_read(const char *prompt, const char *max_age, struct session_ask *out,
                     const char **why);

enum session_verdict {
	SESSION_SILENT,           /* the session signs the user in: a code at once */
	SESSION_FORM,             /* the sign-in form */
	SESSION_LOGIN_REQUIRED,   /* the form would be shown, but prompt=none */
};
/* The form is shown when there is no live session, prompt is login,
 * max_age is 0 or less than the time since auth_time (ms), or the session
 * is not the user_hint's (OIDC Core §3.1.2.1); prompt=none turns showing
 * the form into login_required. */
enum session_verdict session_judge(const struct session_ask *ask, const struct session_row *live,
                                   int64_t now);

/* ---- starting and finding one ---- */

/* RFC 8176 §2's values, as a session and its ID tokens carry them. */
#define SESSION_AMR_PASSWORD "pwd"
#define SESSION_AMR_PASSWORD_OTP "pwd otp mfa"
#define SESSION_AMR_PASSWORD_HWK "pwd hwk mfa"
#define SESSION_AMR_PASSWORD_SWK "pwd swk mfa"
#define SESSION_AMR_HWK_USER "hwk user"   /* a passkey alone, verified by the device */
#define SESSION_AMR_SWK_USER "swk user"

/* A session being started; the caller keeps it until done has run. */
struct session_begin {
	char *secret;                              /* the new cookie value */
	char hash[SECRET_HASH_LEN + 1];
	char old_hash[SECRET_HASH_LEN + 1];
	char *id;
	struct new_session row;
	char *sid;                                 /* the session now behind secret */
	int64_t auth_time;                         /* now, the password check's time */
	struct completion done;                    /* session_begin's caller's */
};
/*
 * Starts the session of a password sign-in of user_id to client_id in
 * project_id: a new cookie value (256 random bits) and, in one transaction
 * that also records client_id in it, a new session, or
 * the session the old cookie named (NULL: none sent) going on under the
 * new value with auth_time now when it is a live one of the same user (no
 * fixation: the old value stops); a live one of another user ends as by
 * logout. Lasts [sessions] ttl_s from now. Then b->secret is the cookie
 * value and b->sid the session's public id. amr (static: SESSION_AMR_*)
 * says how the user proved who they are (RFC 8176). ev (NULL: none), the
 * sign-in's event, is recorded in the same transaction.
 */
void session_begin(struct session_begin *b, struct server *srv, const char *project_id,
                   const char *user_id, const char *client_id, const char *old_cookie,
                   const char *amr, const struct event *ev, struct completion done);
/* Wipes the secret; safe on a zeroed one. */
void session_begin_release(struct session_begin *b);

/* A look-up of the session a cookie names. */
struct session_lookup {
	char hash[SECRET_HASH_LEN + 1];
	struct session_row row;
};
/* The live session of project_id that cookie (NULL: none sent) names into
 * l->row (found false when none: no cookie, an unknown, tampered, ended or
 * expired value, another project's). */
void session_find(struct session_lookup *l, struct server *srv, const char *cookie,
                  const char *project_id, struct completion done);
void session_lookup_release(struct session_lookup *l);

/* The value the logout confirmation form carries (docs/signin.md §"Logout"): bound
 * to the session's cookie value, which only the browser holds, and not the
 * stored hash. */
void session_confirm_value(const char *cookie, char out[SECRET_HASH_LEN + 1]);
/* The same for another form of the session's (purpose: "console", the
 * console's forms, docs/console.md): a value no one without the cookie can
 * make, one for each purpose. */
void session_form_value(const char *purpose, const char *cookie, char out[SECRET_HASH_LEN + 1]);

#endif
