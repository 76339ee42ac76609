#ifndef EDGEAUTH_METRICS_HTTP_H
#define EDGEAUTH_METRICS_HTTP_H
/*
 * The metrics listener (docs/operations.md §"Metrics"): [metrics] listen gets its own
 * evhttp in the server's loop, which answers GET /metrics with the
 * exposition (metrics.h) and nothing else; the API's listener never
 * serves /metrics. Loop thread only.
 */
#include "server.h"

/* Sized for scrapers (a Prometheus pair keeps one connection each) and a
 * person with curl: beyond, as on the API's listener (conn_guard.h), the
 * listener pauses, or a connection from an address over its share is
 * closed at once. [server] request_timeout_s is the deadline here too. */
#define METRICS_MAX_CONNECTIONS 8
#define METRICS_MAX_CONNECTIONS_PER_ADDRESS 4

/* Gives metrics.h the route table's patterns and, when [metrics] listen
 * is set, binds the listener. Returns 0, or -1 (logged) when it cannot
 * listen. */
int metrics_http_start(struct server *srv);
/* Closes the listener; safe when it was never started. */
void metrics_http_free(struct server *srv);

#endif
