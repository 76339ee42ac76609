/*
 * Codes, refresh tokens, revocation and the bearer checks: the front
 * (store_tokens.h). Each operation is the backend's (st->be->tokens:
 * sqlite_tokens.c, pg_tokens.c); the rows' memory is here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_tokens.h"

void store_code_insert(struct store *st, const struct new_code *c, struct completion done)
{
	st->be->tokens->code_insert(st, c, done);
}

void store_code_get(struct store *st, const char *hash, struct store_token_row *out,
                    struct completion done)
{
	st->be->tokens->code_get(st, hash, out, done);
}

void store_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                       struct completion done)
{
	st->be->tokens->refresh_get(st, hash, out, done);
}

void store_code_redeem(struct store *st, const char *hash, const struct new_refresh *next,
                       bool *won, struct completion done)
{
	st->be->tokens->code_redeem(st, hash, next, won, done);
}

void store_refresh_rotate(struct store *st, const char *hash, const struct new_refresh *next,
                          bool *won, struct completion done)
{
	st->be->tokens->refresh_rotate(st, hash, next, won, done);
}

void store_refresh_regrace(struct store *st, const char *hash, int64_t since,
                           const struct new_refresh *next, bool *won, struct completion done)
{
	st->be->tokens->refresh_regrace(st, hash, since, next, won, done);
}

void store_family_revoke(struct store *st, const char *family_id, const struct event *ev,
                         struct completion done)
{
	st->be->tokens->family_revoke(st, family_id, ev, done);
}

void store_access_revoke(struct store *st, const char *jti, long long exp_s,
                         const struct event *ev, struct completion done)
{
	st->be->tokens->access_revoke(st, jti, exp_s, ev, done);
}

/* On PostgreSQL the purge completes at once, with the count of its last
 * run that ended (pg_purge_run). */
int store_purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                        struct api_error *err)
{
	struct sync_result r;
	int deleted = -1;

	st->be->tokens->purge(st, batch, now, grace_ms, &deleted, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : deleted;
}

void store_user_claims(struct store *st, const char *project_id, const char *user_id,
                       struct user_claims *out, struct completion done)
{
	st->be->tokens->user_claims(st, project_id, user_id, out, done);
}

void store_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                            const char *user_id, long long iat_s, bool *ok,
                            struct completion done)
{
	st->be->tokens->holders_ok(st, project_id, client_id, user_id, iat_s, ok, done);
}

void store_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                            struct store_stamp *stamp, struct completion done)
{
	st->be->tokens->is_revoked(st, jti, revoked, stamp, done);
}

void store_token_row_release(struct store_token_row *g)
{
	free(g->family_id);
	free(g->project_id);
	free(g->client_id);
	free(g->user_id);
	free(g->redirect_uri);
	free(g->code_challenge);
	free(g->scope);
	free(g->nonce);
	free(g->session_id);
	free(g->amr);
	memset(g, 0, sizeof *g);
}

void user_claims_release(struct user_claims *u)
{
	free(u->display_name);
	free(u->email);
	free(u->external_user_id);
	free(u->avatar_url);
	free(u->role_code);
	memset(u, 0, sizeof *u);
}
