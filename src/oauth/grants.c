/*
 * The token grants (grants.h; their revocation is grants_revoke.c). Each
 * is a flow of steps over the store, in the order of docs/tokens.md §"Order of checks": the form,
 * the client, client_not_active, project_not_active, then the grant itself.
 * A replayed code or refresh token revokes its whole sign-in before the
 * reuse is answered (RFC 6749 §4.1.2, §10.4). Codes and refresh tokens
 * reach the store only as hashes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "crypto.h"
#include "grants.h"
#include "id_token.h"
#include "keyring.h"
#include "metrics.h"
#include "store_users.h"
#include "throttle.h"
#include "untold.h"
#include "util.h"

struct grant *grant_of(struct flow *f)
{
	return container_of(f, struct grant, flow);
}

/* Starts a store operation that resumes the grant's flow. */
#define WAIT_ON(f) flow_completion(f)

void grant_tokens_release(struct grant_tokens *t)
{
	crypto_free_wiped(t->access_token);
	free(t->scope);
	crypto_free_wiped(t->refresh_token);
	crypto_free_wiped(t->id_token);
	memset(t, 0, sizeof *t);
}

void grant_release(struct grant *g)
{
	store_token_row_release(&g->record);
	device_row_release(&g->device_row);
	user_claims_release(&g->user);
	free(g->permissions);
	free(g->scope);
	access_token_release(&g->access);
	crypto_free_wiped(g->id_token);
	crypto_free_wiped(g->refresh);
	free(g->family_id);
	free(g->access_project);
	keyring_refresh_release(&g->keys);
	memset(g, 0, sizeof *g);
}

void grant_finish(struct flow *f, enum step_result r)
{
	struct grant *g = grant_of(f);

	/* a rotation whose write failed may have committed (a connection lost
	 * after the commit went out): the client's retry must not be reuse */
	if (r != STEP_DONE && g->writing)
		untold_note(g->srv->untold, g->hash, mono_us() / 1000);
	complete(g->done, r == STEP_DONE ? 0 : -1, &f->err);
}

bool grant_missing(const char *v)
{
	return !v || !*v;
}

/* ---- the client ---- */

/* The client's credentials as the request sent them. */
const struct client_credentials *grant_credentials(const struct grant *g)
{
	return g->in ? &g->in->client : &g->revoke->client;
}

/* docs/tokens.md §"Client authentication": a confidential client proves its secret (Basic or
 * client_secret_post) on every grant and revocation; a secret sent by any
 * client was checked by client_authenticate. */
enum step_result grant_client_proven(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (g->client.found && g->client.confidential && !grant_credentials(g)->secret)
		return flow_fail(f, E_INVALID_CLIENT_CREDENTIALS,
		                 "This client must authenticate with its secret.");
	return STEP_NEXT;
}

/* After authentication, the order of docs/tokens.md §"Order of checks": client_not_active, then
 * project_not_active. */
enum step_result grant_client_usable(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (!g->client.is_active)
		return flow_fail(f, E_CLIENT_NOT_ACTIVE, "The client is not active.");
	if (!g->client.project_active)
		return flow_fail(f, E_PROJECT_NOT_ACTIVE, "The project is not active.");
	return STEP_NEXT;
}

/* A client that sends a secret (Basic or client_secret) must send its
 * own; a public client names itself (client_id), and must exist. */
enum step_result grant_client_authenticate(struct flow *f)
{
	struct grant *g = grant_of(f);

	store_client_authenticate(g->srv->store, g->client_id, grant_credentials(g)->secret, &g->client,
	                          WAIT_ON(f));
	return STEP_WAIT;
}

/* ---- client_credentials (RFC 6749 §4.4) ---- */

/* The client authenticates, with Basic (a client_id in the form is then
 * ignored) or with client_id and client_secret in the form. */
static enum step_result cc_form(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct client_credentials *c = &g->in->client;
	struct api_error err;

	if (client_credentials_scheme(c, &err) < 0)
		return flow_error(f, &err);
	if (!c->secret)
		return flow_fail(f, E_INVALID_PARAMS, "client_credentials needs the client's"
		                 " credentials: an Authorization: Basic header, or client_secret.");
	g->client_id = c->basic_client_id ? c->basic_client_id : c->form_client_id;
	return STEP_NEXT;
}

static enum step_result client_scope(struct flow *f)
{
	struct grant *g = grant_of(f);

	store_client_scope(g->srv->store, g->client_id, g->client.stamp, &g->permissions,
	                   WAIT_ON(f));
	return STEP_WAIT;
}

/* The signing keys as the store has them now, before anything is signed or
 * verified: a rotation or retirement by the CLI counts from this request.
 * No statement unless the store changed since the ring's last look. */
enum step_result grant_keys_fresh(struct flow *f)
{
	struct grant *g = grant_of(f);

	keyring_refresh(&g->keys, g->srv->keys, g->srv->store, false, WAIT_ON(f));
	return STEP_WAIT;
}

/* docs/signin.md §"Granted scope": the granted scope is the sign-in's OIDC scopes, in
 * their fixed order, then the holder's named permissions (which, without
 * OIDC scopes, it is: taken over as they are, a grant's hot path). */
static void grant_scope(struct grant *g)
{
	char oidc[ID_TOKEN_SCOPES_MAX];
	const char *perms = g->permissions ? g->permissions : "";

	if (!g->oidc) {
		g->scope = g->permissions ? g->permissions : xstrdup("");
		g->permissions = NULL;
		return;
	}
	id_token_scopes_text(g->oidc, oidc);
	g->scope = xasprintf("%s%s%s", oidc, *perms ? " " : "", perms);
}

/* Signs the access token for the grant's holder: the user of the code or
 * refresh token (with the time of their sign-in), else the client itself. */
static int sign_access(struct grant *g, struct api_error *err)
{
	const struct store_token_row *r = &g->record;
	struct access_claims c;

	grant_scope(g);
	c = (struct access_claims){
		.project_id = r->found ? r->project_id : g->client.project_id,
		.client_id = g->client_id, .user_id = r->found ? r->user_id : NULL,
		.scope = g->scope, .auth_time = r->found ? r->auth_time / 1000 : 0,
	};
	return access_token_issue(g->srv, &c, &g->access, err);
}

void grant_hand_out(struct grant *g)
{
	struct grant_tokens *out = g->out;

	out->access_token = g->access.token;
	g->access.token = NULL;
	out->expires_in = g->srv->cfg->access_ttl_s;
	out->scope = g->scope;
	g->scope = NULL;
	out->refresh_token = g->refresh;
	g->refresh = NULL;
	out->id_token = g->id_token;
	g->id_token = NULL;
	metrics_token_issued(g->in->grant_type);
}

static enum step_result cc_issue(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct api_error err;

	if (sign_access(g, &err) < 0)
		return flow_error(f, &err);
	grant_hand_out(g);
	return STEP_DONE;
}

static flow_step *const client_credentials_steps[] = {
	cc_form, grant_client_authenticate, grant_client_usable, client_scope, grant_keys_fresh,
	cc_issue, NULL,
};

/* ---- what the user grants share ---- */

static enum step_result code_form(struct flow *f)
{
	const struct grant_request *in = grant_of(f)->in;

	if (grant_missing(in->code) || grant_missing(in->redirect_uri) || grant_missing(in->code_verifier))
		return flow_fail(f, E_INVALID_PARAMS,
		                 "authorization_code needs code, redirect_uri and code_verifier.");
	return STEP_NEXT;
}

static enum step_result refresh_form(struct flow *f)
{
	if (grant_missing(grant_of(f)->in->refresh_token))
		return flow_fail(f, E_INVALID_PARAMS, "refresh_token is required.");
	return STEP_NEXT;
}

enum step_result grant_user_client(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct api_error err;

	if (client_credentials_id(&g->in->client, &g->client_id, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

/* The audit trail's event of what g does, by the asking client; its
 * strings must live as long as g. */
const struct event *grant_event(struct grant *g, const char *project_id,
                                       const char *action, const char *target,
                                       const char *outcome)
{
	g->by = (struct event_origin){ g->client_id, g->in ? g->in->address : g->revoke->address };
	g->event = (struct event){ &g->by, project_id, action, target, outcome };
	return &g->event;
}

/* A replay: revoke the whole sign-in, then answer the reuse error. The
 * event names the user whose sign-in it was. */
static enum step_result replay_revoke(struct flow *f)
{
	struct grant *g = grant_of(f);
	bool code = g->reuse_error == E_AUTH_CODE_ALREADY_USED;

	metrics_reuse_detected(g->in->grant_type);
	store_family_revoke(g->srv->store, g->record.family_id,
	                    grant_event(g, g->record.project_id,
	                                code ? EVENT_CODE_REUSE_DETECTED : EVENT_REFRESH_REUSE_DETECTED,
	                                g->record.user_id, api_code_string(g->reuse_error)),
	                    WAIT_ON(f));
	return STEP_WAIT;
}

static enum step_result replay_answer(struct flow *f)
{
	struct grant *g = grant_of(f);

	return flow_fail(f, g->reuse_error, g->reuse_error == E_AUTH_CODE_ALREADY_USED ?
	                 "The authorization code was already used; its tokens are revoked." :
	                 "The refresh token was already used; its sign-in is revoked.");
}

static flow_step *const replay_steps[] = { replay_revoke, replay_answer, NULL };

/* The user as the ID token describes them, and whether they are active:
 * one statement, whether or not the sign-in is an OIDC one. */
enum step_result grant_user_read(struct flow *f)
{
	struct grant *g = grant_of(f);

	store_user_claims(g->srv->store, g->record.project_id, g->record.user_id, &g->user,
	                  WAIT_ON(f));
	return STEP_WAIT;
}

/* A deactivated user's code or refresh token is as good as unknown. */
enum step_result grant_user_active(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (g->user.found && g->user.is_active)
		return STEP_NEXT;
	if (g->device)
		return flow_fail(f, E_INVALID_GRANT, "The user is not active.");
	return flow_fail(f, g->reuse_error == E_AUTH_CODE_ALREADY_USED ?
	                 E_INVALID_AUTHORIZATION_CODE : E_INVALID_REFRESH_TOKEN,
	                 "The user is not active.");
}

enum step_result grant_user_scope(struct flow *f)
{
	struct grant *g = grant_of(f);

	store_user_scope(g->srv->store, g->record.user_id, &g->permissions, WAIT_ON(f));
	return STEP_WAIT;
}

/* The ID token of an OIDC sign-in (docs/signin.md §"ID tokens"), beside the access
 * token just signed. */
static int sign_id(struct grant *g, struct api_error *err)
{
	const struct store_token_row *r = &g->record;
	enum jwt_alg alg = JWT_RS256;   /* OIDC's default */
	struct id_token_request req;

	jwt_alg_parse(g->client.id_token_alg, &alg);   /* ES256 when the client says so */
	req = (struct id_token_request){
		.issuer = g->srv->cfg->issuer, .user_id = r->user_id, .client_id = r->client_id,
		.alg = alg, .ttl_s = g->srv->cfg->id_token_ttl_s, .auth_time = r->auth_time / 1000,
		.nonce = r->nonce, .session_id = r->session_id, .amr = r->amr,
		.access_token = g->access.token,
		.scopes = g->oidc, .user = &g->user, .permissions = g->permissions,
	};

	g->id_token = id_token_issue(g->srv->keys, &req);
	if (!g->id_token)
		return api_fail(err, E_SYSTEM_ERROR, "The ID token could not be signed.");
	return 0;
}

/* Signs the access token (and the ID token of an OIDC sign-in) and makes
 * the successor refresh token of the same sign-in, ready for the
 * single-use write. */
int grant_prepare_tokens(struct grant *g, struct api_error *err)
{
	const struct store_token_row *r = &g->record;

	/* only an OIDC request's scopes count: without openid they are plain words */
	g->oidc = id_token_scopes_parse(r->scope);
	if (!(g->oidc & ID_TOKEN_SCOPE_OPENID))
		g->oidc = 0;
	if (sign_access(g, err) < 0 || (g->oidc && sign_id(g, err) < 0))
		return -1;
	g->refresh = crypto_new_secret();
	crypto_hash_secret(g->refresh, strlen(g->refresh), g->next_hash);
	g->next = (struct new_refresh){
		.hash = g->next_hash, .family_id = r->family_id, .project_id = r->project_id,
		.client_id = r->client_id, .user_id = r->user_id, .access_jti = g->access.jti,
		.access_exp_s = g->access.exp,
		.expires_at = now_ms() + g->srv->cfg->refresh_ttl_s * 1000LL,
		.scope = r->scope, .auth_time = r->auth_time, .session_id = r->session_id,
	};
	return 0;
}

/* The refresh grace (docs/tokens.md "Refresh grace"): how far back a rotation may
 * be for its token to be used once more; 0 when there is none. A rotation
 * this node answered with an error may be repeated for UNTOLD_WINDOW_S. */
static int64_t repeat_window_ms(const struct grant *g)
{
	int64_t ms = g->srv->cfg->refresh_reuse_grace_s * 1000LL;

	/* looked up only for a used token: a rotation's hot path never scans */
	if (g->record.used && ms < UNTOLD_WINDOW_S * 1000LL &&
	    untold_holds(g->srv->untold, g->hash, mono_us() / 1000))
		ms = UNTOLD_WINDOW_S * 1000LL;
	return ms;
}

/* A rotation lost to a simultaneous use: the same tokens, as a repeat. */
static flow_step refresh_write, used_once;
static flow_step *const regrace_steps[] = { refresh_write, used_once, NULL };

/* Losing the race to a simultaneous use is a replay; for a refresh token
 * within the grace, that use may have been the rotation a repeat is
 * allowed after, so the repeat is tried once before that. */
static enum step_result used_once(struct flow *f)
{
	struct grant *g = grant_of(f);

	g->writing = false;
	if (g->won) {
		grant_hand_out(g);
		return STEP_DONE;
	}
	if (!g->grace && g->reuse_error == E_REFRESH_TOKEN_ALREADY_USED && g->repeat_ms > 0) {
		g->grace = true;
		return flow_branch(f, regrace_steps);
	}
	return flow_branch(f, replay_steps);
}

/* ---- authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6) ---- */

static enum step_result code_get(struct flow *f)
{
	struct grant *g = grant_of(f);

	crypto_hash_secret(g->in->code, strlen(g->in->code), g->hash);
	store_code_get(g->srv->store, g->hash, &g->record, WAIT_ON(f));
	return STEP_WAIT;
}

/* docs/tokens.md §"Order of checks": unknown or another client's -> already used -> redirect
 * URI -> expired -> verifier. An unused code whose session ended (or is
 * gone) is as good as unknown: ending a session ends the sign-ins started
 * through it. */
static enum step_result code_check(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct store_token_row *r = &g->record;

	if (!r->found || strcmp(r->client_id, g->client_id) != 0 ||
	    ((r->predates_deactivation || r->revoked) && !r->used))
		return flow_fail(f, E_INVALID_AUTHORIZATION_CODE, "The authorization code is invalid.");
	if (r->used)
		return flow_branch(f, replay_steps);
	if (strcmp(r->redirect_uri, g->in->redirect_uri) != 0)
		return flow_fail(f, E_DIFFERENT_AUTHORIZE_REDIRECT_URI,
		                 "redirect_uri differs from the authorization request.");
	if (now_ms() >= r->expires_at)
		return flow_fail(f, E_AUTH_CODE_EXPIRED, "The authorization code has expired.");
	if (!crypto_pkce_s256_verify(g->in->code_verifier, r->code_challenge))
		return flow_fail(f, E_INVALID_CODE_VERIFIER, "code_verifier does not match the challenge.");
	return STEP_NEXT;
}

enum step_result grant_code_redeem(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct api_error err;

	if (grant_prepare_tokens(g, &err) < 0)
		return flow_error(f, &err);
	store_code_redeem(g->srv->store, g->hash, &g->next, &g->won, WAIT_ON(f));
	return STEP_WAIT;
}

static flow_step *const authorization_code_steps[] = {
	code_form, grant_user_client, grant_client_authenticate, grant_client_proven,
	grant_client_usable, code_get, code_check, grant_user_read, grant_user_active,
	grant_user_scope, grant_keys_fresh, grant_code_redeem, used_once, NULL,
};

/* ---- refresh_token (RFC 6749 §6): single use, rotated on every use ---- */

static enum step_result refresh_get(struct flow *f)
{
	struct grant *g = grant_of(f);

	crypto_hash_secret(g->in->refresh_token, strlen(g->in->refresh_token), g->hash);
	store_refresh_get(g->srv->store, g->hash, &g->record, WAIT_ON(f));
	return STEP_WAIT;
}

/* A used token that may be used once more: rotated within the grace, and
 * neither revoked nor dead by a deactivation. Whether its successor is
 * still unused, and whether this is the only repeat, the single-use write
 * decides (store_refresh_regrace). */
static bool may_repeat(const struct grant *g)
{
	const struct store_token_row *r = &g->record;

	return g->repeat_ms > 0 && !r->revoked && !r->predates_deactivation &&
	       now_ms() - r->used_at <= g->repeat_ms;
}

/* docs/tokens.md "Limits": a sign-in that was refreshed [tokens]
 * max_rotations_per_minute times in its window is refused for now, its
 * token left unused (a rotation writes a row that is kept until the token
 * expires: this bounds how fast one sign-in grows the store). */
static enum step_result rotations_bound(struct flow *f)
{
	struct grant *g = grant_of(f);
	int wait = throttle_take(g->srv->family_rotations, g->record.family_id, now_ms());
	enum step_result r;

	if (wait == 0)
		return STEP_NEXT;
	r = flow_fail(f, E_THROTTLED, "This sign-in was refreshed too often in the last minute.");
	f->err.retry_after_s = wait;
	return r;
}

/* docs/tokens.md §"Order of checks": unknown, revoked or another client's -> already used ->
 * expired. A used token answers already used every time, and revokes,
 * but for a repeat within the grace. */
static enum step_result refresh_check(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct store_token_row *r = &g->record;

	if (!r->found || strcmp(r->client_id, g->client_id) != 0 ||
	    ((r->revoked || r->predates_deactivation) && !r->used))
		return flow_fail(f, E_INVALID_REFRESH_TOKEN, "The refresh token is invalid.");
	g->repeat_ms = repeat_window_ms(g);
	if (r->used && !may_repeat(g))
		return flow_branch(f, replay_steps);
	g->grace = r->used;
	if (!r->used && now_ms() >= r->expires_at)
		return flow_fail(f, E_REFRESH_TOKEN_EXPIRED, "The refresh token has expired.");
	return rotations_bound(f);
}

/* The single use: a rotation, or a repeat within the grace. */
static enum step_result refresh_write(struct flow *f)
{
	struct grant *g = grant_of(f);

	g->writing = true;
	if (g->grace)
		store_refresh_regrace(g->srv->store, g->hash, now_ms() - g->repeat_ms, &g->next,
		                      &g->won, WAIT_ON(f));
	else
		store_refresh_rotate(g->srv->store, g->hash, &g->next, &g->won, WAIT_ON(f));
	return STEP_WAIT;
}

static enum step_result refresh_rotate(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct api_error err;

	if (grant_prepare_tokens(g, &err) < 0)
		return flow_error(f, &err);
	return refresh_write(f);
}

static flow_step *const refresh_token_steps[] = {
	refresh_form, grant_user_client, grant_client_authenticate, grant_client_proven,
	grant_client_usable, refresh_get, refresh_check, grant_user_read, grant_user_active,
	grant_user_scope, grant_keys_fresh, refresh_rotate, used_once, NULL,
};


/* ---- the exchange ---- */

static enum step_result choose_grant(struct flow *f)
{
	struct grant *g = grant_of(f);
	const char *type = g->in->grant_type;

	if (grant_missing(type))
		return flow_fail(f, E_INVALID_PARAMS, "grant_type is required.");
	if (!strcmp(type, "client_credentials"))
		return flow_branch(f, client_credentials_steps);
	if (!strcmp(type, "authorization_code")) {
		g->reuse_error = E_AUTH_CODE_ALREADY_USED;
		return flow_branch(f, authorization_code_steps);
	}
	if (!strcmp(type, "refresh_token")) {
		g->reuse_error = E_REFRESH_TOKEN_ALREADY_USED;
		return flow_branch(f, refresh_token_steps);
	}
	if (!strcmp(type, GRANT_TYPE_DEVICE_CODE)) {
		g->device = true;
		return flow_branch(f, device_code_steps);
	}
	return flow_fail(f, E_INVALID_PARAMS, "grant_type must be authorization_code,"
	                 " refresh_token, client_credentials or " GRANT_TYPE_DEVICE_CODE ".");
}

void grants_exchange(struct grant *g, struct server *srv, const struct grant_request *in,
                     struct grant_tokens *out, struct completion done)
{
	static flow_step *const steps[] = { choose_grant, NULL };

	memset(g, 0, sizeof *g);
	g->srv = srv;
	g->in = in;
	g->out = out;
	g->done = done;
	flow_run(&g->flow, steps, grant_finish);
}
