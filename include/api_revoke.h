#ifndef EDGEAUTH_API_REVOKE_H
#define EDGEAUTH_API_REVOKE_H
/* Token revocation: RFC 7009's endpoint and SPEC.md's revoke-current. */
#include "router.h"

route_handler revoke_rfc7009;
route_handler revoke_current;

#endif
