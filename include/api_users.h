#ifndef EDGEAUTH_API_USERS_H
#define EDGEAUTH_API_USERS_H
/* The users endpoints of SPEC.md, under /api/v1/projects/{project_id}/users. */
#include "router.h"

route_handler users_create;
route_handler users_update;
route_handler users_list;
route_handler users_get_external;
/* PUT /api/v1/users/current: the user of the bearer token (SPEC.md). */
route_handler users_update_current;

#endif
