#ifndef EDGEAUTH_API_FORWARD_AUTH_H
#define EDGEAUTH_API_FORWARD_AUTH_H
/* The forward authentication endpoints of docs/forward-auth.md: GET
 * /api/v1/forward-auth, which a reverse proxy asks about every request to
 * an app, and GET /api/v1/forward-auth/callback, which the proxy routes
 * from the app's own /.edgeauth/callback. */
#include "flow.h"

extern flow_step *const forward_auth_steps[];
extern flow_step *const forward_auth_callback_steps[];

#endif
