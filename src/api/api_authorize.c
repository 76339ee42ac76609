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
#include <event2/http.h>

#include "access_rules.h"
#include "api_authorize.h"
#include "config.h"
#include "account_passkeys.h"
#include "api_device.h"
#include "authorize_pages.h"
#include "console.h"
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

static bool missing(const char *v)
{
	return !v || !*v;
}

/* ---- what GET and POST share ---- */

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

/* The 429 answer: Retry-After, and the form again saying what was too many
 * (failed sign-ins, or sign-ins of one session) and the seconds to wait. */
static enum step_result throttled(struct request_ctx *ctx, int retry_after_s, const char *what)
{
	char msg[96];

	snprintf(msg, sizeof msg, "Too many %s. Try again in %d seconds.", what, retry_after_s);
	http_add_retry_after(ctx, retry_after_s);
	authorize_form_reply(ctx, 429, msg, "too_many_attempts");
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
		authorize_recovery_reply(ctx, location);
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

	for (size_t i = 0; i < authz_params_n; i++)
		if (form_get(q, authz_params[i].name, authz_param_slot(&a->p, &authz_params[i]),
		             &err) < 0)
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
		return authorize_consent_show(ctx, a->silent.session.row.user_id,
		                              a->silent.consent_scopes,
		                              code_mint_permissions(&a->silent.mint));

	authorize_form_reply(ctx, 200, NULL, NULL);
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
		authorize_form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
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
		authorize_form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
		return STEP_DONE;
	}
	if (p->enroll_token)   /* a missing code is a wrong one: the page again */
		return STEP_NEXT;
	if (p->factor_token) {
		if (account_passkeys_answer_read(&ctx->form, &a->passkey))
			a->in.passkey = &a->passkey;
		if (!missing(p->otp) || a->in.passkey)
			return STEP_NEXT;
		authorize_factor_reply(ctx, 401, p->factor_token, FACTOR_FAILED);
		return STEP_DONE;
	}
	if (form_get(&ctx->form, "passkey_token", &p->passkey_token, &err) < 0)
		p->passkey_token = "";   /* sent twice: no value of ours */
	if (p->passkey_token) {   /* a passkey alone: its answer, or the form again */
		if (account_passkeys_answer_read(&ctx->form, &a->passkey)) {
			a->in.passkey = &a->passkey;
			return STEP_NEXT;
		}
		authorize_form_reply(ctx, 401, PASSKEY_FAILED, NULL);
		return STEP_DONE;
	}
	if (form_get(&ctx->form, "email", &p->email, &err) < 0 ||
	    form_get(&ctx->form, "password", &p->password, &err) < 0 ||
	    missing(p->email) || missing(p->password)) {
		authorize_form_reply(ctx, 401, SIGNIN_FAILED, NULL);
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
		authorize_form_reply(ctx, 401, a->p.passkey_token ? PASSKEY_FAILED : SIGNIN_FAILED,
		                     NULL);
		return STEP_DONE;
	case SIGNIN_THROTTLED:
		return throttled(ctx, a->result.retry_after_s, "failed sign-ins");
	case SIGNIN_TOO_MANY_CODES:   /* the session went on under a new cookie */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		if (a->result.recovery) {   /* the codes first; Continue asks again */
			authorize_recovery_reply(ctx, authorize_again(ctx->http.srv->cfg->issuer, &a->p));
			return STEP_DONE;
		}
		return throttled(ctx, a->result.retry_after_s, TOO_MANY_CODES);
	case SIGNIN_CONSENT_NEEDED:   /* signed in to the project; the app must be allowed */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		return authorize_consent_show(ctx, a->result.user_id, a->result.consent_scopes,
		                              a->result.consent_permissions);
	case SIGNIN_ACCESS_DENIED:   /* signed in to the project, not to this app */
		html_set_session_cookie(ctx, a->client.project_id, a->result.session_secret);
		return redirect_error(ctx, "access_denied", ACCESS_DENIED);
	case SIGNIN_FACTOR_NEEDED:
		authorize_factor_reply(ctx, 200, a->result.factor_token, NULL);
		return STEP_DONE;
	case SIGNIN_FACTOR_REFUSED:
		authorize_factor_reply(ctx, 401, a->result.factor_token, FACTOR_FAILED);
		return STEP_DONE;
	case SIGNIN_ENROLL_NEEDED:
		authorize_enroll_reply(ctx, 200, NULL);
		return STEP_DONE;
	case SIGNIN_ENROLL_REFUSED:
		authorize_enroll_reply(ctx, 401, FACTOR_FAILED);
		return STEP_DONE;
	case SIGNIN_FACTOR_EXPIRED:
		authorize_form_reply(ctx, 401, FACTOR_EXPIRED, NULL);
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
