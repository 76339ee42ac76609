/*
 * The passkeys page (account_passkeys.h): the session user's passkeys,
 * listed, registered (WebAuthn Level 2 §7.1, webauthn.h) and removed. The
 * registration's challenge is bound to the session's cookie and its issue
 * time, so it is good for this browser and PASSKEY_CHALLENGE_TTL_S only;
 * a replayed attestation registers nothing (the credential ID is taken).
 * Never shows or logs a key, a cookie or a challenge's secret.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <jansson.h>
#include <openssl/evp.h>

#include "account_passkeys.h"
#include "account_recovery.h"
#include "b64url.h"
#include "config.h"
#include "console.h"
#include "crypto.h"
#include "form.h"
#include "html.h"
#include "log.h"
#include "metrics.h"
#include "passkey_auth.h"
#include "request.h"
#include "session.h"
#include "store_passkeys.h"
#include "store_projects.h"
#include "store_users.h"
#include "util.h"
#include "validate.h"
#include "webauthn.h"

#define FORM_TOKEN_FIELD "form_token"

/* The page's one script (docs/signin.md §"Passkeys"): served as a file,
 * pinned in the CSP by its SHA-256, with the same as its integrity. */
static const char script[] =
	"\"use strict\";\n"
	"/* edgeauth: the one script of the passkeys page, of the sign-in page and of\n"
	" * the sign-in's second step (docs/signin.md, Passkeys). It asks the browser\n"
	" * for a new passkey, or for an assertion of one (alone: a discoverable one,\n"
	" * its user verified), with the options the page carries as data, and\n"
	" * posts the answer in the page's form; the pages work without it for all\n"
	" * else. */\n"
	"(function () {\n"
	"\tvar options = document.getElementById(\"passkey-options\");\n"
	"\tvar add = document.getElementById(\"passkey-add\");\n"
	"\tvar use = document.getElementById(\"passkey-factor\");\n"
	"\tvar alone = document.getElementById(\"passkey-alone\");\n"
	"\tvar form = add || use || alone;\n"
	"\tif (!options || !form || !window.PublicKeyCredential || !navigator.credentials) {\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar d = options.dataset;\n"
	"\tvar note = document.getElementById(\"passkey-note\");\n"
	"\tform.hidden = false;\n"
	"\tif (note) {\n"
	"\t\tnote.hidden = true;\n"
	"\t}\n"
	"\tfunction b64u(buf) {\n"
	"\t\tvar s = \"\", a = new Uint8Array(buf);\n"
	"\t\tfor (var i = 0; i < a.length; i++) {\n"
	"\t\t\ts += String.fromCharCode(a[i]);\n"
	"\t\t}\n"
	"\t\treturn btoa(s).replace(/\\+/g, \"-\").replace(/\\//g, \"_\").replace(/=+$/, \"\");\n"
	"\t}\n"
	"\tfunction bytes(s) {\n"
	"\t\ts = s.replace(/-/g, \"+\").replace(/_/g, \"/\");\n"
	"\t\twhile (s.length % 4) {\n"
	"\t\t\ts += \"=\";\n"
	"\t\t}\n"
	"\t\tvar b = atob(s), a = new Uint8Array(b.length);\n"
	"\t\tfor (var i = 0; i < b.length; i++) {\n"
	"\t\t\ta[i] = b.charCodeAt(i);\n"
	"\t\t}\n"
	"\t\treturn a;\n"
	"\t}\n"
	"\tfunction ids(list) {\n"
	"\t\treturn (list ? list.split(\" \") : []).map(function (id) {\n"
	"\t\t\treturn { type: \"public-key\", id: bytes(id) };\n"
	"\t\t});\n"
	"\t}\n"
	"\tfunction failed(err) {\n"
	"\t\tdocument.getElementById(\"passkey-error\").textContent =\n"
	"\t\t\t\"The passkey was not used (\" + err.name + \").\";\n"
	"\t}\n"
	"\tfunction ask() {\n"
	"\t\tif (add) {\n"
	"\t\t\treturn navigator.credentials.create({ publicKey: {\n"
	"\t\t\t\trp: { id: d.rpId, name: d.rpId },\n"
	"\t\t\t\tuser: { id: new TextEncoder().encode(d.userId), name: d.userName,\n"
	"\t\t\t\t\tdisplayName: d.userName },\n"
	"\t\t\t\tchallenge: bytes(d.challenge),\n"
	"\t\t\t\tpubKeyCredParams: [{ type: \"public-key\", alg: -7 },\n"
	"\t\t\t\t\t{ type: \"public-key\", alg: -257 }],\n"
	"\t\t\t\texcludeCredentials: ids(d.exclude),\n"
	"\t\t\t\tauthenticatorSelection: { residentKey: \"preferred\",\n"
	"\t\t\t\t\trequireResidentKey: false, userVerification: \"preferred\" },\n"
	"\t\t\t\tattestation: \"none\",\n"
	"\t\t\t\ttimeout: 120000\n"
	"\t\t\t} }).then(function (cred) {\n"
	"\t\t\t\tform.elements.client_data.value = b64u(cred.response.clientDataJSON);\n"
	"\t\t\t\tform.elements.attestation_object.value = b64u(cred.response.attestationObject);\n"
	"\t\t\t});\n"
	"\t\t}\n"
	"\t\treturn navigator.credentials.get({ publicKey: {\n"
	"\t\t\trpId: d.rpId,\n"
	"\t\t\tchallenge: bytes(d.challenge),\n"
	"\t\t\tallowCredentials: ids(d.allow),\n"
	"\t\t\tuserVerification: alone ? \"required\" : \"preferred\",\n"
	"\t\t\ttimeout: 120000\n"
	"\t\t} }).then(function (cred) {\n"
	"\t\t\tform.elements.passkey_id.value = b64u(cred.rawId);\n"
	"\t\t\tform.elements.passkey_client_data.value = b64u(cred.response.clientDataJSON);\n"
	"\t\t\tform.elements.passkey_auth_data.value = b64u(cred.response.authenticatorData);\n"
	"\t\t\tform.elements.passkey_signature.value = b64u(cred.response.signature);\n"
	"\t\t\tif (alone && cred.response.userHandle) {\n"
	"\t\t\t\tform.elements.passkey_user_handle.value = b64u(cred.response.userHandle);\n"
	"\t\t\t}\n"
	"\t\t});\n"
	"\t}\n"
	"\tform.addEventListener(\"submit\", function (e) {\n"
	"\t\tif (form.dataset.answered) {\n"
	"\t\t\treturn;\n"
	"\t\t}\n"
	"\t\te.preventDefault();\n"
	"\t\task().then(function () {\n"
	"\t\t\tform.dataset.answered = \"1\";\n"
	"\t\t\tform.submit();\n"
	"\t\t}, failed);\n"
	"\t});\n"
	"})();\n";

char *account_passkeys_url(const char *issuer, const char *project_id)
{
	char *id = evhttp_encode_uri(project_id);
	char *url = xasprintf("%s/account/passkeys?project_id=%s", issuer, id ? id : "");

	free(id);
	return url;
}

bool account_passkeys_is_url(const char *issuer, const char *project_id,
                             const char *redirect_uri)
{
	char *url = account_passkeys_url(issuer, project_id);
	bool same = redirect_uri && strcmp(url, redirect_uri) == 0;

	free(url);
	return same;
}

/* The challenge of a registration begun at issued (ms, as text): bound to
 * the session's cookie, which only this browser holds. */
static void challenge_for(const char *cookie, const char *issued, char out[SECRET_HASH_LEN + 1])
{
	char *purpose = xasprintf("passkey-register %s", issued);

	session_form_value(purpose, cookie, out);
	free(purpose);
}

/* ---- the request's state ---- */

struct passkeys {
	const char *project_id;
	struct project_state project;
	char *cookie;
	struct session_lookup session;
	char token[SECRET_HASH_LEN + 1];
	bool recent;                   /* a password proved within ACCOUNT_RECENT_S */
	char *user_record;
	struct store_passkey_list list;
	struct store_passkey row;      /* one being registered; its strings ours */
	bool acted, changed;
	bool refused;                  /* the browser's answer failed its checks */
	bool first;                    /* the user's first factor: recovery codes too */
	struct recovery_batch codes;
	const char *action;            /* "add" or "remove" */
	const char *notice, *error;    /* static sentences for the page */
	struct event_origin by;
	struct event ev;
};

static void passkeys_release(void *state)
{
	struct passkeys *p = state;

	crypto_free_wiped(p->cookie);
	session_lookup_release(&p->session);
	free(p->user_record);
	store_passkey_list_release(&p->list);
	store_passkey_release(&p->row);
	recovery_batch_release(&p->codes);
}

static struct passkeys *passkeys_of(struct flow *f)
{
	return request_of(f)->state;
}

static void failed_page(struct request_ctx *ctx, const struct api_error *err)
{
	html_reply(ctx, err->status, html_error_page("Passkeys", "Not done", err->description));
}

static enum step_result refuse(struct request_ctx *ctx, int status, const char *heading,
                               const char *reason)
{
	html_reply(ctx, status, html_error_page("Passkeys", heading, reason));
	return STEP_DONE;
}

/* ---- the steps GET and POST share ---- */

static enum step_result query_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = request_state(ctx, sizeof *p, passkeys_release);
	struct api_error err;

	ctx->fail_page = failed_page;
	if (form_get(&ctx->query, "project_id", &p->project_id, &err) < 0 || !p->project_id ||
	    !*p->project_id)
		return refuse(ctx, 400, "No project", "The link must name a project (project_id).");
	store_project_get(ctx->http.srv->store, p->project_id, &p->project, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result session_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);

	if (!p->project.found || !p->project.is_active)
		return refuse(ctx, 404, "Project not found", "There is no active project with this ID.");
	p->cookie = html_session_cookie(ctx, p->project_id);
	session_find(&p->session, ctx->http.srv, p->cookie, p->project_id, flow_completion(f));
	return STEP_WAIT;
}

/* The project's sign-in page, as the console's client, back to this page;
 * prompt=login asks for the password even with a live session. */
static char *signin_url(struct request_ctx *ctx, const char *project_id, bool again)
{
	const char *issuer = ctx->http.srv->cfg->issuer;
	const char *names[] = { "response_type", "client_id", "redirect_uri", "prompt" };
	char *client_id = xasprintf(CONSOLE_CLIENT_PREFIX "%s", project_id);
	char *back = account_passkeys_url(issuer, project_id);
	char *base = xasprintf("%s/api/v1/authorize", issuer);
	char *url = html_redirect_url(base, names, (const char *const[]){ "code", client_id, back,
	                              again ? "login" : NULL }, 4);

	free(client_id);
	free(back);
	free(base);
	return url;
}

/* No live session: a read goes to the sign-in page and comes back; a post
 * is refused (it may be forged, and there is no form to come back to). */
static enum step_result session_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);

	if (!p->session.row.found) {
		if (ctx->http.method == EVHTTP_REQ_POST)
			return refuse(ctx, 403, "Not signed in", "This form needs a signed-in session "
			              "of the project. Nothing was changed.");
		html_redirect(ctx, signin_url(ctx, p->project_id, false));
		return STEP_DONE;
	}
	session_form_value("account", p->cookie, p->token);
	p->recent = now_ms() - p->session.row.auth_time <= ACCOUNT_RECENT_S * 1000LL;
	p->by = (struct event_origin){ p->session.row.user_id, request_event_address(ctx) };
	return STEP_NEXT;
}

static enum step_result user_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);

	store_user_get(ctx->http.srv->store, p->project_id, p->session.row.user_id, &p->user_record,
	               flow_completion(f));
	return STEP_WAIT;
}

static enum step_result list_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);

	store_passkey_list(ctx->http.srv->store, p->session.row.user_id, &p->list,
	                   flow_completion(f));
	return STEP_WAIT;
}

/* ---- the page ---- */

const char *account_passkeys_script_hash(void)
{
	static char b64[48];
	unsigned char digest[32];
	unsigned int n = 0;

	if (!b64[0]) {
		EVP_Digest(script, sizeof script - 1, digest, &n, EVP_sha256(), NULL);
		EVP_EncodeBlock((unsigned char *)b64, digest, (int)n);
	}
	return b64;
}

static void add_time(struct evbuffer *buf, int64_t ms)
{
	char t[TIMESTAMP_LEN];

	if (ms <= 0) {
		evbuffer_add_printf(buf, "never");
		return;
	}
	format_timestamp(ms, t);
	evbuffer_add_printf(buf, "<time>%s</time>", t);
}

static void add_form_begin(struct evbuffer *buf, const struct passkeys *p, const char *attrs)
{
	char *action = account_passkeys_url("", p->project_id);

	evbuffer_add_printf(buf, "<form method=\"post\" action=\"");
	html_escape_into(buf, action);
	evbuffer_add_printf(buf, "\"%s>\n", attrs);
	html_add_hidden(buf, FORM_TOKEN_FIELD, p->token);
	free(action);
}

static void add_list(struct evbuffer *buf, const struct passkeys *p)
{
	if (p->list.n == 0) {
		evbuffer_add_printf(buf, "<p>You have no passkey yet.</p>\n");
		return;
	}
	evbuffer_add_printf(buf, "<ul class=\"passkeys\">\n");
	for (size_t i = 0; i < p->list.n; i++) {
		const struct store_passkey *k = &p->list.items[i];

		evbuffer_add_printf(buf, "<li><strong>");
		html_escape_into(buf, k->name);
		evbuffer_add_printf(buf, "</strong><br>added ");
		add_time(buf, k->created_at);
		evbuffer_add_printf(buf, ", last used ");
		add_time(buf, k->last_used_at);
		if (p->recent) {
			add_form_begin(buf, p, "");
			html_add_hidden(buf, "action", "remove");
			html_add_hidden(buf, "id", k->id);
			evbuffer_add_printf(buf, "<button type=\"submit\">Remove</button>\n</form>\n");
		}
		evbuffer_add_printf(buf, "</li>\n");
	}
	evbuffer_add_printf(buf, "</ul>\n");
}

/* The registration form: hidden until the script finds WebAuthn; the
 * options are its data attributes (no inline script). */
static void add_register(struct evbuffer *buf, struct passkeys *p, const char *rp_id)
{
	json_t *user = json_loads(p->user_record ? p->user_record : "{}", 0, NULL);
	const char *email = json_string_value(json_object_get(user, "email"));
	const char *shown = json_string_value(json_object_get(user, "display_name"));
	char issued[24], challenge[SECRET_HASH_LEN + 1];

	snprintf(issued, sizeof issued, "%" PRId64, now_ms());
	challenge_for(p->cookie, issued, challenge);
	add_form_begin(buf, p, " id=\"passkey-add\" hidden");
	html_add_hidden(buf, "action", "add");
	html_add_hidden(buf, "issued", issued);
	html_add_hidden(buf, "client_data", "");
	html_add_hidden(buf, "attestation_object", "");
	evbuffer_add_printf(buf, "<label for=\"name\">Name of the new passkey</label>\n"
	                    "<input id=\"name\" name=\"name\" maxlength=\"%d\" value=\"Passkey\">\n"
	                    "<button type=\"submit\">Add a passkey</button>\n</form>\n",
	                    PASSKEY_NAME_MAX_CHARS);
	/* the options, as the script reads them (form.dataset) */
	evbuffer_add_printf(buf, "<div id=\"passkey-options\" hidden data-rp-id=\"");
	html_escape_into(buf, rp_id);
	evbuffer_add_printf(buf, "\" data-challenge=\"%s\" data-user-id=\"", challenge);
	html_escape_into(buf, p->session.row.user_id);
	evbuffer_add_printf(buf, "\" data-user-name=\"");
	html_escape_into(buf, email ? email : shown ? shown : p->session.row.user_id);
	evbuffer_add_printf(buf, "\" data-exclude=\"");
	for (size_t i = 0; i < p->list.n; i++) {
		evbuffer_add_printf(buf, "%s", i ? " " : "");
		html_escape_into(buf, p->list.items[i].credential_id);
	}
	evbuffer_add_printf(buf, "\"></div>\n<p id=\"passkey-error\" class=\"error\" role=\"alert\">"
	                    "</p>\n<p id=\"passkey-note\">Adding a passkey needs JavaScript and a "
	                    "browser that supports passkeys.</p>\n");
	json_decref(user);
}

static enum step_result show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);
	struct evbuffer *buf = html_page_begin("Passkeys");
	char origin[PASSKEY_ORIGIN_MAX], rp_id[PASSKEY_RP_ID_MAX], csp[HTML_CSP_MAX + 128], extra[128];

	evbuffer_add_printf(buf, "<h1>Passkeys</h1>\n");
	if (p->notice)
		evbuffer_add_printf(buf, "<p role=\"status\">%s</p>\n", p->notice);
	if (p->error)
		evbuffer_add_printf(buf, "<p class=\"error\" role=\"alert\">%s</p>\n", p->error);
	add_list(buf, p);
	if (p->first)
		account_recovery_show(&(struct console_page){ buf }, &p->codes);
	if (!passkey_rp(ctx->http.srv->cfg->issuer, origin, rp_id)) {
		evbuffer_add_printf(buf, "<p>Passkeys need this server reached by a host name "
		                    "(browsers refuse an IP address).</p>\n");
	} else if (!p->recent) {
		char *again = signin_url(ctx, p->project_id, true);

		evbuffer_add_printf(buf, "<p>To add or remove a passkey, <a href=\"");
		html_escape_into(buf, again);
		evbuffer_add_printf(buf, "\">confirm your password</a> first.</p>\n");
		free(again);
	} else if (p->list.n >= PASSKEYS_PER_USER_MAX) {
		evbuffer_add_printf(buf, "<p>You have %d passkeys, the most an account may have.</p>\n",
		                    PASSKEYS_PER_USER_MAX);
	} else {
		add_register(buf, p, rp_id);
	}
	evbuffer_add_printf(buf, "<script src=\"" ACCOUNT_PASSKEYS_SCRIPT "\" integrity=\"sha256-%s\">"
	                    "</script>\n", account_passkeys_script_hash());
	snprintf(extra, sizeof extra, "; script-src 'sha256-%s'; form-action 'self'",
	         account_passkeys_script_hash());
	html_csp_for(html_style(), extra, csp, sizeof csp);
	html_reply_csp(ctx, p->error ? 400 : 200, buf, csp);
	return STEP_DONE;
}

/* ---- POST: add or remove ---- */

/* docs/signin.md §"Cross-site posts": from our own page, with the
 * session's form token. */
static enum step_result post_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);
	const char *token = NULL;
	struct api_error err;

	if (!html_post_origin_check(ctx))
		return STEP_DONE;
	if (form_get(&ctx->form, FORM_TOKEN_FIELD, &token, &err) < 0 || !token ||
	    !crypto_equal(token, p->token))
		return refuse(ctx, 403, "Request refused", "The form's token is missing or wrong: "
		              "open the page again and retry. Nothing was changed.");
	if (form_get(&ctx->form, "action", &p->action, &err) < 0 || !p->action)
		p->action = "";
	return STEP_NEXT;
}

/* A form field's bytes, base64url-decoded (NULL: missing or not base64url). */
static unsigned char *field_bytes(struct request_ctx *ctx, const char *name, size_t *len)
{
	const char *v = NULL;
	struct api_error err;

	if (form_get(&ctx->form, name, &v, &err) < 0 || !v || !*v)
		return NULL;
	return b64url_decode_any(v, strlen(v), len);
}

/* The registration's answer checked (§7.1) into p->row; false with
 * p->error set (and the failure counted and audited) when refused. */
static bool attestation_check(struct request_ctx *ctx, struct passkeys *p, const char *issued)
{
	char origin[PASSKEY_ORIGIN_MAX], rp_id[PASSKEY_RP_ID_MAX], challenge[SECRET_HASH_LEN + 1];
	size_t cd_len = 0, att_len = 0;
	unsigned char *cd = field_bytes(ctx, "client_data", &cd_len);
	unsigned char *att = field_bytes(ctx, "attestation_object", &att_len);
	struct webauthn_credential cred;
	enum webauthn_status st = WEBAUTHN_MALFORMED;

	challenge_for(p->cookie, issued, challenge);
	if (cd && att && passkey_rp(ctx->http.srv->cfg->issuer, origin, rp_id)) {
		struct webauthn_expect ex = { challenge, origin, rp_id, 0 };

		st = webauthn_register(&ex, &(struct webauthn_attestation){ cd, cd_len, att, att_len },
		                       &cred);
	}
	free(cd);
	free(att);
	if (st != WEBAUTHN_OK) {
		log_info("passkey registration refused: %s", webauthn_status_name(st));
		metrics_passkey(METRICS_PASSKEY_FAILED);
		p->error = "The browser's answer could not be checked: no passkey was added.";
		return false;
	}
	p->row.id = crypto_new_id();
	p->row.user_id = xstrdup(p->session.row.user_id);
	p->row.credential_id = b64url_encode(cred.cred_id, cred.cred_id_len);
	p->row.public_key = b64url_encode(cred.public_key, cred.public_key_len);
	p->row.alg = cred.alg;
	p->row.sign_count = cred.sign_count;
	p->row.backup_eligible = (cred.flags & WEBAUTHN_FLAG_BE) != 0;
	webauthn_credential_release(&cred);
	return true;
}

/* The name typed: 1..PASSKEY_NAME_MAX_CHARS characters of UTF-8, else the default. */
static char *name_read(struct request_ctx *ctx)
{
	const char *v = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "name", &v, &err) < 0 || !v || !*v || !utf8_valid(v, strlen(v)) ||
	    utf8_chars(v) > PASSKEY_NAME_MAX_CHARS)
		return xstrdup("Passkey");
	return xstrdup(v);
}

static enum step_result add_start(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);
	const char *issued = NULL;
	struct api_error err;
	int64_t t;
	char *end = NULL;

	if (form_get(&ctx->form, "issued", &issued, &err) < 0 || !issued ||
	    (t = strtoll(issued, &end, 10), !end || *end || end == issued) ||
	    now_ms() - t > PASSKEY_CHALLENGE_TTL_S * 1000LL || t > now_ms()) {
		p->error = "The page was open too long: add the passkey again.";
		return STEP_NEXT;
	}
	if (!attestation_check(ctx, p, issued)) {
		/* audited as a failed factor is at sign-in; act_done sees no change */
		p->acted = p->refused = true;
		p->ev = (struct event){ &p->by, p->project_id, EVENT_FACTOR_FAILURE, p->by.actor,
		                        "access_denied" };
		store_event_record(ctx->http.srv->store, &p->ev, 1, flow_completion(f));
		return STEP_WAIT;
	}
	p->row.name = name_read(ctx);
	p->acted = true;
	p->ev = (struct event){ &p->by, p->project_id, EVENT_FACTOR_ENROLL, p->by.actor, NULL };
	store_passkey_add(ctx->http.srv->store, &p->row, &p->ev, &p->changed, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result remove_start(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);
	const char *id = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "id", &id, &err) < 0 || !id) {
		p->error = "Which passkey to remove was not said.";
		return STEP_NEXT;
	}
	p->acted = true;
	p->ev = (struct event){ &p->by, p->project_id, EVENT_FACTOR_REMOVE, p->by.actor, NULL };
	store_passkey_remove(ctx->http.srv->store, p->by.actor, id, &p->ev, &p->changed,
	                     flow_completion(f));
	return STEP_WAIT;
}

/* A change needs a recent password (docs/signin.md §"Passkeys"). */
static enum step_result act(struct flow *f)
{
	struct passkeys *p = passkeys_of(f);

	if (!p->recent) {
		p->error = "Confirm your password first: your sign-in is too old for this change.";
		return STEP_NEXT;
	}
	if (!strcmp(p->action, "add"))
		return add_start(f);
	if (!strcmp(p->action, "remove"))
		return remove_start(f);
	p->error = "This form asks for nothing we know.";
	return STEP_NEXT;
}

static enum step_result act_done(struct flow *f)
{
	struct passkeys *p = passkeys_of(f);
	bool add = !strcmp(p->action, "add");

	if (!p->acted || p->refused)
		return STEP_NEXT;
	if (p->changed) {
		json_t *user = json_loads(p->user_record ? p->user_record : "{}", 0, NULL);

		/* the record was read before the change */
		p->first = add && json_array_size(json_object_get(user, "second_factors")) == 0;
		json_decref(user);
		metrics_passkey(add ? METRICS_PASSKEY_REGISTERED : METRICS_PASSKEY_REMOVED);
		p->notice = add ? "The passkey was added." : "The passkey was removed.";
	} else {
		p->error = add ? "This passkey is registered already, or you have too many: nothing "
		                 "was added." : "There is no such passkey of yours: nothing was removed.";
	}
	return STEP_NEXT;
}

/* The first factor brings recovery codes (docs/signin.md §"Second factors"). */
static enum step_result codes_issue(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct passkeys *p = passkeys_of(f);

	if (!p->first)
		return STEP_NEXT;
	recovery_batch_store(ctx->http.srv->store, &p->by, p->project_id, p->session.row.user_id,
	                     &p->codes, flow_completion(f));
	return STEP_WAIT;
}

/* ---- the sign-in's second step ---- */

/* A sign-in form's passkey fields (the hidden answer, the button, the
 * options the script reads, the script) after its beginning in buf; ids
 * NULL: any of the user's discoverable passkeys. */
static void answer_fields(struct evbuffer *buf, const char *issuer, const char *token,
                          const char *ids, const char *button)
{
	static const char *const answer[] = {
		"passkey_id", "passkey_client_data", "passkey_auth_data", "passkey_signature",
		"passkey_user_handle",
	};
	char origin[PASSKEY_ORIGIN_MAX], rp_id[PASSKEY_RP_ID_MAX], challenge[SECRET_HASH_LEN + 1];

	if (!passkey_rp(issuer, origin, rp_id)) {
		evbuffer_add_printf(buf, "</form>\n");
		return;
	}
	for (size_t i = 0; i < sizeof answer / sizeof answer[0]; i++)
		html_add_hidden(buf, answer[i], "");
	passkey_signin_challenge(token, challenge);
	evbuffer_add_printf(buf, "<button type=\"submit\">%s</button>\n</form>\n"
	                    "<div id=\"passkey-options\" hidden data-rp-id=\"", button);
	html_escape_into(buf, rp_id);
	evbuffer_add_printf(buf, "\" data-challenge=\"%s\"", challenge);
	if (ids) {
		evbuffer_add_printf(buf, " data-allow=\"");
		html_escape_into(buf, ids);
		evbuffer_add_printf(buf, "\"");
	}
	evbuffer_add_printf(buf, "></div>\n<p id=\"passkey-error\" class=\"error\" role=\"alert\">"
	                    "</p>\n<script src=\"" ACCOUNT_PASSKEYS_SCRIPT "\" integrity=\"sha256-%s\">"
	                    "</script>\n", account_passkeys_script_hash());
}

void account_passkeys_factor_fields(struct evbuffer *buf, const char *issuer,
                                    const char *factor_token, const char *ids)
{
	answer_fields(buf, issuer, factor_token, ids, "Use a passkey");
}

void account_passkeys_alone_fields(struct evbuffer *buf, const char *issuer,
                                   const char *passkey_token)
{
	html_add_hidden(buf, "passkey_token", passkey_token);
	answer_fields(buf, issuer, passkey_token, NULL, "Sign in with a passkey");
}

bool account_passkeys_answer_read(const struct evkeyvalq *form, struct passkey_answer *out)
{
	struct api_error err;

	memset(out, 0, sizeof *out);
	if (form_get(form, "passkey_id", &out->credential_id, &err) < 0 ||
	    form_get(form, "passkey_client_data", &out->client_data, &err) < 0 ||
	    form_get(form, "passkey_auth_data", &out->auth_data, &err) < 0 ||
	    form_get(form, "passkey_signature", &out->signature, &err) < 0 ||
	    form_get(form, "passkey_user_handle", &out->user_handle, &err) < 0)
		return false;
	return out->signature && *out->signature;
}

/* ---- GET /account/passkeys.js ---- */

static enum step_result script_serve(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	http_add_header(ctx, "X-Content-Type-Options", "nosniff");
	http_reply_raw(ctx, 200, "text/javascript; charset=utf-8", script, sizeof script - 1);
	return STEP_DONE;
}

flow_step *const account_passkeys_get_steps[] = {
	query_read, session_get, session_check, user_get, list_get, show, NULL,
};
flow_step *const account_passkeys_post_steps[] = {
	query_read, session_get, session_check, post_check, user_get, act, act_done, codes_issue,
	list_get, show, NULL,
};
flow_step *const account_passkeys_script_steps[] = { script_serve, NULL };

void account_section_passkeys(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	char *href = account_passkeys_url(ctx->http.srv->cfg->issuer, console_of(ctx)->project_id);

	(void)recent;   /* the passkeys page asks for a recent sign-in itself */
	console_page_heading(p, "Passkeys");
	console_page_link(p, href, "Your passkeys: add, see and remove them");
	free(href);
}
