/*
 * The revocation of what the grants issued (grants.h): RFC 7009's endpoint
 * and current/revoke (docs/tokens.md §"Revocation"), flows of steps over the
 * store that share the grants' client steps.
 */
#include <stdlib.h>
#include <string.h>

#include "grants.h"
#include "util.h"

/* Starts a store operation that resumes the revocation's flow. */
#define WAIT_ON(f) flow_completion(f)

/* ---- revocation ---- */

static enum step_result revoke_client(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct revoke_request *req = g->revoke;
	struct api_error err;

	if (grant_missing(req->token))
		return flow_fail(f, E_INVALID_PARAMS, "token is required.");
	if (client_credentials_scheme(&req->client, &err) < 0)
		return flow_error(f, &err);
	if (!req->client.basic_client_id && grant_missing(req->client.form_client_id))
		return flow_fail(f, E_INVALID_PARAMS, "client_id or client authentication is required.");
	if (client_credentials_id(&req->client, &g->client_id, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

/* current/revoke names its client in the body. A secret sent (Basic or
 * client_secret) must be its own; without one, an unknown client is no
 * error: the answer is 200 whatever was revoked (docs/tokens.md §"Revocation"). */
static enum step_result current_client(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct api_error err;

	if (client_credentials_id(&g->revoke->client, &g->client_id, &err) < 0)
		return flow_error(f, &err);
	if (grant_credentials(g)->secret)
		return grant_client_authenticate(f);
	store_client_lookup(g->srv->store, g->client_id, &g->client, WAIT_ON(f));
	return STEP_WAIT;
}

static enum step_result revoke_find_refresh(struct flow *f)
{
	struct grant *g = grant_of(f);

	crypto_hash_secret(g->revoke->token, strlen(g->revoke->token), g->hash);
	store_refresh_get(g->srv->store, g->hash, &g->record, WAIT_ON(f));
	return STEP_WAIT;
}

/* A refresh token of the asking client revokes its sign-in; any other
 * token may still be an access token. */
static enum step_result revoke_refresh(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (!g->record.found || strcmp(g->record.client_id, g->client_id) != 0)
		return STEP_NEXT;
	g->won = true;
	store_family_revoke(g->srv->store, g->record.family_id,
	                    grant_event(g, g->record.project_id, EVENT_TOKEN_REVOKE,
	                                g->record.user_id, NULL),
	                    WAIT_ON(f));
	return STEP_WAIT;
}

/* Revokes token if it is an access token with a good signature of client_id
 * (any client when NULL); anything else is let be (RFC 7009 §2.2). */
static enum step_result revoke_access(struct flow *f, const char *token, const char *client_id)
{
	struct grant *g = grant_of(f);
	json_t *claims = token ? keyring_verify(g->srv->keys, JWT_TYP_ACCESS, token, strlen(token),
	                                        NULL)
	                       : NULL;
	const char *jti, *cid, *project;
	json_t *exp;

	if (!claims)
		return STEP_DONE;
	jti = json_string_value(json_object_get(claims, "jti"));
	cid = json_string_value(json_object_get(claims, "client_id"));
	exp = json_object_get(claims, "exp");
	if (!jti || !cid || !json_is_integer(exp) || (client_id && strcmp(cid, client_id) != 0)) {
		json_decref(claims);
		return STEP_DONE;
	}
	g->access.jti = xstrdup(jti);
	project = json_string_value(json_object_get(claims, "project_id"));
	g->access_project = project ? xstrdup(project) : NULL;
	store_access_revoke(g->srv->store, g->access.jti, (long long)json_integer_value(exp),
	                    grant_event(g, g->access_project, EVENT_TOKEN_REVOKE, g->access.jti,
	                                NULL),
	                    WAIT_ON(f));
	json_decref(claims);
	return STEP_WAIT;
}

static enum step_result revoke_access_token(struct flow *f)
{
	struct grant *g = grant_of(f);

	return g->won ? STEP_DONE : revoke_access(f, g->revoke->token, g->client_id);
}

static enum step_result revoke_bearer(struct flow *f)
{
	return revoke_access(f, grant_of(f)->revoke->bearer_token, NULL);
}

static enum step_result revoked(struct flow *f)
{
	(void)f;
	return STEP_DONE;
}

/* RFC 7009: the client authenticates (Basic or client_secret) or, when
 * public, names itself. */
static flow_step *const rfc7009_steps[] = {
	revoke_client, grant_client_authenticate, grant_client_proven, revoke_find_refresh,
	revoke_refresh, grant_keys_fresh, revoke_access_token, revoked, NULL,
};

/* docs/tokens.md §"Revocation" (current/revoke): the refresh token of client_id, and the bearer
 * access token, whoever's it is. */
static flow_step *const current_steps[] = {
	current_client, grant_client_proven, revoke_find_refresh, revoke_refresh,
	grant_keys_fresh, revoke_bearer, revoked, NULL,
};

void grants_revoke(struct grant *g, struct server *srv, const struct revoke_request *req,
                   struct completion done)
{
	memset(g, 0, sizeof *g);
	g->srv = srv;
	g->revoke = req;
	g->done = done;
	flow_run(&g->flow, req->current ? current_steps : rfc7009_steps, grant_finish);
}
