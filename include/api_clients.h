#ifndef EDGEAUTH_API_CLIENTS_H
#define EDGEAUTH_API_CLIENTS_H
/* The clients endpoints of SPEC.md, under /api/v1/projects/{project_id}/clients. */
#include "router.h"

route_handler clients_create;
route_handler clients_update;
route_handler clients_list;
route_handler clients_rotate_secret;

#endif
