#ifndef EDGEAUTH_API_META_H
#define EDGEAUTH_API_META_H
/* Endpoints that describe the server: health, JWKS, RFC 8414 metadata. */
#include "router.h"

route_handler health_get;
route_handler jwks_get;
route_handler metadata_get;

#endif
