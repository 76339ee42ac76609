/*
 * The metrics listener (metrics_http.h). A scrape is rare (every 15 s or
 * so) and small: the exposition is written into the reply's buffer at
 * once. Nothing here is logged or counted as an API request. Its
 * connections are held to conn_guard's limits like the API's.
 */
#include <stdint.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "config.h"
#include "conn_guard.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "router.h"

#define SCRAPE_MAX_HEADER_BYTES 8192
#define SCRAPE_MAX_BODY_BYTES 1024

static void on_scrape(struct evhttp_request *req, void *arg)
{
	struct server *srv = arg;
	struct conn_entry *conn = conn_guard_request_started(srv->metrics_guard, req);
	struct evbuffer *body = evbuffer_new();
	struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	if (!path || strcmp(path, "/metrics") != 0) {
		evhttp_add_header(headers, "Content-Type", "text/plain; charset=utf-8");
		evbuffer_add_printf(body, "Not found: only /metrics is served here.\n");
		evhttp_send_reply(req, 404, "Not Found", body);
	} else if (!(evhttp_request_get_command(req) & (EVHTTP_REQ_GET | EVHTTP_REQ_HEAD))) {
		evhttp_add_header(headers, "Allow", "GET, HEAD");
		evhttp_send_reply(req, 405, "Method Not Allowed", body);
	} else {
		evhttp_add_header(headers, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
		evhttp_add_header(headers, "Cache-Control", "no-store");
		if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD)
			metrics_render(body);
		evhttp_send_reply(req, 200, "OK", body);
	}
	evbuffer_free(body);
	conn_guard_request_done(srv->metrics_guard, conn);
}

int metrics_http_start(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	size_t n;
	const struct route *routes = router_routes(&n);
	struct evhttp_bound_socket *bound;

	for (size_t i = 0; i < n; i++)
		metrics_route_add(i, routes[i].path);
	if (!cfg->metrics_host)
		return 0;
	srv->metrics_http = evhttp_new(srv->base);
	evhttp_set_allowed_methods(srv->metrics_http, UINT16_MAX);   /* on_scrape answers */
	evhttp_set_timeout(srv->metrics_http, cfg->request_timeout_s);
	evhttp_set_max_headers_size(srv->metrics_http, SCRAPE_MAX_HEADER_BYTES);
	evhttp_set_max_body_size(srv->metrics_http, SCRAPE_MAX_BODY_BYTES);
	evhttp_set_gencb(srv->metrics_http, on_scrape, srv);
	bound = evhttp_bind_socket_with_handle(srv->metrics_http, cfg->metrics_host,
	                                       (ev_uint16_t)cfg->metrics_port);
	if (!bound) {
		http_log_bind_error(cfg->metrics_host, cfg->metrics_port, " for metrics", "[metrics] listen");
		return -1;
	}
	/* evhttp alone holds every connection, reads all a client pipelines
	 * and times out only silence: the API listener's guard, sized for a
	 * scraper */
	srv->metrics_guard = conn_guard_new(srv, &(struct conn_policy){
		.name = "metrics",
		.http = srv->metrics_http,
		.bound = bound,
		.max_connections = METRICS_MAX_CONNECTIONS,
		.max_per_address = METRICS_MAX_CONNECTIONS_PER_ADDRESS,
		.request_timeout_s = cfg->request_timeout_s,
		.input_max = SCRAPE_MAX_HEADER_BYTES + SCRAPE_MAX_BODY_BYTES,
	});
	log_info("metrics on http://%s:%d/metrics", cfg->metrics_host, cfg->metrics_port);
	return 0;
}

void metrics_http_free(struct server *srv)
{
	if (srv->metrics_http)
		evhttp_free(srv->metrics_http);
	srv->metrics_http = NULL;
	conn_guard_free(srv->metrics_guard);   /* after evhttp_free (conn_guard.h) */
	srv->metrics_guard = NULL;
}
