/*
 * A request's flow (request.h): its finish writes the error answer of a
 * failed step, checks that a finished request did answer, and hands the
 * answer to http.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "request.h"
#include "util.h"

static void request_finish(struct flow *f, enum step_result r)
{
	struct request_ctx *ctx = request_of(f);

	if (r == STEP_DONE && !ctx->reply_ready) {
		log_error("bug: %s answered nothing", ctx->path);
		flow_fail(f, E_SYSTEM_ERROR, "The request was not answered.");
		r = STEP_FAIL;
	}
	if (r == STEP_FAIL && ctx->reply_ready)
		log_error("bug: %s answered, then failed", ctx->path);
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
