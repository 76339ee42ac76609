#ifndef EDGEAUTH_CONSOLE_SESSIONS_H
#define EDGEAUTH_CONSOLE_SESSIONS_H
/* The console's sessions (docs/console.md "The pages"): the project's live
 * sessions and a user's, each endable as a sign-out ends it; and a user's
 * second factors reset after a confirmation (DELETE .../factors's steps). */
#include <jansson.h>

#include "console_page.h"
#include "flow.h"
#include "request.h"

extern flow_step *const console_sessions_list_steps[];
extern flow_step *const console_session_end_steps[];
extern flow_step *const console_user_session_end_steps[];
extern flow_step *const console_user_factors_ask_steps[];
extern flow_step *const console_user_factors_reset_steps[];

/* A step of the user's page: the live sessions of the path's user_id (the
 * first 100). */
flow_step console_user_sessions_get;
/* The user's page's part (user: its record): its sessions, each with an
 * end button for users:update, and the reset of its second factors when
 * it has some. */
void console_user_sessions(struct request_ctx *ctx, struct console_page *p, const json_t *user);

#endif
