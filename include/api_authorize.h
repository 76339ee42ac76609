#ifndef EDGEAUTH_API_AUTHORIZE_H
#define EDGEAUTH_API_AUTHORIZE_H
/* The authorization endpoint (RFC 6749 §4.1, PKCE RFC 7636, CONTRACT.md §6):
 * a sign-in form for Fully Managed users that ends in a redirect with a code. */
#include "router.h"

route_handler authorize_get;
route_handler authorize_post;
/* POST /api/v1/projects/{project_id}/users/external/{external_user_id}/authorization-codes */
route_handler byou_code_create;

#endif
