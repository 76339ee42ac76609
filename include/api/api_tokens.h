#ifndef EDGEAUTH_API_TOKENS_H
#define EDGEAUTH_API_TOKENS_H
/* POST /api/v1/tokens: the token endpoint (RFC 6749 §3.2, docs/tokens.md §"Token endpoint"). */
#include "flow.h"

extern flow_step *const tokens_exchange_steps[];

#endif
