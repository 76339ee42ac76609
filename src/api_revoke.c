/*
 * Revocation. Both endpoints answer 200 whether or not the token was known
 * (RFC 7009 §2.2): the answer must not tell a caller which tokens exist.
 * Revoking a refresh token revokes its whole sign-in (RFC 7009 §2.1: access
 * tokens of the same grant go too).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_revoke.h"
#include "basic_auth.h"
#include "crypto.h"
#include "form.h"
#include "json_util.h"
#include "jwt.h"
#include "store.h"
#include "store_tokens.h"
#include "validate.h"

/* Revokes the refresh token's family if the token belongs to client_id. */
static int revoke_refresh(struct store *st, const char *token, const char *client_id,
                          bool *done, struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];
	struct grant_record g;
	int found, rc = 0;

	*done = false;
	crypto_hash_secret(token, strlen(token), hash);
	found = store_refresh_get(st, hash, &g, err);
	if (found < 0)
		return -1;
	if (found && !strcmp(g.client_id, client_id)) {
		rc = store_family_revoke(st, g.family_id, err);
		*done = true;
	}
	if (found)
		grant_record_release(&g);
	return rc;
}

/* Revokes an access token with a good signature; when client_id is given the
 * token must be that client's. */
static int revoke_access(struct server *srv, const char *token, const char *client_id,
                         struct api_error *err)
{
	json_t *claims = jwt_verify(srv->key, token, strlen(token));
	const char *jti, *cid;
	json_t *exp;
	int rc = 0;

	if (!claims)
		return 0;
	jti = json_string_value(json_object_get(claims, "jti"));
	cid = json_string_value(json_object_get(claims, "client_id"));
	exp = json_object_get(claims, "exp");
	if (jti && cid && json_is_integer(exp) && (!client_id || !strcmp(cid, client_id)))
		rc = store_access_revoke(srv->store, jti, (long long)json_integer_value(exp), err);
	json_decref(claims);
	return rc;
}

static int in_transaction(struct store *st, int rc, struct api_error *err)
{
	if (rc < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, err);
}

/* Who is revoking: Basic (then the secret must be right) or a public
 * client's client_id. */
static int revoke_client(struct request_ctx *ctx, const char *form_client_id,
                         struct basic_credentials *basic, struct api_error *err)
{
	struct client_auth ca;
	int parsed = basic_parse(request_header(ctx, "Authorization"), basic);

	if (parsed < 0)
		return api_fail(err, E_INVALID_PARAMS, "The Authorization header is malformed.");
	if (parsed == 1 && form_client_id && strcmp(form_client_id, basic->client_id) != 0)
		return api_fail(err, E_INVALID_PARAMS, "client_id differs from the Basic credentials.");
	if (parsed == 0 && (!form_client_id || !*form_client_id))
		return api_fail(err, E_INVALID_PARAMS, "client_id or client authentication is required.");
	return store_client_authenticate(ctx->srv->store,
	                                 parsed ? basic->client_id : form_client_id,
	                                 parsed ? basic->secret : NULL, &ca, err);
}

/* POST /api/v1/tokens/revoke, RFC 7009: form token and token_type_hint. */
void revoke_rfc7009(struct request_ctx *ctx)
{
	struct basic_credentials basic = { 0 };
	struct store *st = ctx->srv->store;
	const char *token = NULL, *hint = NULL, *client_id = NULL, *who;
	struct api_error err;
	bool done = false;
	int rc;

	if (form_get(&ctx->form, "token", &token, &err) < 0 ||
	    form_get(&ctx->form, "token_type_hint", &hint, &err) < 0 ||
	    form_get(&ctx->form, "client_id", &client_id, &err) < 0)
		goto fail;
	if (!token || !*token) {
		api_fail(&err, E_INVALID_PARAMS, "token is required.");
		goto fail;
	}
	if (revoke_client(ctx, client_id, &basic, &err) < 0)
		goto fail;
	who = basic.client_id ? basic.client_id : client_id;
	if (store_begin(st, &err) < 0)
		goto fail;
	rc = revoke_refresh(st, token, who, &done, &err);
	if (rc == 0 && !done)
		rc = revoke_access(ctx->srv, token, who, &err);
	if (in_transaction(st, rc, &err) < 0)
		goto fail;
	basic_release(&basic);
	http_add_header(ctx, "Cache-Control", "no-store");
	http_reply_json(ctx, 200, NULL);
	return;
fail:
	basic_release(&basic);
	http_add_header(ctx, "Cache-Control", "no-store");
	http_reply_error(ctx, &err);
}

/* POST /api/v1/tokens/current/revoke (SPEC.md): JSON client_id and
 * refresh_token; the bearer access token, if sent, is revoked too. */
void revoke_current(struct request_ctx *ctx)
{
	static const struct str_rule client_rule = { .key = "client_id", .required = true,
	                                             .max_chars = ID_MAX_CHARS };
	static const struct str_rule refresh_rule = { .key = "refresh_token", .required = true,
	                                              .max_chars = 512 };
	struct store *st = ctx->srv->store;
	struct str_field client_id, refresh;
	const char *bearer = request_header(ctx, "Authorization");
	struct api_error err;
	bool done;
	int rc;

	if (json_read_string(ctx->body, &client_rule, &client_id, &err) < 0 ||
	    json_read_string(ctx->body, &refresh_rule, &refresh, &err) < 0)
		goto fail;
	if (store_begin(st, &err) < 0)
		goto fail;
	rc = revoke_refresh(st, refresh.value, client_id.value, &done, &err);
	if (rc == 0 && bearer && !strncasecmp(bearer, "Bearer ", 7))
		rc = revoke_access(ctx->srv, bearer + 7, NULL, &err);
	if (in_transaction(st, rc, &err) < 0)
		goto fail;
	http_add_header(ctx, "Cache-Control", "no-store");
	http_reply_json(ctx, 200, NULL);
	return;
fail:
	http_reply_error(ctx, &err);
}
