/*
 * POST /api/v1/tokens. Checks run in CONTRACT.md §5's order: the form, the
 * client, client_not_active, project_not_active, then the grant itself.
 * Every answer carries Cache-Control: no-store (RFC 6749 §5.1).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "access_token.h"
#include "api_tokens.h"
#include "basic_auth.h"
#include "config.h"
#include "crypto.h"
#include "form.h"
#include "json_util.h"
#include "store.h"
#include "store_tokens.h"
#include "util.h"

static void reply_token_error(struct request_ctx *ctx, const struct api_error *err)
{
	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Pragma", "no-cache");
	http_reply_error(ctx, err);
}

static bool json_plain(const char *s)
{
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/* RFC 6749 §5.1; fields without a value are left out. Written directly, not
 * through jansson: no value needs a JSON escape (tokens are base64url and
 * dots; a scope holds only named permissions of valid codes, see
 * SQL_SCOPE_CODES_OK), and escaping a long token byte by byte cost a sixth
 * of the request. */
static void reply_tokens(struct request_ctx *ctx, const struct access_token *at,
                         const char *scope, const char *refresh_token)
{
	char *body;

	assert(json_plain(scope) && json_plain(refresh_token));
	body = xasprintf("{\"access_token\":\"%s\",\"token_type\":\"Bearer\","
	                       "\"expires_in\":%ld%s%s%s%s%s%s}", at->token,
	                       ctx->srv->cfg->access_ttl_s,
	                       scope && *scope ? ",\"scope\":\"" : "", scope && *scope ? scope : "",
	                       scope && *scope ? "\"" : "",
	                       refresh_token ? ",\"refresh_token\":\"" : "",
	                       refresh_token ? refresh_token : "", refresh_token ? "\"" : "");

	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Pragma", "no-cache");
	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	crypto_wipe_free(body);
}

/* After authentication, CONTRACT.md §5's order: client_not_active, then
 * project_not_active. */
static int client_usable(const struct client_auth *ca, struct api_error *err)
{
	if (!ca->is_active)
		return api_fail(err, E_CLIENT_NOT_ACTIVE, "The client is not active.");
	if (!ca->project_active)
		return api_fail(err, E_PROJECT_NOT_ACTIVE, "The project is not active.");
	return 0;
}

/* client_credentials (RFC 6749 §4.4): the client authenticates with Basic. */
static int grant_client_credentials(struct request_ctx *ctx, struct api_error *err)
{
	struct basic_credentials basic = { 0 };
	struct client_auth ca;
	struct access_token at = { 0 };
	char *scope = NULL;
	int rc = -1;

	switch (basic_parse(request_header(ctx, "Authorization"), &basic)) {
	case 0:
		return api_fail(err, E_INVALID_PARAMS,
		                "client_credentials needs an Authorization: Basic header.");
	case -1:
		return api_fail(err, E_INVALID_PARAMS, "The Authorization header is malformed.");
	}
	if (store_client_authenticate(ctx->srv->store, basic.client_id, basic.secret, &ca, err) < 0)
		goto out;
	if (client_usable(&ca, err) < 0)
		goto out;
	scope = store_client_scope(ctx->srv->store, basic.client_id, ca.stamp, err);
	if (!scope)
		goto out;
	if (access_token_issue(ctx->srv, ca.project_id, basic.client_id, NULL, scope, &at,
	                       err) == 0) {
		reply_tokens(ctx, &at, scope, NULL);
		rc = 0;
	}
	access_token_release(&at);
out:
	free(scope);
	basic_release(&basic);
	return rc;
}

/* The parameters of a token request. Each may be given once at most. */
struct token_form {
	const char *grant_type;
	const char *client_id;
	const char *code;
	const char *redirect_uri;
	const char *code_verifier;
	const char *refresh_token;
};

static int read_form(const struct evkeyvalq *f, struct token_form *tf, struct api_error *err)
{
	const char *alias = NULL;

	memset(tf, 0, sizeof *tf);
	if (form_get(f, "grant_type", &tf->grant_type, err) < 0 ||
	    form_get(f, "client_id", &tf->client_id, err) < 0 ||
	    form_get(f, "authorization_code", &tf->code, err) < 0 ||
	    form_get(f, "code", &alias, err) < 0 ||
	    form_get(f, "redirect_uri", &tf->redirect_uri, err) < 0 ||
	    form_get(f, "code_verifier", &tf->code_verifier, err) < 0 ||
	    form_get(f, "refresh_token", &tf->refresh_token, err) < 0)
		return -1;
	/* RFC 6749 names it "code"; SPEC.md "authorization_code". One of them. */
	if (tf->code && alias)
		return api_fail(err, E_INVALID_PARAMS, "Send the code once, as code or authorization_code.");
	if (!tf->code)
		tf->code = alias;
	if (!tf->grant_type || !*tf->grant_type)
		return api_fail(err, E_INVALID_PARAMS, "grant_type is required.");
	return 0;
}

static bool missing(const char *v)
{
	return !v || !*v;
}

/* The form checks of the authorization_code and refresh_token grants, and
 * the client ID they name (form or Basic). *basic is filled when a Basic
 * header came. */
static int check_user_grant_form(struct request_ctx *ctx, struct token_form *tf,
                                 struct basic_credentials *basic, struct api_error *err)
{
	bool is_code = !strcmp(tf->grant_type, "authorization_code");

	if (is_code && (missing(tf->code) || missing(tf->redirect_uri) || missing(tf->code_verifier)))
		return api_fail(err, E_INVALID_PARAMS,
		                "authorization_code needs code, redirect_uri and code_verifier.");
	if (!is_code && missing(tf->refresh_token))
		return api_fail(err, E_INVALID_PARAMS, "refresh_token is required.");
	switch (basic_parse(request_header(ctx, "Authorization"), basic)) {
	case -1:
		return api_fail(err, E_INVALID_PARAMS, "The Authorization header is malformed.");
	case 1:
		if (tf->client_id && strcmp(tf->client_id, basic->client_id) != 0)
			return api_fail(err, E_INVALID_PARAMS,
			                "client_id differs from the Basic credentials.");
		tf->client_id = basic->client_id;
		return 0;
	}
	if (missing(tf->client_id))
		return api_fail(err, E_INVALID_PARAMS, "client_id is required.");
	return 0;
}

/* The client of a user grant: a public client names itself; a confidential
 * one may authenticate with Basic, and then its secret must be right. */
static int check_user_grant_client(struct request_ctx *ctx, const struct token_form *tf,
                                   const struct basic_credentials *basic,
                                   struct client_auth *ca, struct api_error *err)
{
	if (store_client_authenticate(ctx->srv->store, tf->client_id,
	                              basic->client_id ? basic->secret : NULL, ca, err) < 0)
		return -1;
	return client_usable(ca, err);
}

/* A replay: revoke the whole sign-in, in its own transaction, and answer
 * the reuse error (CONTRACT.md §5, RFC 6749 §4.1.2 and §10.4). */
static int fail_replay(struct request_ctx *ctx, const char *family_id, enum api_code code,
                       struct api_error *err)
{
	struct store *st = ctx->srv->store;

	if (store_begin(st, err) < 0 || store_family_revoke(st, family_id, err) < 0 ||
	    store_commit(st, err) < 0) {
		store_rollback(st);
		return -1;
	}
	return api_fail(err, code, code == E_AUTH_CODE_ALREADY_USED ?
	                "The authorization code was already used; its tokens are revoked." :
	                "The refresh token was already used; its sign-in is revoked.");
}

/* Issues an access and a refresh token for the user's sign-in family,
 * inside the caller's transaction, and answers after the commit. */
static int issue_user_tokens(struct request_ctx *ctx, const struct grant_record *g,
                             struct api_error *err)
{
	struct store *st = ctx->srv->store;
	struct access_token at = { 0 };
	char *refresh = crypto_new_secret(), *scope;
	char hash[SECRET_HASH_LEN + 1];
	struct new_refresh nr;
	int rc = -1;

	scope = store_user_scope(st, g->user_id, err);
	if (!scope)
		goto out;
	if (access_token_issue(ctx->srv, g->project_id, g->client_id, g->user_id, scope, &at,
	                       err) < 0)
		goto out;
	crypto_hash_secret(refresh, strlen(refresh), hash);
	nr = (struct new_refresh){
		.hash = hash, .family_id = g->family_id, .project_id = g->project_id,
		.client_id = g->client_id, .user_id = g->user_id, .access_jti = at.jti,
		.access_exp_s = at.exp,
		.expires_at = now_ms() + ctx->srv->cfg->refresh_ttl_s * 1000LL,
	};
	if (store_refresh_insert(st, &nr, err) < 0 || store_commit(st, err) < 0)
		goto out;
	reply_tokens(ctx, &at, scope, refresh);
	rc = 0;
out:
	access_token_release(&at);
	crypto_wipe_free(refresh);
	free(scope);
	return rc;
}

typedef int grant_use_fn(struct store *st, const char *hash, struct api_error *err);

/* The end of both user grants, once the code or refresh token checked out:
 * its user must still be active (else `inactive`), then it is marked used,
 * atomically, and new tokens are issued in the same transaction. Losing the
 * race to a simultaneous use is a replay (`reused`). */
static int redeem(struct request_ctx *ctx, const struct grant_record *g, const char *hash,
                  grant_use_fn *use, enum api_code inactive, enum api_code reused,
                  struct api_error *err)
{
	struct store *st = ctx->srv->store;
	int found = store_user_is_active(st, g->project_id, g->user_id, err);

	if (found <= 0)
		return found == 0 ? api_fail(err, inactive, "The user is not active.") : -1;
	if (store_begin(st, err) < 0)
		return -1;
	found = use(st, hash, err);
	if (found <= 0) {
		store_rollback(st);
		return found == 0 ? fail_replay(ctx, g->family_id, reused, err) : -1;
	}
	if (issue_user_tokens(ctx, g, err) < 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

/* authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6), checks in
 * CONTRACT.md §5's order. */
static int grant_authorization_code(struct request_ctx *ctx, const struct token_form *tf,
                                    struct api_error *err)
{
	struct store *st = ctx->srv->store;
	struct grant_record g;
	char hash[SECRET_HASH_LEN + 1];
	int rc = -1, found;

	crypto_hash_secret(tf->code, strlen(tf->code), hash);
	found = store_code_get(st, hash, &g, err);
	if (found < 0)
		return -1;
	if (!found || strcmp(g.client_id, tf->client_id) != 0 ||
	    (g.predates_deactivation && !g.used)) {
		api_fail(err, E_INVALID_AUTHORIZATION_CODE, "The authorization code is invalid.");
		goto out;
	}
	if (g.used) {
		fail_replay(ctx, g.family_id, E_AUTH_CODE_ALREADY_USED, err);
		goto out;
	}
	if (strcmp(g.redirect_uri, tf->redirect_uri) != 0) {
		api_fail(err, E_DIFFERENT_AUTHORIZE_REDIRECT_URI,
		         "redirect_uri differs from the authorization request.");
		goto out;
	}
	if (now_ms() >= g.expires_at) {
		api_fail(err, E_AUTH_CODE_EXPIRED, "The authorization code has expired.");
		goto out;
	}
	if (!crypto_pkce_s256_verify(tf->code_verifier, g.code_challenge)) {
		api_fail(err, E_INVALID_CODE_VERIFIER, "code_verifier does not match the challenge.");
		goto out;
	}
	rc = redeem(ctx, &g, hash, store_code_use, E_INVALID_AUTHORIZATION_CODE,
	            E_AUTH_CODE_ALREADY_USED, err);
out:
	grant_record_release(&g);
	return rc;
}

/* refresh_token (RFC 6749 §6): single use, rotated on every use. */
static int grant_refresh_token(struct request_ctx *ctx, const struct token_form *tf,
                               struct api_error *err)
{
	struct store *st = ctx->srv->store;
	struct grant_record g;
	char hash[SECRET_HASH_LEN + 1];
	int rc = -1, found;

	crypto_hash_secret(tf->refresh_token, strlen(tf->refresh_token), hash);
	found = store_refresh_get(st, hash, &g, err);
	if (found < 0)
		return -1;
	if (!found || strcmp(g.client_id, tf->client_id) != 0 ||
	    ((g.revoked || g.predates_deactivation) && !g.used)) {
		api_fail(err, E_INVALID_REFRESH_TOKEN, "The refresh token is invalid.");
		goto out;
	}
	if (g.used) {
		fail_replay(ctx, g.family_id, E_REFRESH_TOKEN_ALREADY_USED, err);
		goto out;
	}
	if (now_ms() >= g.expires_at) {
		api_fail(err, E_REFRESH_TOKEN_EXPIRED, "The refresh token has expired.");
		goto out;
	}
	rc = redeem(ctx, &g, hash, store_refresh_use, E_INVALID_REFRESH_TOKEN,
	            E_REFRESH_TOKEN_ALREADY_USED, err);
out:
	grant_record_release(&g);
	return rc;
}

static int exchange(struct request_ctx *ctx, struct api_error *err)
{
	struct basic_credentials basic = { 0 };
	struct client_auth ca;
	struct token_form tf;
	int rc = -1;

	if (read_form(&ctx->form, &tf, err) < 0)
		return -1;
	if (!strcmp(tf.grant_type, "client_credentials"))
		return grant_client_credentials(ctx, err);
	if (strcmp(tf.grant_type, "authorization_code") != 0 &&
	    strcmp(tf.grant_type, "refresh_token") != 0)
		return api_fail(err, E_INVALID_PARAMS, "grant_type must be authorization_code,"
		                " refresh_token or client_credentials.");
	if (check_user_grant_form(ctx, &tf, &basic, err) < 0 ||
	    check_user_grant_client(ctx, &tf, &basic, &ca, err) < 0)
		goto out;
	rc = tf.grant_type[0] == 'a' ? grant_authorization_code(ctx, &tf, err)
	                             : grant_refresh_token(ctx, &tf, err);
out:
	basic_release(&basic);
	return rc;
}

void tokens_exchange(struct request_ctx *ctx)
{
	struct api_error err;

	if (exchange(ctx, &err) < 0)
		reply_token_error(ctx, &err);
}
