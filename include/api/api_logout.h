#ifndef EDGEAUTH_API_LOGOUT_H
#define EDGEAUTH_API_LOGOUT_H
/* The end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0,
 * docs/signin.md §"Sessions"): ends the browser's session and sends it back to the app. */
#include "flow.h"

/* GET and POST /api/v1/logout */
extern flow_step *const logout_get_steps[];
extern flow_step *const logout_post_steps[];

#endif
