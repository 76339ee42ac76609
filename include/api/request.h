#ifndef EDGEAUTH_REQUEST_H
#define EDGEAUTH_REQUEST_H
/*
 * A request is a flow of steps (flow.h): the router runs the checks every
 * route shares, then the route's own steps. A step that answers records its
 * answer (http_reply_*) and returns STEP_DONE; a step that fails returns
 * STEP_FAIL with the flow's err, and the error answer is written here, the
 * one place error answers are written. Then the answer goes to http.c,
 * which sends it (or holds it for the group commit) and frees the request.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "auth.h"
#include "flow.h"
#include "http.h"
#include "store_events.h"
#include "store_projects.h"

#define ROUTE_MAX_PARAMS 4

struct route;

/* One request, from the transport's hand-over (router_dispatch) to its
 * answer. */
struct request_ctx {
	struct http_exchange http;           /* first: the transport's part (http.h) */
	const struct route *route;           /* the route it matched (router.c) */
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
	char client_address[48];             /* request_client_address, once asked ("" before) */
	struct event_origin origin;          /* request_origin, once asked */
	struct flow flow;                    /* its steps */
	void *state;                         /* request_state */
	void (*state_release)(void *state);
	/* A page's own state beside request_state's: the console's pages run
	 * the API's steps, which keep theirs there (console.h). */
	void *page;
	void (*page_release)(void *page);
	/* Set by a page: answers a failed step with a page (the console's
	 * form again, the API's sentence beside its field) instead of the
	 * JSON error. */
	void (*fail_page)(struct request_ctx *ctx, const struct api_error *err);
};

/* Frees what a request holds (http_dispatch's release). */
void request_release(struct request_ctx *ctx);

/* The request a step's flow belongs to. */
static inline struct request_ctx *request_of(struct flow *f)
{
	return container_of(f, struct request_ctx, flow);
}

/* A path parameter by name (":project_id" -> "project_id"), or NULL. */
const char *request_param(const struct request_ctx *ctx, const char *name);
/* A request header, or NULL. */
const char *request_header(const struct request_ctx *ctx, const char *name);
/* The client's address as text ("" when unknown): the peer's, or, when the
 * peer is one of [server] trusted_proxies, the last X-Forwarded-For entry
 * if that is an address (docs/operations.md §"Client address behind a proxy"). Made once per request. */
const char *request_client_address(struct request_ctx *ctx);
/* Whether the peer (the connection's address) is one of [server]
 * trusted_proxies, whose X-Forwarded-* headers may be believed. */
bool request_peer_trusted(struct request_ctx *ctx);
/* The client's address as the audit trail records it: NULL when unknown. */
const char *request_event_address(struct request_ctx *ctx);
/* Who the request's changes are by, for the audit trail (store_events.h):
 * the bearer token's user, else its client (NULL without a token), and
 * the client's address. Lives with the request. */
const struct event_origin *request_origin(struct request_ctx *ctx);

/* Runs the request's steps (a NULL-terminated list) from the first. */
void request_run(struct request_ctx *ctx, flow_step *const *steps);

/* The steps' own state: size zeroed bytes made at the first call and handed
 * back after; release (may be NULL) frees what it holds, with the request. */
void *request_state(struct request_ctx *ctx, size_t size, void (*release)(void *state));

#endif
