/*
 * GET and POST /api/v1/userinfo (OpenID Connect Core §5.3, docs/signin.md §"UserInfo"):
 * the claims of a user's OpenID Connect sign-in. The router has checked the
 * bearer token (RFC 6750, access tokens only); here it must be a user's
 * whose scope has openid (else 403 insufficient_scope). The user is read
 * once, and the claims are the ID token's, from the same builder.
 */
#include <stdlib.h>

#include "api_userinfo.h"
#include "id_token.h"
#include "request.h"
#include "store_tokens.h"
#include "store_users.h"

struct userinfo {
	unsigned scopes;          /* the token's OIDC scopes */
	struct user_claims user;
	char *permissions;        /* the user's named permissions, for roles */
};

static void userinfo_release(void *p)
{
	struct userinfo *u = p;

	user_claims_release(&u->user);
	free(u->permissions);
}

/* A client_credentials token, or a user's without openid, is valid but
 * not for this (RFC 6750 §3.1: insufficient_scope). */
static enum step_result userinfo_user(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct principal *p = &ctx->principal;
	struct userinfo *u = request_state(ctx, sizeof *u, userinfo_release);

	u->scopes = id_token_scopes_parse(p->scope);
	if (!p->user_id || !(u->scopes & ID_TOKEN_SCOPE_OPENID))
		return flow_fail(f, E_INSUFFICIENT_PERMISSION,
		                 "UserInfo needs a user's token whose scope has openid.");
	store_user_claims(ctx->http.srv->store, p->project_id, p->user_id, &u->user, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result userinfo_permissions(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct userinfo *u = ctx->state;

	if (!(u->scopes & ID_TOKEN_SCOPE_ROLES))
		return STEP_NEXT;
	store_user_scope(ctx->http.srv->store, ctx->principal.user_id, &u->permissions,
	                 flow_completion(f));
	return STEP_WAIT;
}

/* sub and the claims of the token's scopes, as the user is now. The bearer
 * check found the user active in this request's read of the store. */
static enum step_result userinfo_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct userinfo *u = ctx->state;
	struct jbody_writer w;
	size_t len;
	char *claims;

	if (!u->user.found) {
		flow_fail(f, E_INVALID_AUTHORIZATION_TOKEN, "The access token is invalid or expired.");
		f->err.token_was_sent = 1;
		return STEP_FAIL;
	}
	jbody_writer_init(&w, 512);
	jbody_writer_text(&w, "sub", ctx->principal.user_id);
	id_token_user_claims(&w, &u->user, u->scopes, u->permissions);
	claims = jbody_writer_finish(&w, &len);   /* never refused: jbody_writer_text escapes */
	http_reply_raw(ctx, 200, "application/json", claims, len);
	free(claims);
	return STEP_DONE;
}

flow_step *const userinfo_steps[] = {
	userinfo_user, userinfo_permissions, userinfo_answer, NULL,
};
