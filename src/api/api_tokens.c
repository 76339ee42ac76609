/*
 * POST /api/v1/tokens: reads the form and the client's credentials, runs the
 * grant (grants.c), and writes RFC 6749 §5.1's answer. The route answers
 * with Cache-Control: no-store, errors included (RFC 6749 §5.1).
 */
#include <stdlib.h>
#include <string.h>

#include "api_tokens.h"
#include "basic_auth.h"
#include "crypto.h"
#include "grants.h"
#include "form.h"
#include "jbody.h"
#include "request.h"
#include "util.h"

struct token_exchange {
	struct basic_credentials basic;
	struct grant_request in;
	struct grant grant;
	struct grant_tokens out;
};

static void token_exchange_release(void *p)
{
	struct token_exchange *x = p;

	basic_auth_release(&x->basic);
	grant_release(&x->grant);
	grant_tokens_release(&x->out);
}

/* Each parameter may be given once. RFC 6749 names the code "code",
 * docs/tokens.md §"Token endpoint": one of them. */
static int read_form(const struct evkeyvalq *form, struct grant_request *in,
                     struct api_error *err)
{
	const char *alias = NULL;

	if (form_get(form, "grant_type", &in->grant_type, err) < 0 ||
	    form_get(form, "authorization_code", &in->code, err) < 0 ||
	    form_get(form, "code", &alias, err) < 0 ||
	    form_get(form, "redirect_uri", &in->redirect_uri, err) < 0 ||
	    form_get(form, "code_verifier", &in->code_verifier, err) < 0 ||
	    form_get(form, "refresh_token", &in->refresh_token, err) < 0 ||
	    form_get(form, "device_code", &in->device_code, err) < 0)
		return -1;
	if (in->code && alias)
		return api_fail(err, E_INVALID_PARAMS, "Send the code once, as code or authorization_code.");
	if (!in->code)
		in->code = alias;
	return 0;
}

static enum step_result exchange_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct token_exchange *x = request_state(ctx, sizeof *x, token_exchange_release);
	struct api_error err;

	if (read_form(&ctx->form, &x->in, &err) < 0 ||
	    client_credentials_form(request_header(ctx, "Authorization"), &ctx->form, &x->basic,
	                            &x->in.client, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result exchange_grant(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct token_exchange *x = ctx->state;

	x->in.address = request_event_address(ctx);
	grants_exchange(&x->grant, ctx->http.srv, &x->in, &x->out, flow_completion(f));
	return STEP_WAIT;
}

/* RFC 6749 §5.1 (and OIDC Core §3.1.3.3's id_token); fields without a value
 * are left out. Written directly (jbody_writer), not through jansson:
 * escaping a long token byte by byte cost a sixth of the request, and a
 * formatted string 2% (docs/BENCHMARKS.md). No value needs a JSON
 * escape (tokens are base64url and dots; a scope holds only OIDC scope
 * names and named permissions of valid codes, see SQL_SCOPE_CODES_OK):
 * one that would is a system_error. */
static enum step_result exchange_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct grant_tokens *t = &((struct token_exchange *)ctx->state)->out;
	struct jbody_writer w;
	size_t len;
	char *body;

	jbody_writer_init(&w, 128 + strlen(t->access_token) +
	                     (t->scope ? strlen(t->scope) : 0) +
	                     (t->refresh_token ? strlen(t->refresh_token) : 0) +
	                     (t->id_token ? strlen(t->id_token) : 0));
	jbody_writer_string(&w, "access_token", t->access_token);
	jbody_writer_string(&w, "token_type", "Bearer");
	jbody_writer_int(&w, "expires_in", t->expires_in);
	jbody_writer_string(&w, "scope", t->scope && *t->scope ? t->scope : NULL);
	jbody_writer_string(&w, "refresh_token", t->refresh_token);
	jbody_writer_string(&w, "id_token", t->id_token);
	body = jbody_writer_finish(&w, &len);
	if (!body)
		return flow_fail(f, E_SYSTEM_ERROR, "A token held a character it cannot hold.");
	http_reply_raw(ctx, 200, "application/json", body, len);
	crypto_free_wiped(body);
	return STEP_DONE;
}

flow_step *const tokens_exchange_steps[] = {
	exchange_read, exchange_grant, exchange_reply, NULL,
};
