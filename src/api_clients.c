/* The clients endpoints. */
#include "api_clients.h"

void clients_create(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void clients_update(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void clients_list(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

void clients_rotate_secret(struct request_ctx *ctx)
{
	struct api_error err;
	api_fail(&err, E_NOT_FOUND, "Not implemented yet.");
	http_reply_error(ctx, &err);
}

