#ifndef EDGEAUTH_HTTP_H
#define EDGEAUTH_HTTP_H
/*
 * evhttp set-up, the transport's part of a request and the reply helpers.
 * Each request is handed to the dispatcher given at start, as a struct
 * request_ctx; a handler answers it exactly once with one of
 * the http_reply_* functions, now or later (after a worker finishes), and the
 * context is freed by that reply. Only the loop thread touches any of this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "error.h"
#include "server.h"

struct conn_entry;
struct flow;
/* The request of the layers above (request.h). The transport never reads it:
 * it begins with a struct http_exchange, which is all the transport knows. */
struct request_ctx;

/* A request as the transport sees it: the first member of every struct
 * request_ctx, made and freed here. */
struct http_exchange {
	struct server *srv;
	struct evhttp_request *req;
	enum evhttp_cmd_type method;
	char *path;                          /* raw path, as sent */
	int route_index;                     /* its route for the metrics (the dispatcher's); -1 none */
	bool storeless;                      /* its answer tells nothing of the store */
	const struct flow *steps;            /* while they run, an answer is recorded (request.h) */
	struct conn_entry *conn;             /* conn_guard's record of the connection */
	int64_t start_us;
	bool replied;
	/* The group commit batch it wrote in last (server's batch_seq); 0: none */
	uint64_t wrote_batch;
	bool reply_ready;                    /* a step recorded its answer */
	int reply_status;
	struct evbuffer *reply_body;
};

/* Where the transport hands each request that passed its own checks (given
 * to http_start). It makes ctx_size zeroed bytes, fills their http_exchange
 * and calls dispatch, which answers the request now or later; once the
 * answer is sent, release frees what the layers above keep in it. */
struct http_dispatch {
	size_t ctx_size;
	void (*dispatch)(struct request_ctx *ctx);
	void (*release)(struct request_ctx *ctx);
};

/* Binds and starts serving on the configured address, each request handed
 * to d (kept: static). Returns -1 with a reason on stderr. */
int http_start(struct server *srv, const struct http_dispatch *d);
/* Logs that a bind to host:port failed, with errno's reason and what to do
 * (set the config key named by key, "[server] listen"); what names the
 * listener ("" for the API's). */
void http_log_bind_error(const char *host, int port, const char *what, const char *key);
/* Stops accepting new connections; in-flight requests go on. */
void http_stop_accepting(struct server *srv);
void http_free(struct server *srv);
/* Sends an answer the server's hold_answer kept back: as it was, or, with
 * err, err's error answer in its place (its batch failed to commit). */
void http_send_held(struct request_ctx *ctx, int status, struct evbuffer *buf,
                    const struct api_error *err);

/* "GET", "POST" ...; "?" for a method libevent has no name for. Static. */
const char *http_method_name(enum evhttp_cmd_type m);
/* Adds a response header. */
void http_add_header(struct request_ctx *ctx, const char *name, const char *value);
/* Retry-After: seconds (at least 1: a throttled caller never retries at once). */
void http_add_retry_after(struct request_ctx *ctx, int seconds);

/* The answers. Inside the step runner they are recorded, and the runner
 * sends the one answer when the step returns; outside it (a handler that
 * answers by itself) they are sent at once. Either way the request is freed
 * once its answer has gone to evhttp. */
/* Sends the recorded answer (the runner's last act on a request). */
void http_reply_send(struct request_ctx *ctx);
/* Answers with status and the JSON body (stolen; NULL for no body). */
void http_reply_json(struct request_ctx *ctx, int status, json_t *body);
/* Answers with the error's status and {"error","error_description"}, and
 * the WWW-Authenticate header RFC 6750 asks for on 401 and 403. */
void http_reply_error(struct request_ctx *ctx, const struct api_error *err);
/* Answers with an arbitrary body (copied). */
void http_reply_raw(struct request_ctx *ctx, int status, const char *content_type,
                    const char *data, size_t len);

#endif
