/*
 * A request's flow (request.h): its finish writes the error answer of a
 * failed step, checks that a finished request did answer, and hands the
 * answer to http.c. And what steps read of the request: path parameters,
 * headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>

#include "request.h"
#include "util.h"

static void request_finish(struct flow *f, enum step_result r)
{
	struct request_ctx *ctx = request_of(f);

	if (r == STEP_DONE && !ctx->reply_ready) {
		fprintf(stderr, "edgeauth: bug: %s answered nothing\n", ctx->path);
		flow_fail(f, E_SYSTEM_ERROR, "The request was not answered.");
		r = STEP_FAIL;
	}
	if (r == STEP_FAIL && ctx->reply_ready)
		fprintf(stderr, "edgeauth: bug: %s answered, then failed\n", ctx->path);
	else if (r == STEP_FAIL)
		http_reply_error(ctx, &f->err);   /* recorded: f is still running */
	http_reply_send(ctx);
}

void request_run(struct request_ctx *ctx, flow_step *const *steps)
{
	flow_run(&ctx->flow, steps, request_finish);
}

void *request_state(struct request_ctx *ctx, size_t size, void (*release)(void *state))
{
	if (!ctx->state) {
		ctx->state = xcalloc(1, size);
		ctx->state_release = release;
	}
	return ctx->state;
}

const char *request_param(const struct request_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->nparams; i++)
		if (strlen(name) == ctx->param_name_lens[i] &&
		    !strncmp(ctx->param_names[i], name, ctx->param_name_lens[i]))
			return ctx->params[i];
	return NULL;
}

const char *request_header(const struct request_ctx *ctx, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(ctx->req), name);
}

const char *request_client_address(struct request_ctx *ctx)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(ctx->req);
	char *peer = NULL;
	ev_uint16_t port;

	if (ctx->client_address[0] || !evcon)
		return ctx->client_address;
	evhttp_connection_get_peer(evcon, &peer, &port);
	snprintf(ctx->client_address, sizeof ctx->client_address, "%s", peer ? peer : "");
	return ctx->client_address;
}

const char *request_event_address(struct request_ctx *ctx)
{
	const char *address = request_client_address(ctx);

	return *address ? address : NULL;
}

const struct event_origin *request_origin(struct request_ctx *ctx)
{
	ctx->origin = (struct event_origin){
		.actor = ctx->principal.user_id ? ctx->principal.user_id : ctx->principal.client_id,
		.address = request_event_address(ctx),
	};
	return &ctx->origin;
}
