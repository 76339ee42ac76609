#ifndef EDGEAUTH_API_META_H
#define EDGEAUTH_API_META_H
/* Endpoints that describe the server: health, JWKS, the metadata (RFC 8414
 * and OpenID Connect Discovery, one document). */
#include "flow.h"

extern flow_step *const health_steps[];
extern flow_step *const jwks_steps[];
extern flow_step *const metadata_steps[];

#endif
