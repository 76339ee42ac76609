#ifndef EDGEAUTH_HTTP_H
#define EDGEAUTH_HTTP_H
/*
 * evhttp set-up, the per-request context and the reply helpers. Each request
 * gets one struct request_ctx; a handler answers it exactly once with one of
 * the http_reply_* functions, now or later (after a worker finishes), and the
 * context is freed by that reply. Only the loop thread touches any of this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "auth.h"
#include "error.h"
#include "flow.h"
#include "server.h"
#include "store.h"
#include "store_events.h"
#include "store_projects.h"

#define ROUTE_MAX_PARAMS 4

struct conn_entry;
struct route;


struct request_ctx {
	struct server *srv;
	struct evhttp_request *req;
	enum evhttp_cmd_type method;
	char *path;                          /* raw path, as sent */
	const struct route *route;           /* the route it matched (router.c) */
	int route_index;                     /* its table index, or the path's (405); -1 none */
	const char *param_names[ROUTE_MAX_PARAMS];   /* into the route's pattern */
	size_t param_name_lens[ROUTE_MAX_PARAMS];
	char *params[ROUTE_MAX_PARAMS];      /* percent-decoded path parameters */
	size_t nparams;
	struct evkeyvalq query;              /* query string, parsed */
	json_t *body;                        /* JSON body, when the route takes one */
	struct evkeyvalq form;               /* form body, when the route takes one */
	struct principal principal;
	struct bearer_check bearer;          /* the check that made principal */
	struct project_state project;        /* the path's project, when looked up */
	struct conn_entry *conn;             /* conn_guard's record of the connection */
	int64_t start_us;
	char client_address[48];             /* request_client_address, once asked ("" before) */
	struct event_origin origin;          /* request_origin, once asked */
	bool replied;
	/* The group commit batch it wrote in last (server's batch_seq); 0: none */
	uint64_t wrote_batch;
	struct flow flow;                    /* its steps (request.h) */
	bool reply_ready;                    /* a step recorded its answer */
	int reply_status;
	struct evbuffer *reply_body;
	void *state;                         /* request_state */
	void (*state_release)(void *state);
};

/* Binds and starts serving on the configured address. Returns -1 with a
 * reason on stderr. */
int http_start(struct server *srv);
/* Stops accepting new connections; in-flight requests go on. */
void http_stop_accepting(struct server *srv);
void http_free(struct server *srv);
/* Commits the store's open batch and sends the answers that waited for it
 * (group commit; normally run by the loop). */
void http_commit_batch(struct server *srv);

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
