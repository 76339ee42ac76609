/*
 * POST /api/v1/device_authorization (RFC 8628 §3.1-3.2, docs/device.md):
 * reads the form and the client's credentials as the token endpoint does,
 * runs the request (device_grant.c), and answers the codes. The route
 * answers with Cache-Control: no-store, errors included. The /device page
 * is device_page.c.
 */
#include <stdlib.h>
#include <string.h>

#include "api_device.h"
#include "basic_auth.h"
#include "config.h"
#include "device_grant.h"
#include "form.h"
#include "request.h"
#include "util.h"

struct device_request {
	struct basic_credentials basic;
	struct grant_request in;
	struct grant grant;
	struct device_start out;
};

static void device_request_release(void *p)
{
	struct device_request *x = p;

	basic_auth_release(&x->basic);
	grant_release(&x->grant);
	device_start_release(&x->out);
}

static enum step_result authorization_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_request *x = request_state(ctx, sizeof *x, device_request_release);
	struct api_error err;

	if (form_get(&ctx->form, "scope", &x->in.scope, &err) < 0 ||
	    client_credentials_form(request_header(ctx, "Authorization"), &ctx->form, &x->basic,
	                            &x->in.client, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result authorization_run(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct device_request *x = ctx->state;

	x->in.address = request_event_address(ctx);
	grants_device_authorize(&x->grant, ctx->http.srv, &x->in, &x->out, flow_completion(f));
	return STEP_WAIT;
}

/* RFC 8628 §3.2; verification_uri_complete carries the user code, so that
 * a QR code opens the page with it filled in. */
static enum step_result authorization_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct device_start *d = &((struct device_request *)ctx->state)->out;
	const char *iss = ctx->http.srv->cfg->issuer;
	char *uri = xasprintf("%s/device", iss);
	char *complete_uri = xasprintf("%s/device?user_code=%s", iss, d->user_code);

	http_reply_json(ctx, 200, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i}",
		"device_code", d->device_code, "user_code", d->user_code, "verification_uri", uri,
		"verification_uri_complete", complete_uri, "expires_in", (json_int_t)d->expires_in,
		"interval", d->interval));
	free(uri);
	free(complete_uri);
	return STEP_DONE;
}

flow_step *const device_authorization_steps[] = {
	authorization_read, authorization_run, authorization_reply, NULL,
};
