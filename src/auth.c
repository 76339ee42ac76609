/* Bearer token checks for the management API (CONTRACT.md §5). Every
 * failure is the same invalid_authorization_token: the caller learns no
 * more than that the token is not good. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth.h"
#include "config.h"
#include "jwt.h"
#include "store.h"
#include "util.h"

static int invalid(struct api_error *err, int sent)
{
	api_fail(err, E_INVALID_AUTHORIZATION_TOKEN,
	         sent ? "The access token is invalid or expired." : "A bearer access token is required.");
	err->token_was_sent = sent;
	return -1;
}

static const char *claim_string(const json_t *claims, const char *key)
{
	const char *s = json_string_value(json_object_get(claims, key));
	return s && *s ? s : NULL;
}

int auth_bearer(struct server *srv, const char *header, struct principal *out,
                struct api_error *err)
{
	const char *token, *iss, *sub, *client_id, *project_id, *jti, *scope;
	struct client_auth ca;
	json_t *claims, *exp;
	int rc;

	/* RFC 6750 §2.1: "Bearer" is case-insensitive; anything else is no token. */
	if (!header || strncasecmp(header, "Bearer ", 7) != 0)
		return invalid(err, 0);
	token = header + 7;
	while (*token == ' ')
		token++;
	if (!*token)
		return invalid(err, 0);

	claims = jwt_verify(srv->key, token, strlen(token));
	if (!claims)
		return invalid(err, 1);
	iss = claim_string(claims, "iss");
	sub = claim_string(claims, "sub");
	client_id = claim_string(claims, "client_id");
	project_id = claim_string(claims, "project_id");
	jti = claim_string(claims, "jti");
	scope = json_string_value(json_object_get(claims, "scope"));
	exp = json_object_get(claims, "exp");
	if (!iss || !sub || !client_id || !project_id || !jti || !scope || !json_is_integer(exp) ||
	    strcmp(iss, srv->cfg->issuer) != 0 || json_integer_value(exp) <= (json_int_t)time(NULL))
		goto invalid_token;

	rc = store_token_is_revoked(srv->store, jti, err);
	if (rc != 0)
		goto fail_rc;
	rc = store_client_auth(srv->store, client_id, &ca, err);
	if (rc < 0)
		goto fail_rc;
	if (rc == 0 || !ca.is_active || !ca.project_active || strcmp(ca.project_id, project_id) != 0)
		goto invalid_token;
	if (strcmp(sub, client_id) != 0) {
		rc = store_user_is_active(srv->store, project_id, sub, err);
		if (rc <= 0)
			goto fail_rc;
	}

	out->present = true;
	out->project_id = xstrdup(project_id);
	out->client_id = xstrdup(client_id);
	out->user_id = strcmp(sub, client_id) != 0 ? xstrdup(sub) : NULL;
	out->jti = xstrdup(jti);
	out->scope = xstrdup(scope);
	out->exp = (long long)json_integer_value(exp);
	json_decref(claims);
	return 0;

fail_rc:
	json_decref(claims);
	return rc < 0 ? -1 : invalid(err, 1);
invalid_token:
	json_decref(claims);
	return invalid(err, 1);
}

bool principal_has(const struct principal *p, const char *permission)
{
	size_t n = strlen(permission);
	const char *s = p->scope;

	while (s && *s) {
		const char *end = strchrnul(s, ' ');
		if ((size_t)(end - s) == n && strncmp(s, permission, n) == 0)
			return true;
		s = *end ? end + 1 : end;
	}
	return false;
}
