#ifndef EDGEAUTH_API_REVOKE_H
#define EDGEAUTH_API_REVOKE_H
/* Token revocation: RFC 7009's endpoint and docs/tokens.md §"Revocation" (current/revoke). */
#include "flow.h"

extern flow_step *const revoke_rfc7009_steps[];
extern flow_step *const revoke_current_steps[];

#endif
