/*
 * Revocation endpoints: read the request, revoke (grants.c), answer 200
 * with no body whether or not the token was known (RFC 7009 §2.2): the
 * answer must not tell a caller which tokens exist. The routes answer with
 * Cache-Control: no-store.
 */
#include <stdlib.h>
#include <string.h>

#include "api_revoke.h"
#include "auth.h"
#include "basic_auth.h"
#include "grants.h"
#include "form.h"
#include "jbody.h"
#include "request.h"
#include "validate.h"

struct revocation {
	struct basic_credentials basic;
	struct revoke_request in;
	struct grant grant;
};

static void revocation_release(void *p)
{
	struct revocation *r = p;

	basic_auth_release(&r->basic);
	grant_release(&r->grant);
}

/* POST /api/v1/tokens/revoke, RFC 7009: form token and token_type_hint
 * (read, and not needed: a token is looked up as both kinds), and the
 * client's credentials. */
static enum step_result rfc7009_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct revocation *r = request_state(ctx, sizeof *r, revocation_release);
	const char *hint = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "token", &r->in.token, &err) < 0 ||
	    form_get(&ctx->form, "token_type_hint", &hint, &err) < 0 ||
	    client_credentials_form(request_header(ctx, "Authorization"), &ctx->form, &r->basic,
	                            &r->in.client, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

/* POST /api/v1/tokens/current/revoke (docs/tokens.md §"Revocation"): JSON client_id and
 * refresh_token; the bearer access token, if sent, is revoked too. A
 * confidential client adds its secret as client_secret, or sends Basic in
 * place of the bearer token (docs/tokens.md §"Client authentication"). */
static enum step_result current_read(struct flow *f)
{
	static const struct str_rule client_rule = { .key = "client_id", .required = true,
	                                             .max_chars = ID_MAX_CHARS };
	static const struct str_rule refresh_rule = { .key = "refresh_token", .required = true,
	                                              .max_chars = 512 };
	static const struct str_rule secret_rule = { .key = "client_secret", .max_chars = 512 };
	struct request_ctx *ctx = request_of(f);
	struct revocation *r = request_state(ctx, sizeof *r, revocation_release);
	const char *authorization = request_header(ctx, "Authorization");
	struct str_field client_id, refresh, secret;
	struct api_error err;

	if (jbody_read_string(ctx->body, &client_rule, &client_id, &err) < 0 ||
	    jbody_read_string(ctx->body, &refresh_rule, &refresh, &err) < 0 ||
	    jbody_read_string(ctx->body, &secret_rule, &secret, &err) < 0)
		return flow_error(f, &err);
	r->in.current = true;
	r->in.token = refresh.value;
	r->in.bearer_token = auth_bearer_token(authorization);
	if (client_credentials_read(r->in.bearer_token ? NULL : authorization, client_id.value,
	                            secret.value, &r->basic, &r->in.client, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result revoke(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct revocation *r = ctx->state;

	r->in.address = request_event_address(ctx);
	grants_revoke(&r->grant, ctx->http.srv, &r->in, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result revoked(struct flow *f)
{
	http_reply_json(request_of(f), 200, NULL);
	return STEP_DONE;
}

flow_step *const revoke_rfc7009_steps[] = { rfc7009_read, revoke, revoked, NULL };
flow_step *const revoke_current_steps[] = { current_read, revoke, revoked, NULL };
