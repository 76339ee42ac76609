/*
 * The revocation list and the bearer checks on PostgreSQL (pg_tokens.h).
 * Times compared across nodes are the database's (edgeauth_now_ms):
 * revocation entries and tokens_valid_after are written with it, and the
 * purge reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_tokens.h"
#include "store_pg.h"
#include "util.h"

/* Whether the code or refresh token row t predates the last deactivation
 * of its user, client or project (schema/postgres/006): such a grant stays
 * dead after a reactivation. A NULL tokens_valid_after compares as NULL,
 * which is not true. */
#define PREDATES_DEACTIVATION(t) \
	" EXISTS (SELECT 1 FROM users u, clients c, projects p WHERE u.id = " t ".user_id" \
	" AND c.id = " t ".client_id AND p.id = " t ".project_id" \
	" AND (" t ".created_at <= u.tokens_valid_after OR " t ".created_at <= c.tokens_valid_after" \
	" OR " t ".created_at <= p.tokens_valid_after))"

enum {
	PT_CODE_GET,
	PT_REFRESH_GET,
	PT_FAMILY_REVOKE,
	PT_ACCESS_REVOKE,
	PT_PURGE,
	PT_HOLDERS,
	PT_REVOKED,
	PT__COUNT
};

static const struct pg_statement statements[PT__COUNT] = {
	/* the sixteen columns of struct store_token_row, as store_tokens.c reads them */
	[PT_CODE_GET] = { "tokens_code_get",
		"SELECT family_id, project_id, client_id, user_id, redirect_uri, code_challenge,"
		" expires_at, used_at IS NOT NULL, false," PREDATES_DEACTIVATION("t") ","
		" scope, nonce, auth_time, session_id, created_at, used_at FROM auth_codes t"
		" WHERE hash = $1", 1, false },
	[PT_REFRESH_GET] = { "tokens_refresh_get",
		"SELECT family_id, project_id, client_id, user_id, NULL, NULL, expires_at,"
		" used_at IS NOT NULL, revoked_at IS NOT NULL," PREDATES_DEACTIVATION("t") ","
		" scope, NULL, auth_time, session_id, created_at, used_at FROM refresh_tokens t"
		" WHERE hash = $1", 1, false },
	/* every refresh token of the sign-in, and the access tokens issued with them */
	[PT_FAMILY_REVOKE] = { "tokens_family_revoke",
		"WITH a AS (INSERT INTO revoked_tokens (jti, expires_at)"
		" SELECT access_jti, access_exp FROM refresh_tokens WHERE family_id = $1"
		" ON CONFLICT DO NOTHING)"
		" UPDATE refresh_tokens SET revoked_at = edgeauth_now_ms()"
		" WHERE family_id = $1 AND revoked_at IS NULL", 1, true },
	[PT_ACCESS_REVOKE] = { "tokens_access_revoke",
		"INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
		2, true },
	/* up to $2 of each: codes and refresh tokens $1 ms after their expiry,
	 * revocation entries of expired access tokens (no grace: an expired
	 * token needs none) */
	[PT_PURGE] = { "tokens_purge",
		"WITH c AS (DELETE FROM auth_codes WHERE hash IN (SELECT hash FROM auth_codes"
		" WHERE expires_at < edgeauth_now_ms() - $1::bigint LIMIT $2) RETURNING 1),"
		" r AS (DELETE FROM refresh_tokens WHERE hash IN (SELECT hash FROM refresh_tokens"
		" WHERE expires_at < edgeauth_now_ms() - $1::bigint LIMIT $2) RETURNING 1),"
		" v AS (DELETE FROM revoked_tokens WHERE jti IN (SELECT jti FROM revoked_tokens"
		" WHERE expires_at < edgeauth_now_ms() / 1000 LIMIT $2) RETURNING 1)"
		" SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM r) + (SELECT count(*) FROM v)",
		2, false },
	/* store_token_holders_ok: iat is in seconds, and a token of the
	 * deactivation's own second is taken as issued before it */
	[PT_HOLDERS] = { "tokens_holders",
		"SELECT 1 FROM clients c JOIN projects p ON p.id = c.project_id"
		" WHERE c.id = $1 AND c.project_id = $2 AND c.is_active AND p.is_active"
		" AND (c.tokens_valid_after IS NULL OR $4::bigint > c.tokens_valid_after / 1000)"
		" AND (p.tokens_valid_after IS NULL OR $4::bigint > p.tokens_valid_after / 1000)"
		" AND ($3::ctext IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.id = $3::ctext"
		" AND u.project_id = $2 AND u.is_active"
		" AND (u.tokens_valid_after IS NULL OR $4::bigint > u.tokens_valid_after / 1000)))",
		4, false },
	[PT_REVOKED] = { "tokens_revoked", "SELECT 1 FROM revoked_tokens WHERE jti = $1", 1, false },
};

const struct pg_statement_set pg_tokens_statements = { statements, PT__COUNT };

static char *dup_text(const PGresult *res, int c)
{
	const char *v = pg_text(res, 0, c);

	return v ? xstrdup(v) : NULL;
}

/* The row, if any, into the struct store_token_row out. */
static int grant_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_token_row *g = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	g->found = true;
	g->family_id = dup_text(res, 0);
	g->project_id = dup_text(res, 1);
	g->client_id = dup_text(res, 2);
	g->user_id = dup_text(res, 3);
	g->redirect_uri = dup_text(res, 4);
	g->code_challenge = dup_text(res, 5);
	g->expires_at = pg_int(res, 0, 6);
	g->used = pg_bool(res, 0, 7);
	g->revoked = pg_bool(res, 0, 8);
	g->predates_deactivation = pg_bool(res, 0, 9);
	g->scope = dup_text(res, 10);
	g->nonce = dup_text(res, 11);
	g->auth_time = pg_int(res, 0, 12);
	g->session_id = dup_text(res, 13);
	g->created_at = pg_int(res, 0, 14);
	g->used_at = pg_int(res, 0, 15);
	return 0;
}

void pg_code_get(struct store *st, const char *hash, struct store_token_row *out,
                 struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PT_CODE_GET], (const char *const[]){ hash }, grant_read, out, NULL,
	       done);
}

void pg_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                    struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PT_REFRESH_GET], (const char *const[]){ hash }, grant_read, out,
	       NULL, done);
}

/* A write whose result is only whether it happened. */
void pg_family_revoke(struct store *st, const char *family_id, struct completion done)
{
	pg_run(st, &statements[PT_FAMILY_REVOKE], (const char *const[]){ family_id }, pg_map_none,
	       NULL, NULL, done);
}

void pg_access_revoke(struct store *st, const char *jti, long long exp_s,
                      struct completion done)
{
	char exp[24];

	pg_run(st, &statements[PT_ACCESS_REVOKE], (const char *const[]){ jti,
	       pg_int_param(exp_s, exp) }, pg_map_none, NULL, NULL, done);
}

/* The purge runs on the loop, so it cannot wait for its count: it is
 * logged when it fails, and the next tick comes at the usual interval. */
int pg_purge_expired(struct store *st, int batch, int64_t grace_ms, struct api_error *err)
{
	char grace[24], n[24];

	(void)err;
	pg_run(st, &statements[PT_PURGE], (const char *const[]){ pg_int_param(grace_ms, grace),
	       pg_int_param(batch, n) }, pg_map_none, NULL, NULL, pg_logged("purge of expired tokens"));
	return 0;
}

void pg_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                         const char *user_id, long long iat_s, bool *ok,
                         struct completion done)
{
	char iat[24];

	*ok = false;
	pg_run(st, &statements[PT_HOLDERS], (const char *const[]){ client_id, project_id, user_id,
	       pg_int_param(iat_s, iat) }, pg_map_exists, ok, NULL, done);
}

void pg_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                         struct store_stamp *stamp, struct completion done)
{
	*revoked = false;
	*stamp = store_stamp(st);   /* before the read: a change after it moves the stamp */
	pg_run(st, &statements[PT_REVOKED], (const char *const[]){ jti }, pg_map_exists, revoked,
	       NULL, done);
}
