/*
 * GET /api/v1/authorize shows the sign-in form; POST signs the user in
 * (signin.c) and redirects with a code. Until the client and its redirect
 * URI are known to be good we answer with a page and never redirect (RFC
 * 6749 §4.1.2.1): an open redirector is worse than an error. The answers are
 * pages and redirects; only a failing store answers the JSON system_error.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "api_authorize.h"
#include "config.h"
#include "crypto.h"
#include "form.h"
#include "html.h"
#include "json_util.h"
#include "request.h"
#include "signin.h"
#include "store.h"
#include "store_clients.h"
#include "store_grants.h"
#include "store_users.h"
#include "util.h"
#include "validate.h"

#define SIGNIN_FAILED "The email or password is wrong."

/* The authorize parameters, borrowed from the request (query or form),
 * which lives until the reply. */
struct authz_params {
	const char *response_type;
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *code_challenge_method;
	const char *state;
	const char *email;
	const char *password;
};

/* ---- pages ---- */

static void add_hidden(struct evbuffer *buf, const char *name, const char *value)
{
	if (!value)
		return;
	evbuffer_add_printf(buf, "<input type=\"hidden\" name=\"%s\" value=\"", name);
	html_escape_into(buf, value);
	evbuffer_add(buf, "\">\n", 3);
}

static struct evbuffer *page_head(const char *title)
{
	struct evbuffer *buf = evbuffer_new();

	evbuffer_add_printf(buf, "<!doctype html>\n<html lang=\"en\">\n<head>\n"
	                    "<meta charset=\"utf-8\">\n"
	                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                    "<title>%s</title>\n<link rel=\"icon\" href=\"data:,\">\n"
	                    "<style>%s</style>\n</head>\n<body>\n<main>\n", title, html_style());
	return buf;
}

/* The sign-in form, posting to issuer; after a failure with message, and
 * the error code in a data attribute for programs (too_many_attempts). */
static struct evbuffer *form_page(const char *issuer, const struct authz_params *p,
                                  const char *message, const char *error_code)
{
	struct evbuffer *buf = page_head("Sign in");

	evbuffer_add_printf(buf, "<h1>Sign in</h1>\n");
	if (message)
		evbuffer_add_printf(buf, "<p class=\"error\" role=\"alert\" data-error=\"%s\">%s</p>\n",
		                    error_code ? error_code : "access_denied", message);
	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\">\n");
	add_hidden(buf, "response_type", p->response_type);
	add_hidden(buf, "client_id", p->client_id);
	add_hidden(buf, "redirect_uri", p->redirect_uri);
	add_hidden(buf, "code_challenge", p->code_challenge);
	add_hidden(buf, "code_challenge_method", p->code_challenge_method);
	add_hidden(buf, "state", p->state);
	/* type="text", not "email": browsers refuse or punycode-rewrite
	 * non-ASCII addresses, which the API accepts. */
	evbuffer_add_printf(buf, "<label for=\"email\">Email</label>\n"
	                    "<input id=\"email\" name=\"email\" type=\"text\" inputmode=\"email\""
	                    " autocomplete=\"username\" autocapitalize=\"none\" spellcheck=\"false\""
	                    " required autofocus value=\"");
	html_escape_into(buf, p->email);
	evbuffer_add_printf(buf, "\">\n<label for=\"password\">Password</label>\n"
	                    "<input id=\"password\" name=\"password\" type=\"password\""
	                    " autocomplete=\"current-password\" required>\n"
	                    "<button type=\"submit\">Sign in</button>\n</form>\n</main>\n</body>\n</html>\n");
	return buf;
}

/* The form again after too many failures, with the seconds to wait. */
static struct evbuffer *throttled_page(const char *issuer, const struct authz_params *p,
                                       int retry_after_s)
{
	char msg[96];

	snprintf(msg, sizeof msg, "Too many failed sign-ins. Try again in %d seconds.",
	         retry_after_s);
	return form_page(issuer, p, msg, "too_many_attempts");
}

/* The 400 page of a request that cannot be redirected. */
static struct evbuffer *error_page(const char *reason)
{
	struct evbuffer *buf = page_head("Sign-in error");

	evbuffer_add_printf(buf, "<h1>This sign-in link cannot be used</h1>\n"
	                    "<p class=\"error\" role=\"alert\">%s</p>\n"
	                    "<p>Go back to the application and try again.</p>\n"
	                    "</main>\n</body>\n</html>\n", reason);
	return buf;
}

/* ---- redirects ---- */

static void add_query_param(struct evbuffer *buf, const char *name, const char *value, bool *first)
{
	char *enc = evhttp_uriencode(value, -1, 0);
	evbuffer_add_printf(buf, "%s%s=%s", *first ? "" : "&", name, enc ? enc : "");
	free(enc);
	*first = false;
}

/* The redirect URI with code or error, then state and iss (RFC 9207). */
static char *redirect_location(const char *issuer, const struct authz_params *p,
                               const char *code, const char *error)
{
	struct evbuffer *buf = evbuffer_new();
	bool first = true;
	char *location;
	size_t len;

	evbuffer_add_printf(buf, "%s%c", p->redirect_uri,
	                    strchr(p->redirect_uri, '?') ? '&' : '?');
	if (code)
		add_query_param(buf, "code", code, &first);
	else
		add_query_param(buf, "error", error, &first);
	if (p->state)
		add_query_param(buf, "state", p->state, &first);
	add_query_param(buf, "iss", issuer, &first);
	len = evbuffer_get_length(buf);
	location = xmalloc(len + 1);
	evbuffer_remove(buf, location, len);
	location[len] = '\0';
	evbuffer_free(buf);
	return location;
}

/* ---- checks ---- */

/* The checks that may redirect with error=invalid_request. */
static bool request_is_valid(const struct authz_params *p)
{
	return p->response_type && !strcmp(p->response_type, "code") &&
	       p->code_challenge && validate_code_challenge(p->code_challenge) &&
	       p->code_challenge_method && !strcmp(p->code_challenge_method, "S256");
}

static bool missing(const char *v)
{
	return !v || !*v;
}

/* ---- the steps GET and POST share ---- */

struct authorize {
	struct authz_params p;
	struct client_auth client;
	bool registered;              /* the redirect URI is the client's */
	struct signin_request in;
	struct signin signin;
	struct signin_result result;
};

static void authorize_release(void *state)
{
	struct authorize *a = state;

	signin_release(&a->signin);
	signin_result_release(&a->result);
}

/* Reads the parameters from q: the query of a GET, the form of a POST. */
static enum step_result params_read(struct flow *f, const struct evkeyvalq *q)
{
	static const char *const names[] = {
		"response_type", "client_id", "redirect_uri", "code_challenge",
		"code_challenge_method", "state",
	};
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = request_state(ctx, sizeof *a, authorize_release);
	const char **slots[] = { &a->p.response_type, &a->p.client_id, &a->p.redirect_uri,
	                         &a->p.code_challenge, &a->p.code_challenge_method, &a->p.state };
	struct api_error err;

	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		if (form_get(q, names[i], slots[i], &err) < 0) {
			html_reply(ctx, 400, error_page("A parameter was sent more than once."));
			return STEP_DONE;
		}
	return STEP_NEXT;
}

static enum step_result query_read(struct flow *f)
{
	return params_read(f, &request_of(f)->query);
}

static enum step_result form_read(struct flow *f)
{
	return params_read(f, &request_of(f)->form);
}

/* A store that fails is no fault of the client's: these steps' completions
 * fail the request with system_error, not with the error page. */
static enum step_result client_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (missing(a->p.client_id))
		return STEP_NEXT;   /* a->client.found stays false */
	store_client_lookup(ctx->srv->store, a->p.client_id, &a->client, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result client_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct client_auth *c = &((struct authorize *)ctx->state)->client;

	if (c->found && c->is_active && c->project_active)
		return STEP_NEXT;
	html_reply(ctx, 400, error_page("The application is unknown or not active."));
	return STEP_DONE;
}

static enum step_result redirect_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (!a->p.redirect_uri)
		return STEP_NEXT;   /* a->registered stays false */
	store_client_redirect_registered(ctx->srv->store, a->p.client_id, a->p.redirect_uri,
	                                 &a->registered, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result redirect_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (((struct authorize *)ctx->state)->registered)
		return STEP_NEXT;
	html_reply(ctx, 400, error_page("The redirect URI is not registered for this application."));
	return STEP_DONE;
}

/* From here on the redirect URI is good: errors go back to it. */
static enum step_result request_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (request_is_valid(&a->p))
		return STEP_NEXT;
	html_redirect(ctx, redirect_location(ctx->srv->cfg->issuer, &a->p, NULL, "invalid_request"));
	return STEP_DONE;
}

/* ---- GET: the form ---- */

static enum step_result form_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	html_reply(ctx, 200, form_page(ctx->srv->cfg->issuer, &((struct authorize *)ctx->state)->p,
	                               NULL, NULL));
	return STEP_DONE;
}

flow_step *const authorize_get_steps[] = {
	query_read, client_get, client_check, redirect_get, redirect_check, request_check,
	form_show, NULL,
};

/* ---- POST: the sign-in ---- */

/* Missing email or password: the form again, and nothing counted. */
static enum step_result credentials_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authz_params *p = &((struct authorize *)ctx->state)->p;
	struct api_error err;

	if (form_get(&ctx->form, "email", &p->email, &err) < 0 ||
	    form_get(&ctx->form, "password", &p->password, &err) < 0 ||
	    missing(p->email) || missing(p->password)) {
		html_reply(ctx, 401, form_page(ctx->srv->cfg->issuer, p, SIGNIN_FAILED, NULL));
		return STEP_DONE;
	}
	return STEP_NEXT;
}

static enum step_result sign_in(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	a->in = (struct signin_request){
		.project_id = a->client.project_id, .client_id = a->p.client_id,
		.redirect_uri = a->p.redirect_uri, .code_challenge = a->p.code_challenge,
		.email = a->p.email, .password = a->p.password,
		.address = request_client_address(ctx),
	};
	signin_run(&a->signin, ctx->srv, &a->in, &a->result, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result sign_in_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;
	const char *issuer = ctx->srv->cfg->issuer;
	char retry[16];

	switch (a->result.outcome) {
	case SIGNIN_SIGNED_IN:
		html_redirect(ctx, redirect_location(issuer, &a->p, a->result.code, NULL));
		return STEP_DONE;
	case SIGNIN_NO_CODE:
		html_redirect(ctx, redirect_location(issuer, &a->p, NULL, "server_error"));
		return STEP_DONE;
	case SIGNIN_REFUSED:
		html_reply(ctx, 401, form_page(issuer, &a->p, SIGNIN_FAILED, NULL));
		return STEP_DONE;
	case SIGNIN_THROTTLED:
		snprintf(retry, sizeof retry, "%d", a->result.retry_after_s);
		http_add_header(ctx, "Retry-After", retry);
		html_reply(ctx, 429, throttled_page(issuer, &a->p, a->result.retry_after_s));
		return STEP_DONE;
	case SIGNIN_BUSY:
		break;
	}
	return flow_error(f, &a->result.err);   /* 503, JSON with Retry-After */
}

flow_step *const authorize_post_steps[] = {
	form_read, client_get, client_check, redirect_get, redirect_check, request_check,
	credentials_read, sign_in, sign_in_answer, NULL,
};
