#ifndef EDGEAUTH_API_ROLES_H
#define EDGEAUTH_API_ROLES_H
/* The roles endpoints of SPEC.md, under /api/v1/projects/{project_id}/roles. */
#include "router.h"

route_handler roles_create;
route_handler roles_update;
route_handler roles_list;

#endif
