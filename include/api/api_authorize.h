#ifndef EDGEAUTH_API_AUTHORIZE_H
#define EDGEAUTH_API_AUTHORIZE_H
/* The authorization endpoint (RFC 6749 §4.1, PKCE RFC 7636, docs/signin.md §"Password sign-in"):
 * a sign-in form for Fully Managed users that ends in a redirect with a code. */
#include "flow.h"

/* GET and POST /api/v1/authorize */
extern flow_step *const authorize_get_steps[];
extern flow_step *const authorize_post_steps[];
/* POST /api/v1/projects/{project_id}/users/external/{external_user_id}/authorization-codes */

#endif
