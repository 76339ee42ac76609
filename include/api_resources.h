#ifndef EDGEAUTH_API_RESOURCES_H
#define EDGEAUTH_API_RESOURCES_H
/* The resources endpoints of SPEC.md, under /api/v1/projects/{project_id}/resources. */
#include "router.h"

route_handler resources_create;
route_handler resources_update;
route_handler resources_list;

#endif
