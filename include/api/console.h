#ifndef EDGEAUTH_CONSOLE_H
#define EDGEAUTH_CONSOLE_H
/*
 * What every page of the admin console shares (docs/console.md): the
 * console is a built-in first-party client of each project, signed in
 * through the project's own sign-in page; its pages read the project's
 * session cookie, act as the session's user with the named permissions of
 * the user's role (the request's principal, as a bearer token's would be),
 * and take a post only with the session's form token from our own origin.
 */
#include <stdbool.h>
#include <jansson.h>

#include "api_records.h"
#include "console_page.h"
#include "crypto.h"
#include "flow.h"
#include "listing.h"
#include "request.h"
#include "session.h"
#include "store_events.h"
#include "store_projects.h"

/* The console's reserved client_id of a project: this prefix and the
 * project's ID. IDs we make are base64url, without a '.', so no client
 * record can have one. */
#define CONSOLE_CLIENT_PREFIX "console."
/* The project a console client_id names (points into client_id), or NULL
 * when client_id is not the console's. */
const char *console_client_project(const char *client_id);
/* The console's home of a project, the one redirect URI its sign-in takes:
 * issuer + "/console/projects/<project_id>/". Caller frees. */
char *console_home_url(const char *issuer, const char *project_id);

/* The account page of a project (account.h), which signs in through the
 * console's client: issuer + "/account?project_id=<project_id>" ("" issuer:
 * the path). Caller frees. */
char *console_account_url(const char *issuer, const char *project_id);
/* Whether uri is a redirect URI of the console's client of project_id:
 * the console's home, or the account page (account.h), which signs in
 * through the same reserved client. */
bool console_redirect_registered(const char *issuer, const char *project_id, const char *uri);
/* The project's sign-in page as the console's client, coming back to back
 * (a console_redirect_registered URI); again: prompt=login, the password
 * is asked even of a live session. Caller frees. */
char *console_signin_url(const char *issuer, const char *project_id, const char *back,
                         bool again);
/* A console request's state (the request's page: request_state is left to
 * the API's steps the pages run); a page's own is view. */
struct console {
	const char *project_id;            /* borrowed from the path */
	char *home;                        /* console_home_url("", project_id), at first need */
	size_t home_len;
	struct project_state project;
	char *cookie;                      /* the project's session cookie; wiped */
	struct session_lookup session;
	char token[SECRET_HASH_LEN + 1];   /* the session's form token */
	char *record;                      /* the path's record (console_record_get) */
	json_t *parsed;                    /* record, parsed (console_record_parse) */
	struct list_query resources_q;     /* console_resources_get */
	struct page resources;
	json_t *resource_list;             /* resources, parsed */
	struct page roles;                 /* console_roles_get */
	struct list_query roles_q;
	struct page sessions;              /* console_sessions_get */
	struct list_query sessions_q;
	struct event signout;              /* the sign-out's, or an end's, session.end */
	bool ended;                        /* the sign-out ended the session */
	void *view;
	void (*view_release)(void *view);
};
struct console *console_of(struct request_ctx *ctx);
/* The page's own state: size zeroed bytes made at the first call. */
void *console_view_state(struct request_ctx *ctx, size_t size, void (*release)(void *view));
/* Whether the session's user's role holds the named permission (several,
 * space-separated: each of them). */
bool console_may(struct request_ctx *ctx, const char *permission);
/* A page of the project's console with its navigation (what the user may
 * read) and title. */
void console_begin(struct request_ctx *ctx, struct console_page *p, const char *title);
/* A path of the project's console: "/console/projects/<id>/" + rest. Caller
 * frees. */
char *console_path(struct request_ctx *ctx, const char *rest);

/* A page's first own step: the role must hold permission, else the 403
 * page saying reason (nothing is done); from then on a failed step is
 * answered with console_failed's page (its sentence, its status). */
enum step_result console_need(struct flow *f, const char *permission, const char *reason);
void console_failed(struct request_ctx *ctx, const struct api_error *err);

/* Steps of a page about one record: ask get for the project's record whose
 * ID is the path parameter param (STEP_WAIT); then parse it into the
 * console's parsed (a record the store could not give is its error, as
 * the API's; one it gave unreadable is system_error). */
enum step_result console_record_get(struct flow *f, record_get_op *get, const char *param);
enum step_result console_record_parse(struct flow *f);
/* The record parsed by console_record_parse (borrowed; NULL before). */
const json_t *console_record(struct request_ctx *ctx);

/* After a write: a redirect to the page of the record written (JSON
 * text with its "id"), "<area>/<id>" of the project's console, so that a
 * reload does not post again. */
enum step_result console_show_record(struct request_ctx *ctx, const char *record,
                                     const char *area);

/* No live session (console_session_find's): a GET is sent to the sign-in
 * page coming back to back_url's page of the project (console_home_url,
 * console_account_url), a POST refused with 403. STEP_NEXT with one. */
enum step_result console_session_need(struct flow *f,
                                      char *(*back_url)(const char *issuer, const char *project_id));

/* The request's principal is the live session's user (no scope: the
 * caller reads it if it needs it), its auth_time the session's, and the
 * form token the session's for purpose ("console", "account"). */
void console_act_as(struct request_ctx *ctx, const char *purpose);
/* The field of names[0..n) that err's sentence names (the API's sentences
 * start with it: "code must ...", "redirect_uris[0] must ..."), or NULL
 * (err NULL too): the form's. */
const char *console_error_field(const struct api_error *err, const char *const *names, size_t n);
/* A form of one button (label) that posts field=value (field NULL: no
 * field) and the form token to the console's path rest. */
void console_button_form(struct request_ctx *ctx, struct console_page *p, const char *rest,
                         const char *field, const char *value, const char *label);
/* A confirmation page of a change that cannot be undone: text, the record
 * (details(p, console_record), when not NULL), and one button (label)
 * posting to the console's path rest. */
void console_confirm(struct request_ctx *ctx, const char *title, const char *text,
                     void (*details)(struct console_page *p, const json_t *record),
                     const char *rest, const char *label);
/* After a delete: a redirect to the list of area ("users", ...). */
enum step_result console_show_list(struct request_ctx *ctx, const char *area);
/* A list's line "Page N of M, T <noun>." and links to the previous and the
 * next page of the console's path rest, with the request's query but for
 * its page_num (q and total: where the list is). */
void console_list_pager(struct request_ctx *ctx, struct console_page *p, const char *rest,
                        const struct list_query *q, long long total, const char *noun);

/* The steps before every signed-in page, in order: the project (404 page),
 * the session (none: a GET is sent to the sign-in page, a POST refused with
 * 403), the user's permissions (into ctx->principal), and for a POST the
 * Origin / Sec-Fetch-Site check and the form token (403 page, nothing done). */
flow_step console_project_get, console_project_check, console_session_find,
	console_session_check, console_scope_get, console_post_check;
#define CONSOLE_SIGNED_IN                                                   \
	console_project_get, console_project_check, console_session_find,     \
	console_session_check, console_scope_get, console_post_check

/* GET /console/: asks for a project's ID and sends the browser to its
 * console; lists nothing. */
extern flow_step *const console_index_steps[];

/* POST /console/projects/{project_id}/sign-out: ends the console's
 * session as /api/v1/logout does; the signed-out page. */
extern flow_step *const console_signout_steps[];

#endif
