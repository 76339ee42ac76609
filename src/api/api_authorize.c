/*
 * GET /api/v1/authorize signs the user in at once when their session allows
 * (single sign-on, signin.c), else shows the sign-in form; POST signs the
 * user in with a password (signin.c), starts a session and redirects with a
 * code. Until the client and its redirect URI are known to be good we
 * answer with a page and never redirect (RFC 6749 §4.1.2.1): an open
 * redirector is worse than an error. The answers are pages and redirects;
 * only a failing store answers the JSON system_error.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "access_rules.h"
#include "api_authorize.h"
#include "config.h"
#include "account_passkeys.h"
#include "account_recovery.h"
#include "account_totp.h"
#include "api_device.h"
#include "console.h"
#include "console_page.h"
#include "crypto.h"
#include "form.h"
#include "html.h"
#include "id_token.h"
#include "keyring.h"
#include "request.h"
#include "session.h"
#include "signin.h"
#include "store_clients.h"
#include "util.h"
#include "validate.h"

#define SIGNIN_FAILED "The email or password is wrong."
/* one sentence for every refusal of a passkey alone: it tells nothing of
 * which check failed */
#define PASSKEY_FAILED "The passkey was not accepted. Try again, or sign in with your password."
#define FACTOR_FAILED "The code is wrong or was used already. Type the code your app shows now."
#define FACTOR_EXPIRED "The sign-in took too long. Sign in again."

/* The authorize parameters, borrowed from the request (query or form),
 * which lives until the reply. */
struct authz_params {
	const char *response_type;
	const char *client_id;
	const char *redirect_uri;
	const char *code_challenge;
	const char *code_challenge_method;
	const char *state;
	/* OpenID Connect (docs/signin.md §"OpenID Connect") */
	const char *scope;
	const char *nonce;
	const char *prompt;
	const char *max_age;
	const char *login_hint;
	const char *id_token_hint;    /* GET only: whom a silent sign-in may be for */
	const char *request;          /* never supported: only checked for */
	const char *request_uri;
	/* the form's own fields (POST) */
	const char *email;
	const char *password;
	/* the second step's (docs/signin.md §"Second factors") */
	const char *factor_token;
	const char *otp;
	/* a passkey alone's (docs/signin.md §"Passkeys") */
	const char *passkey_token;
	/* the enrollment step's (docs/signin.md §"Second factors") */
	const char *enroll_token;
};

/* The parameters read from the query or the form, and which of them the
 * form carries (hidden fields) so that the next attempt is the same
 * request. */
static const struct authz_param {
	const char *name;
	size_t offset;
	bool carried;
} authz_params[] = {
#define PARAM(field, carried) { #field, offsetof(struct authz_params, field), carried }
	PARAM(response_type, true), PARAM(client_id, true), PARAM(redirect_uri, true),
	PARAM(code_challenge, true), PARAM(code_challenge_method, true), PARAM(state, true),
	PARAM(scope, true), PARAM(nonce, true), PARAM(prompt, true), PARAM(max_age, true),
	PARAM(login_hint, true), PARAM(id_token_hint, false), PARAM(request, false),
	PARAM(request_uri, false),
#undef PARAM
};

static const char **param_slot(struct authz_params *p, const struct authz_param *d)
{
	return (const char **)(void *)((char *)p + d->offset);
}

static bool missing(const char *v)
{
	return !v || !*v;
}

/* ---- what GET and POST share ---- */

struct authorize {
	struct authz_params p;
	/* the console's reserved client_id names this project (console.h): no
	 * client record, no code; the session is the sign-in */
	const char *console_project;
	struct project_state project;
	struct client_auth client;
	char *client_name;            /* NULL until read */
	bool registered;              /* the redirect URI is the client's */
	struct session_ask ask;
	struct keyring_refresh keys;  /* for the id_token_hint */
	struct id_token_hint hint;
	char *oidc_scope;             /* signin_oidc_scope's; NULL: plain OAuth */
	char *cookie;                 /* the project's session cookie, as sent */
	struct signin_request in;
	struct passkey_answer passkey;  /* a second step's, borrowed from the form */
	bool passkeys_offered;        /* the page runs the passkeys script */
	struct signin signin;
	struct signin_result result;
	struct signin_silent_request silent_in;
	struct signin_silent silent;
	enum signin_silent_outcome silent_outcome;
	char *silent_code;
	/* docs/signin.md §"Consent": the page is to be shown (GET), and an
	 * answer's form token opened (POST) */
	bool consent_show;
	struct consent_pending consent;
	struct consent_change consent_change;   /* Allow's or Deny's event */
};

static void authorize_release(void *state)
{
	struct authorize *a = state;

	free(a->client_name);
	keyring_refresh_release(&a->keys);
	id_token_hint_release(&a->hint);
	free(a->oidc_scope);
	crypto_free_wiped(a->cookie);
	signin_release(&a->signin);
	signin_result_release(&a->result);
	signin_silent_release(&a->silent);
	crypto_free_wiped(a->silent_code);
	consent_pending_release(&a->consent);
}

/* ---- pages ---- */

/* The request's parameters a page's form carries, as hidden fields, so
 * that its post is the same request. */
static void add_carried(struct evbuffer *buf, struct authz_params *p)
{
	for (size_t i = 0; i < sizeof authz_params / sizeof authz_params[0]; i++)
		if (authz_params[i].carried)
			html_add_hidden(buf, authz_params[i].name, *param_slot(p, &authz_params[i]));
}

/* "Sign in with a passkey" (docs/signin.md §"Passkeys"), when the issuer
 * is one a browser takes as a relying party (a host name): a form of its
 * own, hidden until the script finds WebAuthn, whose challenge is bound to
 * this request. */
static void passkey_alone_offer(struct evbuffer *buf, const struct server *srv,
                                struct authorize *a)
{
	const char *issuer = srv->cfg->issuer;
	char origin[PASSKEY_ORIGIN_MAX], rp_id[PASSKEY_RP_ID_MAX], binding[SECRET_HASH_LEN + 1];
	char *token;

	if (!passkey_rp(issuer, origin, rp_id))
		return;
	factor_binding(a->p.client_id, a->p.redirect_uri, a->p.code_challenge, a->oidc_scope,
	               a->p.nonce, binding);
	token = passkey_alone_seal(srv->keys, a->client.project_id, binding, now_ms());
	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\" id=\"passkey-alone\" hidden>\n");
	add_carried(buf, &a->p);
	account_passkeys_alone_fields(buf, issuer, token);
	free(token);
	a->passkeys_offered = true;
}

/* The sign-in form, posting to issuer; after a failure with message, and
 * the error code in a data attribute for programs (too_many_attempts). */
static struct evbuffer *form_page(const char *issuer, struct authorize *a, const char *message,
                                  const char *error_code)
{
	char *title = a->client_name ? xasprintf("Sign in to %s", a->client_name)
	                             : xstrdup("Sign in");
	struct evbuffer *buf = html_page_begin(title);
	struct authz_params *p = &a->p;

	evbuffer_add_printf(buf, "<h1>");
	html_escape_into(buf, title);
	evbuffer_add_printf(buf, "</h1>\n");
	free(title);
	if (message)
		evbuffer_add_printf(buf, "<p class=\"error\" role=\"alert\" data-error=\"%s\">%s</p>\n",
		                    error_code ? error_code : "access_denied", message);
	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\">\n");
	add_carried(buf, p);
	/* type="text", not "email": browsers refuse or punycode-rewrite
	 * non-ASCII addresses, which the API accepts. */
	evbuffer_add_printf(buf, "<label for=\"email\">Email</label>\n"
	                    "<input id=\"email\" name=\"email\" type=\"text\" inputmode=\"email\""
	                    " autocomplete=\"username\" autocapitalize=\"none\" spellcheck=\"false\""
	                    " required autofocus value=\"");
	html_escape_into(buf, p->email ? p->email : p->login_hint);
	evbuffer_add_printf(buf, "\">\n<label for=\"password\">Password</label>\n"
	                    "<input id=\"password\" name=\"password\" type=\"password\""
	                    " autocomplete=\"current-password\" required>\n"
	                    "<button type=\"submit\">Sign in</button>\n</form>\n");
	return buf;
}

/* The page under the sign-in page's CSP, which lets the one passkeys
 * script run (by its hash) when the page offers passkeys. */
static void passkeys_reply(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	struct authorize *a = ctx->state;
	char csp[HTML_CSP_MAX + 64], extra[96];

	if (!a->passkeys_offered) {
		html_reply(ctx, status, buf);
		return;
	}
	snprintf(extra, sizeof extra, "; script-src 'sha256-%s'", account_passkeys_script_hash());
	html_csp_for(html_style(), extra, csp, sizeof csp);
	html_reply_csp(ctx, status, buf, csp);
}

static void form_reply(struct request_ctx *ctx, int status, const char *message,
                       const char *error_code)
{
	struct evbuffer *buf = form_page(ctx->http.srv->cfg->issuer, ctx->state, message,
	                                 error_code);

	passkey_alone_offer(buf, ctx->http.srv, ctx->state);
	passkeys_reply(ctx, status, buf);
}

/* A second step's form (attrs: more of the tag's attributes), with the
 * request's parameters and the first step's value carried. */
static void factor_form_begin(struct evbuffer *buf, const char *issuer, struct authorize *a,
                              const char *token, const char *attrs)
{
	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\"%s>\n", attrs);
	add_carried(buf, &a->p);
	html_add_hidden(buf, "factor_token", token);
}

/* The second step's page: the code of the user's authenticator app, and
 * the user's passkeys when there are (docs/signin.md §"Passkeys"). */
static struct evbuffer *factor_page(const char *issuer, struct authorize *a, const char *token,
                                    const char *message)
{
	struct evbuffer *buf = html_page_begin("Two-step verification");

	evbuffer_add_printf(buf, "<h1>Two-step verification</h1>\n");
	if (message)
		evbuffer_add_printf(buf, "<p class=\"error\" role=\"alert\" data-error=\"access_denied\">"
		                    "%s</p>\n", message);
	if (a->result.passkey_ids) {
		factor_form_begin(buf, issuer, a, token, " id=\"passkey-factor\" hidden");
		account_passkeys_factor_fields(buf, issuer, token, a->result.passkey_ids);
	}
	factor_form_begin(buf, issuer, a, token, "");
	/* a recovery code (factors.h) goes in the same field */
	evbuffer_add_printf(buf, "<label for=\"otp\">Code from your authenticator app, or a "
	                    "recovery code</label>\n"
	                    "<input id=\"otp\" name=\"otp\" type=\"text\""
	                    " autocomplete=\"one-time-code\" maxlength=\"64\""
	                    " required autofocus>\n"
	                    "<button type=\"submit\">Verify</button>\n</form>\n");
	return buf;
}

/* The second step's page, under the sign-in page's CSP, which lets the one
 * passkeys script run (by its hash) when the page offers passkeys. */
static void factor_reply(struct request_ctx *ctx, int status, const char *token,
                         const char *message)
{
	struct authorize *a = ctx->state;
	struct evbuffer *buf = factor_page(ctx->http.srv->cfg->issuer, a, token, message);

	a->passkeys_offered = a->result.passkey_ids != NULL;
	passkeys_reply(ctx, status, buf);
}

/* docs/signin.md §"Second factors": the enrollment step's page, for a user
 * whose role requires a second factor and who has none: the new secret as
 * the account page shows it, and its first code, with the request's
 * parameters and the first step's value carried. */
static void enroll_reply(struct request_ctx *ctx, int status, const char *message)
{
	struct authorize *a = ctx->state;
	const char *issuer = ctx->http.srv->cfg->issuer;
	struct console_page p = { html_page_begin("Set up two-step verification") };

	evbuffer_add_printf(p.buf, "<h1>Set up two-step verification</h1>\n"
	                    "<p>Your account needs a second factor: set up an authenticator app "
	                    "to go on.</p>\n");
	if (message)
		evbuffer_add_printf(p.buf, "<p class=\"error\" role=\"alert\" "
		                    "data-error=\"access_denied\">%s</p>\n", message);
	if (account_totp_key_show(&p, ctx->http.srv->keys, issuer, a->result.user_id,
	                          a->signin.email, a->result.enroll_sealed) < 0) {
		evbuffer_free(p.buf);
		html_reply(ctx, 401, form_page(issuer, a, FACTOR_EXPIRED, NULL));
		return;
	}
	evbuffer_add_printf(p.buf, "<form method=\"post\" action=\"");
	html_escape_into(p.buf, issuer);
	evbuffer_add_printf(p.buf, "/api/v1/authorize\">\n");
	add_carried(p.buf, &a->p);
	html_add_hidden(p.buf, "enroll_token", a->result.factor_token);
	evbuffer_add_printf(p.buf, "<label for=\"otp\">Code from your authenticator app</label>\n"
	                    "<input id=\"otp\" name=\"otp\" type=\"text\" inputmode=\"numeric\""
	                    " autocomplete=\"one-time-code\" maxlength=\"64\" required autofocus>\n"
	                    "<button type=\"submit\">Verify</button>\n</form>\n");
	html_reply(ctx, status, p.buf);
}

/* An enrollment's recovery codes (account_recovery.h), shown once, first
 * on whatever page the sign-in leads to. */
static void recovery_into(struct evbuffer *buf, const struct recovery_batch *b)
{
	struct console_page p = { buf };

	if (b)
		account_recovery_show(&p, b);
}

/* The page of an enrollment's recovery codes, whose Continue goes where
 * the sign-in would have redirected (location): a form that GETs the URL
 * without its query, the query's parameters as its fields, so that it
 * works without JavaScript. */
static void recovery_reply(struct request_ctx *ctx, char *location)
{
	struct authorize *a = ctx->state;
	struct evbuffer *buf = html_page_begin("Two-step verification is set up");
	struct evhttp_uri *uri = evhttp_uri_parse_with_flags(location, EVHTTP_URI_NONCONFORMANT);
	struct evkeyvalq fields;
	struct evkeyval *kv;
	size_t size = strlen(location) + 1;   /* the URL without its query fits */
	char *action = xcalloc(1, size);

	TAILQ_INIT(&fields);
	if (uri && evhttp_uri_get_query(uri))
		evhttp_parse_query_str(evhttp_uri_get_query(uri), &fields);
	if (uri)
		evhttp_uri_set_query(uri, NULL);
	if (!uri || !evhttp_uri_join(uri, action, size))
		*action = '\0';
	evbuffer_add_printf(buf, "<h1>Two-step verification is set up</h1>\n"
	                    "<p>From now on signing in asks for your authenticator app's code "
	                    "after the password.</p>\n");
	recovery_into(buf, a->result.recovery);
	evbuffer_add_printf(buf, "<form method=\"get\" action=\"");
	html_escape_into(buf, *action ? action : a->p.redirect_uri);
	evbuffer_add_printf(buf, "\">\n");
	TAILQ_FOREACH(kv, &fields, next)
		html_add_hidden(buf, kv->key, kv->value);
	evbuffer_add_printf(buf, "<button type=\"submit\">Continue</button>\n</form>\n");
	evhttp_clear_headers(&fields);
	if (uri)
		evhttp_uri_free(uri);
	free(action);
	crypto_free_wiped(location);
	http_add_header(ctx, "Referrer-Policy", "no-referrer");
	html_reply(ctx, 200, buf);
}

/* docs/signin.md §"Consent": the app's name, what it asks for, Allow and
 * Deny, with the request's parameters and the sign-in's form token
 * carried. */
static void list_items(struct evbuffer *buf, const char *attr, const char *words)
{
	for (const char *s = words; s && *s;) {
		size_t n = strcspn(s, " ");
		char *one = xstrndup(s, n);

		evbuffer_add_printf(buf, "<li %s=\"", attr);
		html_escape_into(buf, one);
		evbuffer_add_printf(buf, "\">");
		html_escape_into(buf, one);
		evbuffer_add_printf(buf, "</li>\n");
		free(one);
		s += n + (s[n] == ' ');
	}
}

static struct evbuffer *consent_page(const char *issuer, struct authorize *a, const char *token,
                                     const char *permissions)
{
	char *title = xasprintf("Allow %s?", a->client_name ? a->client_name : "this app");
	struct evbuffer *buf = html_page_begin(title);
	const char *scope = a->oidc_scope;

	evbuffer_add_printf(buf, "<h1>");
	html_escape_into(buf, title);
	evbuffer_add_printf(buf, "</h1>\n");
	recovery_into(buf, a->result.recovery);
	evbuffer_add_printf(buf, "<p>");
	html_escape_into(buf, a->client_name ? a->client_name : "This app");
	evbuffer_add_printf(buf, " asks to sign you in and to use what you may do here.</p>\n"
	                    "<ul class=\"scopes\">\n");
	list_items(buf, "data-scope", scope);
	evbuffer_add_printf(buf, "</ul>\n<p>Permissions:</p>\n<ul class=\"permissions\">\n");
	list_items(buf, "data-permission", permissions);
	evbuffer_add_printf(buf, "</ul>\n<form method=\"post\" action=\"");
	html_escape_into(buf, issuer);
	evbuffer_add_printf(buf, "/api/v1/authorize\">\n");
	free(title);
	add_carried(buf, &a->p);
	html_add_hidden(buf, "consent_token", token);
	evbuffer_add_printf(buf, "<button type=\"submit\" name=\"consent\" value=\"allow\">Allow"
	                    "</button>\n<button type=\"submit\" name=\"consent\" value=\"deny\">"
	                    "Deny</button>\n</form>\n");
	return buf;
}

/* The consent page of a sign-in of user_id, whose Allow remembers scopes. */
static enum step_result consent_show(struct request_ctx *ctx, const char *user_id,
                                     const char *scopes, const char *permissions)
{
	struct authorize *a = ctx->state;
	struct consent_pending p = {
		.user_id = (char *)user_id, .scopes = (char *)scopes,
		.expires_at = now_ms() + CONSENT_PENDING_TTL_S * 1000LL,
	};
	char *token;

	factor_binding(a->p.client_id, a->p.redirect_uri, a->p.code_challenge, a->oidc_scope,
	               a->p.nonce, p.binding);
	token = consent_pending_seal(ctx->http.srv->keys, a->client.project_id, &p);
	html_reply(ctx, 200, consent_page(ctx->http.srv->cfg->issuer, a, token, permissions));
	free(token);
	return STEP_DONE;
}

/* The 429 answer: Retry-After, and the form again saying what was too many
 * (failed sign-ins, or sign-ins of one session) and the seconds to wait. */
static enum step_result throttled(struct request_ctx *ctx, int retry_after_s, const char *what)
{
	char msg[96];

	snprintf(msg, sizeof msg, "Too many %s. Try again in %d seconds.", what, retry_after_s);
	http_add_retry_after(ctx, retry_after_s);
	form_reply(ctx, 429, msg, "too_many_attempts");
	return STEP_DONE;
}

#define TOO_MANY_CODES "sign-ins in this session"
/* docs/signin.md §"Access rules": the error_description of a refusal. */
#define ACCESS_DENIED "The user's role may not sign in to this app."

/* The 400 page of a request that cannot be redirected. */
static enum step_result refuse(struct request_ctx *ctx, const char *reason)
{
	html_reply(ctx, 400, html_error_page("Sign-in error", "This sign-in link cannot be used",
	                                     reason));
	return STEP_DONE;
}

/* ---- redirects ---- */

/* The redirect URI with code, or error and its description, then state
 * (when sent) and iss (RFC 9207). */
static char *redirect_location(const char *issuer, const struct authz_params *p,
                               const char *code, const char *error, const char *description)
{
	const char *names[] = { code ? "code" : "error", "error_description", "state", "iss" };
	const char *values[] = { code ? code : error, code ? NULL : description, p->state, issuer };

	return html_redirect_url(p->redirect_uri, names, values, sizeof names / sizeof names[0]);
}

/* A redirect, or after an enrollment the page of its recovery codes, whose
 * Continue goes there. */
static void leave(struct request_ctx *ctx, char *location)
{
	struct authorize *a = ctx->state;

	if (a->result.recovery)
		recovery_reply(ctx, location);
	else
		html_redirect(ctx, location);
}

static enum step_result redirect_error(struct request_ctx *ctx, const char *error,
                                       const char *description)
{
	struct authorize *a = ctx->state;

	leave(ctx, redirect_location(ctx->http.srv->cfg->issuer, &a->p, NULL, error,
	                             description));
	return STEP_DONE;
}

/* The authorization request again, as its form carries it (add_carried),
 * for a GET. Caller frees. */
static char *authorize_again(const char *issuer, struct authz_params *p)
{
	const size_t n = sizeof authz_params / sizeof authz_params[0];
	const char *names[sizeof authz_params / sizeof authz_params[0]];
	const char *values[sizeof authz_params / sizeof authz_params[0]];
	char *base = xasprintf("%s/api/v1/authorize", issuer), *url;

	for (size_t i = 0; i < n; i++) {
		names[i] = authz_params[i].name;
		values[i] = authz_params[i].carried ? *param_slot(p, &authz_params[i]) : NULL;
	}
	url = html_redirect_url(base, names, values, n);
	free(base);
	return url;
}

/* Back to the client with the code; the console, which got none, back to
 * its home, where the session cookie now signs the user in. */
static enum step_result signed_in(struct request_ctx *ctx, const char *code)
{
	struct authorize *a = ctx->state;

	if (a->console_project)
		leave(ctx, xstrdup(a->p.redirect_uri));
	else
		leave(ctx, redirect_location(ctx->http.srv->cfg->issuer, &a->p, code, NULL, NULL));
	return STEP_DONE;
}

/* ---- the steps GET and POST share ---- */

/* Reads the parameters from q: the query of a GET, the form of a POST. */
static enum step_result params_read(struct flow *f, const struct evkeyvalq *q)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = request_state(ctx, sizeof *a, authorize_release);
	struct api_error err;

	for (size_t i = 0; i < sizeof authz_params / sizeof authz_params[0]; i++)
		if (form_get(q, authz_params[i].name, param_slot(&a->p, &authz_params[i]), &err) < 0)
			return refuse(ctx, "A parameter was sent more than once.");
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
	a->console_project = console_client_project(a->p.client_id);
	if (a->console_project) {
		store_project_get(ctx->http.srv->store, a->console_project, &a->project,
		                  flow_completion(f));
		return STEP_WAIT;
	}
	store_client_lookup(ctx->http.srv->store, a->p.client_id, &a->client, flow_completion(f));
	return STEP_WAIT;
}

/* The console is a client of every active project. */
static void console_client(struct authorize *a)
{
	struct client_auth *c = &a->client;

	if (!a->console_project || strlen(a->console_project) >= sizeof c->project_id)
		return;
	c->found = a->project.found;
	c->is_active = c->project_active = a->project.is_active;
	strcpy(c->project_id, a->console_project);
}

static enum step_result client_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct client_auth *c = &((struct authorize *)ctx->state)->client;

	console_client(ctx->state);
	if (c->found && c->is_active && c->project_active)
		return STEP_NEXT;
	return refuse(ctx, "The application is unknown or not active.");
}

static enum step_result redirect_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (!a->p.redirect_uri)
		return STEP_NEXT;   /* a->registered stays false */
	if (a->console_project) {   /* the console's home, the account page or its passkeys,
	                             * or the device page */
		a->registered = console_redirect_registered(ctx->http.srv->cfg->issuer,
		                                            a->console_project, a->p.redirect_uri) ||
		                account_passkeys_is_url(ctx->http.srv->cfg->issuer,
		                                        a->console_project, a->p.redirect_uri) ||
		                device_page_return_ok(ctx->http.srv->cfg->issuer, a->p.redirect_uri);
		return STEP_NEXT;
	}
	store_client_redirect_registered(ctx->http.srv->store, a->p.client_id, a->p.redirect_uri,
	                                 &a->registered, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result redirect_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (((struct authorize *)ctx->state)->registered)
		return STEP_NEXT;
	return refuse(ctx, "The redirect URI is not registered for this application.");
}

/* The checks that redirect with an error, in this order (RFC 6749
 * §4.1.2.1, OIDC Core §3.1.2.6, docs/signin.md §"Password sign-in", §"OpenID Connect"); on success a->ask and
 * a->oidc_scope are read. 0, or -1 with the error and its description. */
static int request_read(struct authorize *a, const char **error, const char **why)
{
	const struct authz_params *p = &a->p;

	*error = "invalid_request";
	if (p->request) {
		*error = "request_not_supported";
		*why = "Request objects are not supported.";
	} else if (p->request_uri) {
		*error = "request_uri_not_supported";
		*why = "request_uri is not supported.";
	} else if (missing(p->response_type)) {
		*why = "response_type is required.";
	} else if (strcmp(p->response_type, "code") != 0) {
		*error = "unsupported_response_type";
		*why = "Only response_type=code is supported.";
	} else if (!a->console_project &&   /* the console gets no code to protect */
	           (!p->code_challenge || !validate_code_challenge(p->code_challenge) ||
	            !p->code_challenge_method || strcmp(p->code_challenge_method, "S256") != 0)) {
		*why = "PKCE with S256 is required: send code_challenge and code_challenge_method=S256.";
	} else if (session_ask_read(p->prompt, p->max_age, &a->ask, why) < 0) {
		;   /* why is set */
	} else if (p->nonce && utf8_chars(p->nonce) > SIGNIN_NONCE_MAX_CHARS) {
		*why = "nonce is longer than 512 characters.";
	} else {
		a->oidc_scope = signin_oidc_scope(p->scope);
		return 0;
	}
	return -1;
}

/* From here on the redirect URI is good: errors go back to it. */
static enum step_result request_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *error, *why;

	if (request_read(ctx->state, &error, &why) == 0)
		return STEP_NEXT;
	return redirect_error(ctx, error, why);
}

static enum step_result cookie_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	a->cookie = html_session_cookie(ctx, a->client.project_id);
	return STEP_NEXT;
}

/* The app's name, for the form's heading. */
static enum step_result name_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (a->console_project) {   /* the console's client signs in to two pages */
		char *account = console_account_url(ctx->http.srv->cfg->issuer, a->console_project);
		a->client_name = xstrdup(a->p.redirect_uri && strcmp(a->p.redirect_uri, account) == 0
		                         ? "your account" : "the console");
		free(account);
		return STEP_NEXT;
	}
	store_client_name(ctx->http.srv->store, a->p.client_id, &a->client_name, flow_completion(f));
	return STEP_WAIT;
}

/* ---- GET: single sign-on, else the form ---- */

/* A hint may name a key the ring has not read yet (a rotation by the CLI):
 * the ring is brought up to the store first. */
static enum step_result hint_keys(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (!a->p.id_token_hint)
		return STEP_NEXT;
	keyring_refresh(&a->keys, ctx->http.srv->keys, ctx->http.srv->store, true, flow_completion(f));
	return STEP_WAIT;
}

/* OIDC Core §3.1.2.1: id_token_hint names the user the client expects; a
 * session of another user then signs no one in silently (the form, or
 * login_required with prompt=none). A hint that is not one of our ID
 * tokens is a malformed request (invalid_request, §3.1.2.6), whatever the
 * prompt: it was meant to name someone, and we cannot tell whom. Its
 * expiry is not checked, as at logout: an RP sends the ID token it holds,
 * which has usually expired by the next silent sign-in. */
static enum step_result hint_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (!a->p.id_token_hint)
		return STEP_NEXT;
	if (id_token_verify_hint(ctx->http.srv->keys, ctx->http.srv->cfg->issuer, a->p.id_token_hint,
	                         &a->hint) < 0)
		return redirect_error(ctx, "invalid_request",
		                      "id_token_hint is not an ID token of this server.");
	a->ask.user_hint = a->hint.sub;
	return STEP_NEXT;
}

static enum step_result silent_sign_in(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	a->silent_in = (struct signin_silent_request){
		.project_id = a->client.project_id, .client_id = a->p.client_id,
		.redirect_uri = a->p.redirect_uri, .code_challenge = a->p.code_challenge,
		.scope = a->oidc_scope, .nonce = a->p.nonce, .session_cookie = a->cookie,
		.address = request_event_address(ctx),
		.ask = a->ask, .session_only = a->console_project != NULL,
		/* not again once the user answered the page */
		.consent_force = consent_prompted(a->p.prompt) && !a->consent.user_id,
	};
	signin_silent_run(&a->silent, ctx->http.srv, &a->silent_in, &a->silent_outcome,
	                  &a->silent_code, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result silent_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	switch (a->silent_outcome) {
	case SILENT_SIGNED_IN:
		return signed_in(ctx, a->silent_code);
	case SILENT_NO_CODE:
		return redirect_error(ctx, "server_error", "The sign-in could not be stored.");
	case SILENT_LOGIN_REQUIRED:
		return redirect_error(ctx, "login_required",
		                      "prompt=none was sent, and the user must sign in.");
	case SILENT_TOO_MANY_CODES:
		return throttled(ctx, a->silent.retry_after_s, TOO_MANY_CODES);
	case SILENT_ACCESS_DENIED:   /* prompt=none too: the user is known, and refused */
		return redirect_error(ctx, "access_denied", ACCESS_DENIED);
	case SILENT_CONSENT_NEEDED:   /* OIDC Core §3.1.2.6 */
		if (a->ask.prompt_none)
			return redirect_error(ctx, "consent_required",
			                      "prompt=none was sent, and the user must allow the app.");
		a->consent_show = true;   /* after the app's name is read */
		break;
	case SILENT_FORM:
		break;
	}
	return STEP_NEXT;
}

static enum step_result form_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	if (a->consent_show)
		return consent_show(ctx, a->silent.session.row.user_id, a->silent.consent_scopes,
		                    code_mint_permissions(&a->silent.mint));

	form_reply(ctx, 200, NULL, NULL);
	return STEP_DONE;
}

flow_step *const authorize_get_steps[] = {
	query_read, client_get, client_check, redirect_get, redirect_check, request_check,
	hint_keys, hint_check, cookie_read, silent_sign_in, silent_answer, name_get, form_show,
	NULL,
};

/* ---- POST: the sign-in ---- */

/* docs/signin.md §"Cross-site posts": a post from another site's page starts nothing (login
 * CSRF). */
static enum step_result origin_check(struct flow *f)
{
	return html_post_origin_check(request_of(f)) ? STEP_NEXT : STEP_DONE;
}

/* ---- POST: the consent page's answer (docs/signin.md §"Consent") ---- */

/* Deny is recorded (consent.deny, docs/operations.md §"Audit trail"), then
 * access_denied. */
static enum step_result consent_deny_record(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	consent_deny(&a->consent_change, ctx->http.srv->store, a->client.project_id,
	             a->consent.user_id, a->p.client_id, request_event_address(ctx),
	             flow_completion(f));
	return STEP_WAIT;
}

static enum step_result consent_denied(struct flow *f)
{
	return redirect_error(request_of(f), "access_denied", "The user did not allow the app.");
}

static flow_step *const consent_deny_steps[] = { consent_deny_record, consent_denied, NULL };

/* The form token must be ours, of this request and not expired; Deny (or
 * anything but Allow) is access_denied; Allow is remembered for the
 * token's user. */
static enum step_result consent_open(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;
	const char *token = NULL, *answer = NULL;
	char binding[SECRET_HASH_LEN + 1];
	struct api_error err;

	factor_binding(a->p.client_id, a->p.redirect_uri, a->p.code_challenge, a->oidc_scope,
	               a->p.nonce, binding);
	if (form_get(&ctx->form, "consent_token", &token, &err) < 0 ||
	    form_get(&ctx->form, "consent", &answer, &err) < 0 || missing(token) ||
	    consent_pending_open(ctx->http.srv->keys, a->client.project_id, token, now_ms(),
	                         &a->consent) < 0 ||
	    !crypto_equal(binding, a->consent.binding)) {
		form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
		return STEP_DONE;
	}
	if (!answer || strcmp(answer, "allow") != 0)
		return flow_branch(f, consent_deny_steps);
	consent_grant(&a->consent_change, ctx->http.srv->store, a->client.project_id,
	              a->consent.user_id, a->p.client_id, a->consent.scopes,
	              request_event_address(ctx), flow_completion(f));
	return STEP_WAIT;
}

/* The code, by the session, which must be the token's user's (a session of
 * another, or none: login_required). */
static enum step_result consent_sign_in(struct flow *f)
{
	struct authorize *a = request_of(f)->state;

	a->ask = (struct session_ask){ .prompt_none = true, .max_age = -1,
	                               .user_hint = a->consent.user_id };
	return silent_sign_in(f);
}

static flow_step *const consent_steps[] = {
	consent_open, consent_sign_in, silent_answer, form_show, NULL,
};

/* Missing email or password: the form again, and nothing counted. A
 * second step (factor_token) reads its code instead; a missing one shows
 * its form again. A passkey alone (passkey_token) reads its assertion. */
static enum step_result credentials_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;
	struct authz_params *p = &a->p;
	struct api_error err;

	if (evhttp_find_header(&ctx->form, "consent_token"))
		return flow_branch(f, consent_steps);
	if (form_get(&ctx->form, "factor_token", &p->factor_token, &err) < 0 ||
	    form_get(&ctx->form, "enroll_token", &p->enroll_token, &err) < 0 ||
	    form_get(&ctx->form, "otp", &p->otp, &err) < 0) {
		form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
		return STEP_DONE;
	}
	if (p->enroll_token)   /* a missing code is a wrong one: the page again */
		return STEP_NEXT;
	if (p->factor_token) {
		if (account_passkeys_answer_read(&ctx->form, &a->passkey))
			a->in.passkey = &a->passkey;
		if (!missing(p->otp) || a->in.passkey)
			return STEP_NEXT;
		factor_reply(ctx, 401, p->factor_token, FACTOR_FAILED);
		return STEP_DONE;
	}
	if (form_get(&ctx->form, "passkey_token", &p->passkey_token, &err) < 0)
		p->passkey_token = "";   /* sent twice: no value of ours */
	if (p->passkey_token) {   /* a passkey alone: its answer, or the form again */
		if (account_passkeys_answer_read(&ctx->form, &a->passkey)) {
			a->in.passkey = &a->passkey;
			return STEP_NEXT;
		}
		form_reply(ctx, 401, PASSKEY_FAILED, NULL);
		return STEP_DONE;
	}
	if (form_get(&ctx->form, "email", &p->email, &err) < 0 ||
	    form_get(&ctx->form, "password", &p->password, &err) < 0 ||
	    missing(p->email) || missing(p->password)) {
		form_reply(ctx, 401, SIGNIN_FAILED, NULL);
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
		.scope = a->oidc_scope, .nonce = a->p.nonce,
		.email = a->p.email, .password = a->p.password,
		.address = request_client_address(ctx),
		.session_cookie = a->cookie, .session_only = a->console_project != NULL,
		.factor_token = a->p.factor_token, .factor_code = a->p.otp,
		.passkey = a->in.passkey, .passkey_token = a->p.passkey_token,
		.enroll_token = a->p.enroll_token,
		.consent_force = consent_prompted(a->p.prompt),
	};
	signin_run(&a->signin, ctx->http.srv, &a->in, &a->result, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result sign_in_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct authorize *a = ctx->state;

	switch (a->result.outcome) {
	case SIGNIN_SIGNED_IN:
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		return signed_in(ctx, a->result.code);
	case SIGNIN_NO_CODE:
		return redirect_error(ctx, "server_error", "The sign-in could not be stored.");
	case SIGNIN_REFUSED:
		form_reply(ctx, 401, a->p.passkey_token ? PASSKEY_FAILED : SIGNIN_FAILED, NULL);
		return STEP_DONE;
	case SIGNIN_THROTTLED:
		return throttled(ctx, a->result.retry_after_s, "failed sign-ins");
	case SIGNIN_TOO_MANY_CODES:   /* the session went on under a new cookie */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		if (a->result.recovery) {   /* the codes first; Continue asks again */
			recovery_reply(ctx, authorize_again(ctx->http.srv->cfg->issuer, &a->p));
			return STEP_DONE;
		}
		return throttled(ctx, a->result.retry_after_s, TOO_MANY_CODES);
	case SIGNIN_CONSENT_NEEDED:   /* signed in to the project; the app must be allowed */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		return consent_show(ctx, a->result.user_id, a->result.consent_scopes,
		                    a->result.consent_permissions);
	case SIGNIN_ACCESS_DENIED:   /* signed in to the project, not to this app */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		return redirect_error(ctx, "access_denied", ACCESS_DENIED);
	case SIGNIN_FACTOR_NEEDED:
		factor_reply(ctx, 200, a->result.factor_token, NULL);
		return STEP_DONE;
	case SIGNIN_FACTOR_REFUSED:
		factor_reply(ctx, 401, a->result.factor_token, FACTOR_FAILED);
		return STEP_DONE;
	case SIGNIN_ENROLL_NEEDED:
		enroll_reply(ctx, 200, NULL);
		return STEP_DONE;
	case SIGNIN_ENROLL_REFUSED:
		enroll_reply(ctx, 401, FACTOR_FAILED);
		return STEP_DONE;
	case SIGNIN_FACTOR_EXPIRED:
		form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
		return STEP_DONE;
	case SIGNIN_BUSY:
		break;
	}
	return flow_error(f, &a->result.err);   /* 503, JSON with Retry-After */
}

flow_step *const authorize_post_steps[] = {
	origin_check, form_read, client_get, client_check, redirect_get, redirect_check,
	request_check, cookie_read, name_get, credentials_read, sign_in, sign_in_answer, NULL,
};
