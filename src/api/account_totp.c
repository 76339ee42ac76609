/*
 * TOTP on the account page (account_totp.h). The opened secret lives only
 * while its page is written, and is wiped then; the store sees it sealed.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <event2/http.h>

#include "account_recovery.h"
#include "account_totp.h"
#include "config.h"
#include "console.h"
#include "factors.h"
#include "form.h"
#include "html.h"
#include "metrics.h"
#include "store_factors.h"
#include "totp.h"
#include "util.h"

struct totp_state {
	struct store_totp_row row;
	char *sealed;           /* a new enrollment's */
	bool begun, won, removed;
	bool first;             /* no factor before this one: recovery codes too */
	struct event event;
	struct recovery_batch codes;
};

static void totp_state_release(void *state)
{
	struct totp_state *t = state;

	store_totp_row_release(&t->row);
	crypto_free_wiped(t->sealed);
	recovery_batch_release(&t->codes);
}

static struct totp_state *state_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof (struct totp_state), totp_state_release);
}

/* The issuer an authenticator app shows: the host (and port) of ours. */
static char *issuer_label(const char *issuer)
{
	const char *host = strstr(issuer, "://");
	char *label;

	host = host ? host + 3 : issuer;
	label = xstrdup(host);
	label[strcspn(label, "/")] = '\0';
	return label;
}

/* Google Authenticator's key URI format: otpauth://totp/<issuer>:<email>
 * ?secret=<base32>&issuer=<issuer>, the defaults (SHA1, 6 digits, 30 s)
 * being RFC 6238's and ours. Caller frees wiped. */
static char *otpauth_uri(const char *issuer, const char *email, const char *secret)
{
	char *label = issuer_label(issuer);
	char *iss = evhttp_uriencode(label, -1, 0);
	char *who = evhttp_uriencode(email ? email : "", -1, 0);
	char *uri = xasprintf("otpauth://totp/%s:%s?secret=%s&issuer=%s", iss, who, secret, iss);

	free(label);
	free(iss);
	free(who);
	return uri;
}

int account_totp_key_show(struct console_page *p, const struct keyring *keys,
                          const char *issuer, const char *user_id, const char *email,
                          const char *sealed)
{
	size_t len = 0;
	unsigned char *key = factor_totp_open(keys, user_id, sealed, &len);
	char secret[TOTP_BASE32_MAX + 8];
	char *uri;

	if (!key || len > TOTP_SECRET_BYTES) {
		crypto_free_wiped(key);
		return -1;
	}
	totp_base32_encode(secret, key, len);
	crypto_free_wiped(key);
	uri = otpauth_uri(issuer, email, secret);
	console_page_text(p, "Scan this code with your authenticator app, or add the key below "
	                     "by hand; then type the six-digit code it shows.");
	console_page_qr(p, uri, "QR code of the authenticator app's key");
	console_page_code(p, uri);
	console_page_text(p, "Key:");
	console_page_code(p, secret);
	OPENSSL_cleanse(secret, sizeof secret);
	crypto_free_wiped(uri);
	return 0;
}

/* The set-up page: the secret sealed shown as a QR code and as text, and
 * the form that confirms it with a first code (error beside it: NULL). */
static void enrollment_page(struct request_ctx *ctx, int status, const char *sealed,
                            const char *error)
{
	char *action;
	struct console_page p;

	account_page_begin(&p, "Set up an authenticator app");
	if (account_totp_key_show(&p, ctx->http.srv->keys, ctx->http.srv->cfg->issuer,
	                          ctx->principal.user_id,
	                          json_string_value(json_object_get(account_user(ctx), "email")),
	                          sealed) < 0) {
		evbuffer_free(p.buf);
		account_refuse(ctx, 500, "The set-up could not be read: start it again.");
		return;
	}
	action = account_action_path(ctx, "totp/confirm");
	console_page_form_begin(&p, action, "post", console_of(ctx)->token);
	console_page_field(&p, &(struct console_field){ .name = "code",
		.label = "Code from the app", .type = "text", .required = true, .error = error });
	console_page_submit(&p, "Confirm");
	console_page_form_end(&p);
	account_link_back(ctx, &p);
	console_page_reply(ctx, status, &p);
	free(action);
}

void account_section_totp(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	const json_t *kinds = json_object_get(account_user(ctx), "second_factors");
	bool on = false;
	size_t i;
	json_t *k;
	char *action;

	json_array_foreach(kinds, i, k)
		on = on || strcmp(json_string_value(k), "totp") == 0;
	console_page_heading(p, "Authenticator app");
	console_page_text(p, on ? "An authenticator app (TOTP) is set up: signing in asks for its code."
	                        : "No authenticator app is set up.");
	if (!recent)
		return;   /* the password section shows the way to sign in again */
	action = account_action_path(ctx, on ? "totp/remove" : "totp/begin");
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	console_page_submit(p, on ? "Remove the authenticator app" : "Set up an authenticator app");
	console_page_form_end(p);
	free(action);
}

/* ---- POST /account/totp/begin ---- */

/* A new secret: 160 random bits, sealed before it is stored. */
static enum step_result begin_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);
	unsigned char key[TOTP_SECRET_BYTES];

	crypto_random(key, sizeof key);
	t->sealed = factor_totp_seal(ctx->http.srv->keys, ctx->principal.user_id, key, sizeof key);
	OPENSSL_cleanse(key, sizeof key);
	if (!t->sealed)
		return flow_fail(f, E_SYSTEM_ERROR, "The secret could not be sealed.");
	store_totp_begin(ctx->http.srv->store, ctx->principal.user_id, t->sealed, &t->begun,
	                 flow_completion(f));
	return STEP_WAIT;
}

static enum step_result begin_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);

	if (!t->begun)
		return account_refuse(ctx, 409, "An authenticator app is set up already: remove it "
		                                "first to set up another. Nothing was changed.");
	enrollment_page(ctx, 200, t->sealed, NULL);
	return STEP_DONE;
}

flow_step *const account_totp_begin_steps[] = {
	ACCOUNT_SIGNED_IN, account_need_recent, account_user_get, account_user_parse, begin_store,
	begin_show, NULL,
};

/* ---- POST /account/totp/confirm ---- */

static enum step_result totp_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_totp_get(ctx->http.srv->store, ctx->principal.user_id, &state_of(ctx)->row,
	               flow_completion(f));
	return STEP_WAIT;
}

/* The first code: a wrong one shows the set-up again; a right one confirms
 * it (factor.enroll), once, as a sign-in's use of a code is. */
static enum step_result confirm_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);
	const char *code = NULL;
	struct api_error err;
	int64_t step;

	if (!t->row.found || t->row.confirmed)
		return account_refuse(ctx, 409, t->row.found
		                      ? "An authenticator app is set up already. Nothing was changed."
		                      : "No set-up waits for a code: start it again. Nothing was changed.");
	if (form_get(&ctx->form, "code", &code, &err) < 0)
		code = NULL;
	step = factor_totp_check(ctx->http.srv->keys, ctx->principal.user_id, t->row.sealed,
	                         code ? code : "", now_ms() / 1000, t->row.last_step);
	if (step < 0) {   /* not a sign-in's failure: the user is signed in */
		enrollment_page(ctx, 400, t->row.sealed,
		                "The code is wrong: type the six digits the app shows now.");
		return STEP_DONE;
	}
	t->first = json_array_size(json_object_get(account_user(ctx), "second_factors")) == 0;
	t->event = (struct event){ request_origin(ctx), console_of(ctx)->project_id,
	                           EVENT_FACTOR_ENROLL, ctx->principal.user_id, NULL };
	store_totp_use(ctx->http.srv->store, ctx->principal.user_id, step, true, &t->event, &t->won,
	               flow_completion(f));
	return STEP_WAIT;
}

/* The first factor brings recovery codes. */
static enum step_result confirmed_codes(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);

	if (!t->won)
		return account_refuse(ctx, 409, "The set-up changed meanwhile: start it again.");
	metrics_totp(METRICS_TOTP_ENROLLED);
	if (!t->first)
		return STEP_NEXT;
	account_recovery_store(ctx, &t->codes, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result confirmed(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);
	struct console_page p;

	account_page_begin(&p, "Authenticator app set up");
	console_page_text(&p, "Your authenticator app is set up: from now on signing in asks for "
	                      "its code after the password.");
	if (t->first)
		account_recovery_show(&p, &t->codes);
	account_link_back(ctx, &p);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const account_totp_confirm_steps[] = {
	ACCOUNT_SIGNED_IN, account_need_recent, account_user_get, account_user_parse, totp_get,
	confirm_check, confirmed_codes, confirmed, NULL,
};

/* ---- POST /account/totp/remove ---- */

static enum step_result remove_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct totp_state *t = state_of(ctx);

	t->event = (struct event){ request_origin(ctx), console_of(ctx)->project_id,
	                           EVENT_FACTOR_REMOVE, ctx->principal.user_id, NULL };
	store_totp_remove(ctx->http.srv->store, ctx->principal.user_id, &t->event, &t->removed,
	                  flow_completion(f));
	return STEP_WAIT;
}

static enum step_result removed(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (state_of(ctx)->removed)
		metrics_totp(METRICS_TOTP_REMOVED);
	html_redirect(ctx, console_account_url("", console_of(ctx)->project_id));
	return STEP_DONE;
}

flow_step *const account_totp_remove_steps[] = {
	ACCOUNT_SIGNED_IN, account_need_recent, remove_store, removed, NULL,
};
