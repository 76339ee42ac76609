/*
 * evhttp set-up, the transport's part of a request and replies. A request
 * is handed to the dispatcher given at start and answered exactly once; the
 * context dies with the reply, after its log line (log.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/util.h>
#include <openssl/crypto.h>

#include "config.h"
#include "conn_guard.h"
#include "flow.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "util.h"
#include "validate.h"


static const char *status_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 302: return "Found";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 413: return "Payload Too Large";
	case 417: return "Expectation Failed";
	case 429: return "Too Many Requests";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return status >= 500 ? "Internal Server Error" : "Unknown";
	}
}

const char *http_method_name(enum evhttp_cmd_type m)
{
	switch (m) {
	case EVHTTP_REQ_GET: return "GET";
	case EVHTTP_REQ_POST: return "POST";
	case EVHTTP_REQ_HEAD: return "HEAD";
	case EVHTTP_REQ_PUT: return "PUT";
	case EVHTTP_REQ_DELETE: return "DELETE";
	case EVHTTP_REQ_OPTIONS: return "OPTIONS";
	case EVHTTP_REQ_TRACE: return "TRACE";
	case EVHTTP_REQ_CONNECT: return "CONNECT";
	case EVHTTP_REQ_PATCH: return "PATCH";
	default: return "?";
	}
}

/* The transport's part of a request: its first member (http.h). */
static struct http_exchange *exchange_of(struct request_ctx *ctx)
{
	return (struct http_exchange *)(void *)ctx;
}

static void ctx_free(struct request_ctx *ctx)
{
	struct http_exchange *x = exchange_of(ctx);

	x->srv->dispatch->release(ctx);
	if (x->reply_body)
		evbuffer_free(x->reply_body);
	free(x->path);
	free(ctx);
}

void http_add_header(struct request_ctx *ctx, const char *name, const char *value)
{
	evhttp_add_header(evhttp_request_get_output_headers(exchange_of(ctx)->req), name, value);
}

void http_add_retry_after(struct request_ctx *ctx, int seconds)
{
	char v[16];

	snprintf(v, sizeof v, "%d", seconds > 0 ? seconds : 1);
	http_add_header(ctx, "Retry-After", v);
}

/* docs/operations.md §"TLS": over TLS every answer carries Strict-Transport-Security
 * when hsts_max_age_s > 0, never with includeSubDomains (the domain's other
 * hosts may not speak TLS). Its value goes to buf; false when none is sent. */
#define HSTS_VALUE_MAX 32
static bool hsts_value(const struct server *srv, char buf[HSTS_VALUE_MAX])
{
	if (!srv->tls || srv->cfg->hsts_max_age_s <= 0)
		return false;
	snprintf(buf, HSTS_VALUE_MAX, "max-age=%ld", srv->cfg->hsts_max_age_s);
	return true;
}

static struct evbuffer *error_body(const struct api_error *err)
{
	struct evbuffer *buf = evbuffer_new();
	evbuffer_add_printf(buf, "{\"error\":\"%s\",\"error_description\":\"%s\"}", err->code,
	                    err->description);
	return buf;
}

/* Active once a request line waits: runs after the iteration's other
 * callbacks, so their lines go out in one write, before the loop polls
 * again (and before the answers, which go out when their sockets poll
 * writable). */
static void on_log_flush(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	log_flush();
}

static void send_now(struct request_ctx *ctx, int status, struct evbuffer *buf);

/* The answer leaves now, unless the server's holder keeps it back (group
 * commit: what it reports is not durable yet). */
static void send_and_free(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	struct http_exchange *x = exchange_of(ctx);
	struct server *srv = x->srv;

	x->replied = true;
	if (!x->storeless && srv->hold_answer && srv->hold_answer(ctx, status, buf))
		return;
	send_now(ctx, status, buf);
}

static void send_now(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	struct http_exchange *x = exchange_of(ctx);
	struct server *srv = x->srv;
	struct evhttp_request *req = x->req;
	int64_t us;
	char hsts[HSTS_VALUE_MAX];

	if (hsts_value(srv, hsts))
		evhttp_add_header(evhttp_request_get_output_headers(req), "Strict-Transport-Security",
		                  hsts);
	/* Stopping: the loop ends once the requests in flight are answered, so
	 * no client may send another request on this connection. */
	if (srv->stopping && !evhttp_find_header(evhttp_request_get_output_headers(req),
	                                         "Connection"))
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
	/* evhttp writes the request's version in the status line: never one we
	 * do not speak (HTTP/1.2 is answered 505 as HTTP/1.1). */
	if (req->major != 1 || (req->minor != 0 && req->minor != 1)) {
		req->major = 1;
		req->minor = 1;
	}
	/* evhttp frames a CONNECT answer as a tunnel's start: no Content-Length,
	 * and the connection kept open whatever Connection says. We never
	 * tunnel (CONNECT is refused), so it is framed and closed as a GET's. */
	if (req->type == EVHTTP_REQ_CONNECT)
		req->type = EVHTTP_REQ_GET;
	conn_guard_own_write(srv->guard, true);
	evhttp_send_reply(req, status, status_reason(status), buf);
	conn_guard_own_write(srv->guard, false);
	evbuffer_free(buf);
	conn_guard_request_done(srv->guard, x->conn);
	us = mono_us() - x->start_us;
	log_request(http_method_name(x->method), x->path, status, us);
	event_active(srv->log_ev, EV_TIMEOUT, 0);
	metrics_request(x->route_index, x->method, status, us);
	srv->in_flight--;
	ctx_free(ctx);
}

void http_send_held(struct request_ctx *ctx, int status, struct evbuffer *buf,
                    const struct api_error *err)
{
	if (err) {
		struct evkeyvalq *out = evhttp_request_get_output_headers(exchange_of(ctx)->req);

		evbuffer_free(buf);
		evhttp_clear_headers(out);
		evhttp_add_header(out, "Content-Type", "application/json");
		status = err->status;
		buf = error_body(err);
	}
	send_now(ctx, status, buf);
}

/* Every answer passes here: inside a flow it is recorded for the request's
 * finish to send (http_reply_send); outside, sent at once. */
static void reply(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	struct http_exchange *x = exchange_of(ctx);

	if (x->replied || x->reply_ready) {   /* a bug: two answers; keep the first */
		log_error("second reply to %s ignored", x->path);
		evbuffer_free(buf);
		return;
	}
	if (x->steps && x->steps->running) {
		x->reply_ready = true;
		x->reply_status = status;
		x->reply_body = buf;
		return;
	}
	send_and_free(ctx, status, buf);
}

void http_reply_send(struct request_ctx *ctx)
{
	struct http_exchange *x = exchange_of(ctx);
	struct evbuffer *buf = x->reply_body;

	x->reply_body = NULL;
	x->reply_ready = false;
	send_and_free(ctx, x->reply_status, buf);
}

void http_reply_raw(struct request_ctx *ctx, int status, const char *content_type,
                    const char *data, size_t len)
{
	struct evbuffer *buf = evbuffer_new();

	if (content_type)
		http_add_header(ctx, "Content-Type", content_type);
	if (data && len && exchange_of(ctx)->method != EVHTTP_REQ_HEAD)
		evbuffer_add(buf, data, len);
	reply(ctx, status, buf);
}

/* Most bodies fit here, so the answer is serialised once with no allocation
 * (json_dumps grows its buffer by doubling from 16 bytes); a bigger one is
 * serialised again into memory of its size. Per thread, though only the
 * loop thread replies; wiped after use, since token answers pass through. */
#define REPLY_BUF_SIZE (64 * 1024)
static _Thread_local char reply_buf[REPLY_BUF_SIZE];

void http_reply_json(struct request_ctx *ctx, int status, json_t *body)
{
	char *text = reply_buf;
	size_t n;

	if (!body) {
		http_reply_raw(ctx, status, NULL, NULL, 0);
		return;
	}
	n = json_dumpb(body, reply_buf, sizeof reply_buf, JSON_COMPACT);
	if (n > sizeof reply_buf) {
		text = malloc(n);
		n = text ? json_dumpb(body, text, n, JSON_COMPACT) : 0;
	}
	json_decref(body);
	if (n == 0) {   /* jansson only fails on out-of-memory */
		free(text == reply_buf ? NULL : text);
		http_reply_raw(ctx, 500, "application/json",
		               "{\"error\":\"system_error\",\"error_description\":\"Out of memory.\"}", 61);
		return;
	}
	http_reply_raw(ctx, status, "application/json", text, n);
	OPENSSL_cleanse(text, n);
	if (text != reply_buf)
		free(text);
}

void http_reply_error(struct request_ctx *ctx, const struct api_error *err)
{
	if (err->status == 401 && err->api_code == E_INVALID_AUTHORIZATION_TOKEN)
		http_add_header(ctx, "WWW-Authenticate", err->token_was_sent ?
		                "Bearer error=\"invalid_token\"" : "Bearer");
	else if (err->status == 401)
		http_add_header(ctx, "WWW-Authenticate", "Basic realm=\"edgeauth\"");
	else if (err->status == 503)
		http_add_header(ctx, "Retry-After", "1");
	else if (err->status == 429)
		http_add_retry_after(ctx, err->retry_after_s);
	else if (err->status == 403)
		http_add_header(ctx, "WWW-Authenticate", "Bearer error=\"insufficient_scope\"");
	http_reply_json(ctx, err->status, json_pack("{s:s, s:s}", "error", err->code,
	                "error_description", err->description));
}

/* Every method HTTP defines; evhttp marks any other with a bit of its own. */
#define KNOWN_METHODS (EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | \
                       EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | \
                       EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)

/* Headers that must not be given twice (two Content-Lengths smuggle a
 * request; two Authorizations confuse who asks), and the values of each. */
enum { H_CONTENT_LENGTH, H_AUTHORIZATION, H_CONTENT_TYPE, H_HOST, H_TRANSFER_ENCODING, H_SINGLE };
static const char *const single_headers[H_SINGLE] = {
	[H_CONTENT_LENGTH] = "Content-Length", [H_AUTHORIZATION] = "Authorization",
	[H_CONTENT_TYPE] = "Content-Type", [H_HOST] = "Host",
	[H_TRANSFER_ENCODING] = "Transfer-Encoding",
};

/* RFC 9110 §5.6.2: a token is 1*tchar. */
static bool is_token(const char *s)
{
	size_t n = http_token_span(s);

	return n > 0 && !s[n];
}

/* One pass over the request's headers. evhttp splits a line at its first
 * ':' and keeps what precedes it as the name, so "Content-Length : 5" is a
 * header named "Content-Length " that frames nothing (RFC 9112 §5.1 asks
 * for 400). Fills value[] with the single headers' values (NULL when
 * absent). Returns 0, or -1 with err. */
static int scan_headers(struct evkeyvalq *in, const char *value[H_SINGLE], struct api_error *err)
{
	const struct evkeyval *kv;
	int count[H_SINGLE] = { 0 };

	TAILQ_FOREACH(kv, in, next) {
		if (!is_token(kv->key))
			return api_fail(err, E_INVALID_PARAMS, "A header name is not a token "
			                "(no space may come before its colon).");
		for (int i = 0; i < H_SINGLE; i++)
			if (!strcasecmp(kv->key, single_headers[i]) && count[i]++ == 0)
				value[i] = kv->value;
	}
	for (int i = 0; i < H_SINGLE; i++)
		if (count[i] > 1)
			return api_fail(err, E_INVALID_PARAMS, "The %s header is given more than once.",
			                single_headers[i]);
	return 0;
}

/* How the body is framed, beyond what evhttp checks: Content-Length is
 * digits only (evhttp's strtoll also takes "+5" and " 5"), no transfer
 * coding but chunked (RFC 9112 §6.3: the length is otherwise unknown), and
 * no body on a HEAD, whose body evhttp would read as the next request. */
static int framing_sane(enum evhttp_cmd_type method, const char *const value[H_SINGLE],
                        struct api_error *err)
{
	const char *cl = value[H_CONTENT_LENGTH], *te = value[H_TRANSFER_ENCODING];
	long n = 0;

	if (cl && parse_long_range(cl, 0, LONG_MAX, &n) < 0)
		return api_fail(err, E_INVALID_PARAMS, "Content-Length must be a decimal number.");
	if (te && strcasecmp(te, "chunked"))
		return api_fail(err, E_INVALID_PARAMS, "No Transfer-Encoding but chunked is supported.");
	if (method == EVHTTP_REQ_HEAD && (n > 0 || te))
		return api_fail(err, E_INVALID_PARAMS, "A HEAD request has no body.");
	return 0;
}

/* What evhttp lets through but HTTP forbids: another version than 1.0 or
 * 1.1, a method HTTP does not define, control bytes or spaces in the
 * request target, a malformed header or framing (see above), and an
 * HTTP/1.1 request without Host (RFC 9112 §3.2). Returns 0, or -1 with err;
 * the connection must then be closed, since the framing is in doubt. */
static int request_sane(struct evhttp_request *req, const struct conn_entry *conn,
                        struct api_error *err)
{
	const char *value[H_SINGLE] = { NULL };
	const char *target = evhttp_request_get_uri(req);

	if (req->major != 1 || (req->minor != 0 && req->minor != 1))
		return api_fail(err, E_VERSION_NOT_SUPPORTED, "Only HTTP/1.0 and HTTP/1.1 are served.");
	if (!(req->type & KNOWN_METHODS))
		return api_fail(err, E_NOT_IMPLEMENTED, "This method is not an HTTP method.");
	for (const unsigned char *c = (const unsigned char *)target; c && *c; c++)
		if (*c <= 0x20 || *c == 0x7f)
			return api_fail(err, E_INVALID_PARAMS, "The request target holds a control character.");
	/* RFC 9112 §5.2: obs-fold is refused; evhttp would join it to the value */
	if (conn_guard_request_folded(conn))
		return api_fail(err, E_INVALID_PARAMS, "Header lines may not be folded.");
	if (scan_headers(evhttp_request_get_input_headers(req), value, err) < 0 ||
	    framing_sane(req->type, value, err) < 0)
		return -1;
	/* No endpoint tunnels or echoes; say so before routing. */
	if (req->type == EVHTTP_REQ_CONNECT || req->type == EVHTTP_REQ_TRACE)
		return api_fail(err, E_METHOD_NOT_ALLOWED, "This method is not allowed here.");
	if (req->minor == 1 && !value[H_HOST])
		return api_fail(err, E_INVALID_PARAMS, "HTTP/1.1 requests need a Host header.");
	return 0;
}

/* The JSON error that replaces libevent's own page of a status: false for
 * a status libevent does not answer with a page of its own. */
static bool libevent_error(int status, struct api_error *err)
{
	switch (status) {
	case 400:
		api_fail(err, E_INVALID_PARAMS, "The request is malformed, or its header is larger "
		         "than max_header_bytes.");
		return true;
	case 413:
		api_fail(err, E_PAYLOAD_TOO_LARGE, "The request body is larger than max_body_bytes.");
		return true;
	case 417:
		api_fail(err, E_EXPECTATION_FAILED, "Only Expect: 100-continue is supported.");
		return true;
	default:
		return false;
	}
}

/* The status of the answer at offset *from of out, or -1. A 100 Continue
 * before it is skipped (*from moves past it). The version is the request's,
 * whatever digits it had. */
static int answer_status(struct evbuffer *out, size_t *from)
{
	struct evbuffer_ptr p;
	char line[32];
	const char *sp;
	ev_ssize_t n;
	int status;

	for (;;) {
		if (evbuffer_ptr_set(out, &p, *from, EVBUFFER_PTR_SET) < 0 ||
		    (n = evbuffer_copyout_from(out, &p, line, sizeof line - 1)) <= 0)
			return -1;
		line[n] = '\0';
		sp = strchr(line, ' ');
		if (strncmp(line, "HTTP/", 5) || !sp || sscanf(sp, " %3d", &status) != 1)
			return -1;
		if (status != 100)
			return status;
		p = evbuffer_search(out, "\r\n\r\n", 4, &p);
		if (p.pos < 0)
			return -1;
		*from = (size_t)p.pos + 4;
	}
}

/* conn_guard's hook: libevent answered a request itself, with its HTML
 * page, before edgeauth saw the request (a body over max_body_bytes, a
 * malformed request line or header, an Expect it does not know). The page
 * is still in out from `from` on, unsent: it becomes the JSON error of the
 * same status, and is logged. Method and path are not known by then.
 * Returns true for such an error: the connection ends with it, as its
 * Connection: close says (evhttp would not end a CONNECT's). */
static bool on_libevent_answer(struct evbuffer *out, size_t from, void *arg)
{
	struct api_error err;
	struct evbuffer *body, *keep;
	char date[64], hsts[HSTS_VALUE_MAX];
	int status = answer_status(out, &from);

	if (status < 0 || !libevent_error(status, &err))
		return false;
	keep = evbuffer_new();   /* what precedes the page (a 100 Continue) */
	evbuffer_remove_buffer(out, keep, from);
	evbuffer_drain(out, evbuffer_get_length(out));
	evbuffer_add_buffer(out, keep);
	evbuffer_free(keep);
	body = error_body(&err);
	evutil_date_rfc1123(date, sizeof date, NULL);
	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	                    "Content-Length: %zu\r\nConnection: close\r\nDate: %s\r\n",
	                    err.status, status_reason(err.status), evbuffer_get_length(body), date);
	if (hsts_value(arg, hsts))
		evbuffer_add_printf(out, "Strict-Transport-Security: %s\r\n", hsts);
	evbuffer_add(out, "\r\n", 2);
	evbuffer_add_buffer(out, body);
	evbuffer_free(body);
	log_request(NULL, NULL, err.status, -1);
	event_active(((struct server *)arg)->log_ev, EV_TIMEOUT, 0);
	metrics_request(-1, 0 /* not known: "other" */, err.status, -1);
	return true;
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct server *srv = arg;
	struct request_ctx *ctx = xcalloc(1, srv->dispatch->ctx_size);
	struct http_exchange *x = exchange_of(ctx);
	struct api_error err;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	x->srv = srv;
	x->req = req;
	x->start_us = mono_us();
	x->method = evhttp_request_get_command(req);
	x->route_index = -1;
	x->path = xstrdup(path && *path ? path : "/");
	srv->in_flight++;
	srv->requests++;
	x->conn = conn_guard_request_started(srv->guard, req);
	if (request_sane(req, x->conn, &err) < 0) {
		/* the framing itself is in doubt: answer and close */
		http_add_header(ctx, "Connection", "close");
		http_reply_error(ctx, &err);
		return;
	}
	srv->dispatch->dispatch(ctx);
}

void http_log_bind_error(const char *host, int port, const char *what, const char *key)
{
	int err = errno;   /* libevent keeps bind()'s */

	log_error("cannot listen on %s:%d%s: %s; %sset %s", host, port, what, strerror(err),
	          err == EADDRINUSE ? "is another edgeauth running? " : "", key);
}

int http_start(struct server *srv, const struct http_dispatch *d)
{
	const struct config *cfg = srv->cfg;

	srv->dispatch = d;
	srv->http = evhttp_new(srv->base);
	if (!srv->http)
		return -1;
	evhttp_set_max_body_size(srv->http, cfg->max_body_bytes);
	evhttp_set_max_headers_size(srv->http, cfg->max_header_bytes);
	evhttp_set_timeout(srv->http, cfg->request_timeout_s);
	/* Every method reaches on_request, those HTTP does not define too (evhttp
	 * marks them with a bit outside KNOWN_METHODS): they get our JSON 501
	 * rather than evhttp's HTML page. */
	evhttp_set_allowed_methods(srv->http, UINT16_MAX);
	evhttp_set_default_content_type(srv->http, "application/json");
	evhttp_set_gencb(srv->http, on_request, srv);
	srv->bound = evhttp_bind_socket_with_handle(srv->http, cfg->listen_host,
	                                            (ev_uint16_t)cfg->listen_port);
	if (!srv->bound) {
		http_log_bind_error(cfg->listen_host, cfg->listen_port, "", "[server] listen");
		return -1;
	}
	/* Accepted sockets inherit TCP_NODELAY from the listener on Linux.
	 * Without it a reply larger than one write waits ~40 ms for the peer's
	 * delayed ACK (Nagle) on a kept-alive connection. */
	int one = 1;
	setsockopt(evhttp_bound_socket_get_fd(srv->bound), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	srv->guard = conn_guard_new(srv, &(struct conn_policy){
		.name = "API",
		.http = srv->http,
		.bound = srv->bound,
		.tls = srv->tls,
		.max_connections = cfg->max_connections,
		.max_per_address = cfg->max_connections_per_address,
		.request_timeout_s = cfg->request_timeout_s,
		/* a whole request of the largest size: evhttp needs no more to parse it */
		.input_max = (size_t)(cfg->max_header_bytes + cfg->max_body_bytes),
		.on_answer = on_libevent_answer,
		.on_answer_arg = srv,
		.on_count = metrics_connections,
	});
	srv->log_ev = event_new(srv->base, -1, 0, on_log_flush, srv);
	return 0;
}

void http_stop_accepting(struct server *srv)
{
	if (srv->http && srv->bound) {
		conn_guard_stop_listening(srv->guard);
		evhttp_del_accept_socket(srv->http, srv->bound);
		srv->bound = NULL;
	}
}

void http_free(struct server *srv)
{
	if (srv->http)
		evhttp_free(srv->http);
	srv->http = NULL;
	conn_guard_free(srv->guard);
	srv->guard = NULL;
	if (srv->log_ev) {
		event_free(srv->log_ev);
		srv->log_ev = NULL;
	}
	log_flush();
}
