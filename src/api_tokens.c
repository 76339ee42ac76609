/*
 * POST /api/v1/tokens. Checks run in CONTRACT.md §5's order: the form, the
 * client, client_not_active, project_not_active, then the grant itself.
 * Every answer carries Cache-Control: no-store (RFC 6749 §5.1).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_tokens.h"
#include "b64url.h"
#include "config.h"
#include "crypto.h"
#include "json_util.h"
#include "store.h"
#include "tokens.h"
#include "util.h"

struct basic_credentials {
	char *client_id;
	char *secret;
};

static void basic_release(struct basic_credentials *b)
{
	free(b->client_id);
	crypto_wipe_free(b->secret);
	memset(b, 0, sizeof *b);
}

/* RFC 7617 with RFC 6749 §2.3.1: the ID and secret are form-urlencoded
 * before Base64, so both are URL-decoded after splitting at the first colon.
 * Returns 1 parsed, 0 no Basic header, -1 malformed. */
static int parse_basic(const char *header, struct basic_credentials *out)
{
	unsigned char *raw;
	size_t len;
	char *colon;
	int rc = -1;

	if (!header)
		return 0;
	if (strncasecmp(header, "Basic ", 6) != 0)
		return -1;
	header += 6;
	while (*header == ' ')
		header++;
	raw = b64_decode_any(header, strlen(header), &len);
	if (!raw)
		return -1;
	colon = memchr(raw, ':', len);
	if (colon && !memchr(raw, '\0', len)) {
		out->client_id = percent_decode((char *)raw, (size_t)(colon - (char *)raw), true);
		out->secret = percent_decode(colon + 1, len - (size_t)(colon + 1 - (char *)raw), true);
		if (out->client_id && out->secret && *out->client_id)
			rc = 1;
		else
			basic_release(out);
	}
	crypto_wipe_free((char *)raw);
	return rc;
}

static void reply_token_error(struct request_ctx *ctx, const struct api_error *err)
{
	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Pragma", "no-cache");
	http_reply_error(ctx, err);
}

/* RFC 6749 §5.1; fields without a value are left out. */
static void reply_tokens(struct request_ctx *ctx, const struct access_token *at,
                         const char *scope, const char *refresh_token)
{
	json_t *body = json_pack("{s:s, s:s, s:I}", "access_token", at->token,
	                         "token_type", "Bearer",
	                         "expires_in", (json_int_t)ctx->srv->cfg->access_ttl_s);
	if (scope && *scope)
		json_object_set_new(body, "scope", json_string(scope));
	if (refresh_token)
		json_object_set_new(body, "refresh_token", json_string(refresh_token));
	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Pragma", "no-cache");
	http_reply_json(ctx, 200, body);
}

/* client_credentials (RFC 6749 §4.4): the client authenticates with Basic. */
static int grant_client_credentials(struct request_ctx *ctx, struct api_error *err)
{
	struct basic_credentials basic = { 0 };
	struct client_auth ca;
	struct access_token at = { 0 };
	char hash[SECRET_HASH_LEN + 1];
	char *scope = NULL;
	int rc = -1, found;

	switch (parse_basic(request_header(ctx, "Authorization"), &basic)) {
	case 0:
		return api_fail(err, E_INVALID_PARAMS,
		                "client_credentials needs an Authorization: Basic header.");
	case -1:
		return api_fail(err, E_INVALID_PARAMS, "The Authorization header is malformed.");
	}
	found = store_client_auth(ctx->srv->store, basic.client_id, &ca, err);
	if (found < 0)
		goto out;
	/* Hash even for an unknown client, so timing does not tell which it was. */
	crypto_hash_secret(basic.secret, strlen(basic.secret), hash);
	if (!found || !crypto_equal(hash, ca.secret_hash)) {
		api_fail(err, E_INVALID_CLIENT_CREDENTIALS, "The client ID or secret is wrong.");
		goto out;
	}
	if (!ca.is_active) {
		api_fail(err, E_CLIENT_NOT_ACTIVE, "The client is not active.");
		goto out;
	}
	if (!ca.project_active) {
		api_fail(err, E_PROJECT_NOT_ACTIVE, "The project is not active.");
		goto out;
	}
	scope = store_client_scope(ctx->srv->store, basic.client_id, err);
	if (!scope)
		goto out;
	tokens_issue_access(ctx->srv, ca.project_id, basic.client_id, NULL, scope, &at);
	reply_tokens(ctx, &at, scope, NULL);
	tokens_access_release(&at);
	rc = 0;
out:
	free(scope);
	basic_release(&basic);
	return rc;
}

void tokens_exchange(struct request_ctx *ctx)
{
	struct api_error err;
	const char *grant_type = NULL;

	if (query_get(&ctx->form, "grant_type", &grant_type, &err) < 0)
		goto fail;
	if (!grant_type || !*grant_type) {
		api_fail(&err, E_INVALID_PARAMS, "grant_type is required.");
		goto fail;
	}
	if (!strcmp(grant_type, "client_credentials")) {
		if (grant_client_credentials(ctx, &err) < 0)
			goto fail;
		return;
	}
	api_fail(&err, E_INVALID_PARAMS,
	         "grant_type must be authorization_code, refresh_token or client_credentials.");
fail:
	reply_token_error(ctx, &err);
}
