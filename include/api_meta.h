#ifndef EDGEAUTH_API_META_H
#define EDGEAUTH_API_META_H
/* Endpoints that describe the server: health, JWKS, RFC 8414 metadata. */
#include "flow.h"
#include "router.h"

route_handler health_get;
extern flow_step *const jwks_steps[];
route_handler metadata_get;

#endif
