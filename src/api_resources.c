/* The resources endpoints. */
#include "api_resources.h"

void resources_create(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void resources_update(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void resources_list(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

