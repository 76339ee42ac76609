#ifndef EDGEAUTH_API_INTROSPECT_H
#define EDGEAUTH_API_INTROSPECT_H
/* POST /api/v1/tokens/introspect (RFC 7662, docs/tokens.md §"Introspection"). */
#include "flow.h"

extern flow_step *const introspect_steps[];

#endif
