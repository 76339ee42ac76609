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
#include <stddef.h>

#include "flow.h"
#include "http.h"

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
