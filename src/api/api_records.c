/*
 * The read-one and delete endpoints' shared steps (docs/api.md §"Read one and delete"). The
 * router has checked the token, the project and the permission; these
 * steps read no body and answer only what the store hands back.
 */
#include <stdlib.h>
#include <string.h>

#include "api_records.h"
#include "auth.h"
#include "request.h"

static void record_read_release(void *state)
{
	free(((struct record_read *)state)->record);
}

struct record_read *record_read_state(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof(struct record_read), record_read_release);
}

enum step_result record_get(struct flow *f, record_get_op *get, const char *param)
{
	struct request_ctx *ctx = request_of(f);
	struct record_read *r = record_read_state(ctx);

	get(ctx->http.srv->store, request_param(ctx, "project_id"), request_param(ctx, param), &r->record,
	    flow_completion(f));
	return STEP_WAIT;
}

enum step_result record_delete(struct flow *f, record_delete_op *del, const char *param)
{
	struct request_ctx *ctx = request_of(f);

	del(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"), request_param(ctx, param),
	    ctx->principal.scope, flow_completion(f));
	return STEP_WAIT;
}

enum step_result record_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *record = ((struct record_read *)ctx->state)->record;

	http_reply_raw(ctx, 200, "application/json", record, strlen(record));
	return STEP_DONE;
}

enum step_result record_deleted(struct flow *f)
{
	http_reply_raw(request_of(f), 204, NULL, NULL, 0);
	return STEP_DONE;
}
