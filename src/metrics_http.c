/*
 * The metrics listener (metrics_http.h). A scrape is rare (every 15 s or
 * so) and small: the exposition is written into the reply's buffer at
 * once. Nothing here is logged or counted as an API request.
 */
#include <stdint.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "config.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "router.h"

#define SCRAPE_TIMEOUT_S 10
#define SCRAPE_MAX_HEADER_BYTES 8192
#define SCRAPE_MAX_BODY_BYTES 1024

static void on_scrape(struct evhttp_request *req, void *arg)
{
	struct evbuffer *body = evbuffer_new();
	struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	(void)arg;
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
}

int metrics_http_start(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	size_t n;
	const struct route *routes = router_routes(&n);

	for (size_t i = 0; i < n; i++)
		metrics_route_add(i, routes[i].path);
	if (!cfg->metrics_host)
		return 0;
	srv->metrics_http = evhttp_new(srv->base);
	evhttp_set_allowed_methods(srv->metrics_http, UINT16_MAX);   /* on_scrape answers */
	evhttp_set_timeout(srv->metrics_http, SCRAPE_TIMEOUT_S);
	evhttp_set_max_headers_size(srv->metrics_http, SCRAPE_MAX_HEADER_BYTES);
	evhttp_set_max_body_size(srv->metrics_http, SCRAPE_MAX_BODY_BYTES);
	evhttp_set_gencb(srv->metrics_http, on_scrape, srv);
	if (evhttp_bind_socket(srv->metrics_http, cfg->metrics_host,
	                       (ev_uint16_t)cfg->metrics_port) != 0) {
		log_error("cannot listen on %s:%d for metrics", cfg->metrics_host, cfg->metrics_port);
		return -1;
	}
	log_info("metrics on http://%s:%d/metrics", cfg->metrics_host, cfg->metrics_port);
	return 0;
}

void metrics_http_free(struct server *srv)
{
	if (srv->metrics_http)
		evhttp_free(srv->metrics_http);
	srv->metrics_http = NULL;
}
