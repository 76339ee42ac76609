/* The users endpoints. */
#include "api_users.h"

void users_create(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void users_update(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void users_list(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void users_get_external(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

