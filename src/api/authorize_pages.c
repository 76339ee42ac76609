/*
 * The authorization endpoint's pages (authorize_pages.h): the sign-in form,
 * the second step's, the enrollment's, the recovery codes' and the consent
 * page. Every value is escaped (html.h); the one script is the passkeys',
 * allowed by its hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "account_passkeys.h"
#include "account_recovery.h"
#include "account_totp.h"
#include "authorize_pages.h"
#include "config.h"
#include "console_page.h"
#include "crypto.h"
#include "html.h"
#include "util.h"

/* The parameters read from the query or the form, and which of them the
 * form carries (hidden fields) so that the next attempt is the same
 * request. */
const struct authz_param authz_params[] = {
#define PARAM(field, carried) { #field, offsetof(struct authz_params, field), carried }
	PARAM(response_type, true), PARAM(client_id, true), PARAM(redirect_uri, true),
	PARAM(code_challenge, true), PARAM(code_challenge_method, true), PARAM(state, true),
	PARAM(scope, true), PARAM(nonce, true), PARAM(prompt, true), PARAM(max_age, true),
	PARAM(login_hint, true), PARAM(id_token_hint, false), PARAM(request, false),
	PARAM(request_uri, false),
#undef PARAM
};
const size_t authz_params_n = sizeof authz_params / sizeof authz_params[0];

const char **authz_param_slot(struct authz_params *p, const struct authz_param *d)
{
	return (const char **)(void *)((char *)p + d->offset);
}

/* The request's parameters a page's form carries, as hidden fields, so
 * that its post is the same request. */
static void add_carried(struct evbuffer *buf, struct authz_params *p)
{
	for (size_t i = 0; i < sizeof authz_params / sizeof authz_params[0]; i++)
		if (authz_params[i].carried)
			html_add_hidden(buf, authz_params[i].name,
			                *authz_param_slot(p, &authz_params[i]));
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

void authorize_form_reply(struct request_ctx *ctx, int status, const char *message,
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
void authorize_factor_reply(struct request_ctx *ctx, int status, const char *token,
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
void authorize_enroll_reply(struct request_ctx *ctx, int status, const char *message)
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
void authorize_recovery_reply(struct request_ctx *ctx, char *location)
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
enum step_result authorize_consent_show(struct request_ctx *ctx, const char *user_id,
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

/* The authorization request again, as its form carries it (add_carried),
 * for a GET. Caller frees. */
char *authorize_again(const char *issuer, struct authz_params *p)
{
	const size_t n = sizeof authz_params / sizeof authz_params[0];
	const char *names[sizeof authz_params / sizeof authz_params[0]];
	const char *values[sizeof authz_params / sizeof authz_params[0]];
	char *base = xasprintf("%s/api/v1/authorize", issuer), *url;

	for (size_t i = 0; i < n; i++) {
		names[i] = authz_params[i].name;
		values[i] = authz_params[i].carried ? *authz_param_slot(p, &authz_params[i]) : NULL;
	}
	url = html_redirect_url(base, names, values, n);
	free(base);
	return url;
}
