#ifndef EDGEAUTH_API_META_H
#define EDGEAUTH_API_META_H
/* Endpoints that describe the server: health, readiness, JWKS, the metadata (RFC 8414
 * and OpenID Connect Discovery, one document). */
#include "flow.h"

extern flow_step *const health_steps[];
/* GET /readyz: 200 {"status":"ready"} when the store answers a read and the
 * signing keys sign; else 503 {"status":"unavailable"}, the reason logged. */
extern flow_step *const ready_steps[];
extern flow_step *const jwks_steps[];
extern flow_step *const metadata_steps[];

#endif
