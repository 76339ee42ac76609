#ifndef EDGEAUTH_METRICS_HTTP_H
#define EDGEAUTH_METRICS_HTTP_H
/*
 * The metrics listener (CONTRACT.md §10): [metrics] listen gets its own
 * evhttp in the server's loop, which answers GET /metrics with the
 * exposition (metrics.h) and nothing else; the API's listener never
 * serves /metrics. Loop thread only.
 */
#include "server.h"

/* Gives metrics.h the route table's patterns and, when [metrics] listen
 * is set, binds the listener. Returns 0, or -1 (logged) when it cannot
 * listen. */
int metrics_http_start(struct server *srv);
/* Closes the listener; safe when it was never started. */
void metrics_http_free(struct server *srv);

#endif
