/* The roles endpoints. */
#include "api_roles.h"

void roles_create(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void roles_update(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void roles_list(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

