/*
 * Codes, refresh tokens, revocation and the bearer checks on PostgreSQL
 * (store_tokens_ops). A use (redeem, rotate, repeat) is one call of a function of
 * schema/postgres/017_signin.sql whose UPDATE ... WHERE used_at IS NULL
 * decides who wins, across nodes too. Times compared across nodes are the
 * database's (edgeauth_now_ms): uses, revocations and tokens_valid_after
 * are written with it, and the purge and the refresh grace read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_tokens.h"
#include "store_users.h"
#include "store_pg.h"
#include "util.h"

/* Whether the code or refresh token row t was created in or before the
 * second of the last deactivation of its user, client or project
 * (schema/postgres/006): such a grant stays dead after a reactivation.
 * Whole seconds, as an access token's iat is compared (PT_HOLDERS), so
 * that every kind issued in a deactivation's own second is refused alike.
 * A NULL tokens_valid_after compares as NULL, which is not true. */
#define PREDATES_DEACTIVATION(t) \
	" EXISTS (SELECT 1 FROM users u, clients c, projects p WHERE u.id = " t ".user_id" \
	" AND c.id = " t ".client_id AND p.id = " t ".project_id" \
	" AND (" t ".created_at / 1000 <= u.tokens_valid_after / 1000" \
	" OR " t ".created_at / 1000 <= c.tokens_valid_after / 1000" \
	" OR " t ".created_at / 1000 <= p.tokens_valid_after / 1000))"

/* Whether the code row t was made in a session that has ended or is gone:
 * its sign-in ended with the session. This check, not a deletion, is what
 * keeps such a code from redeeming (schema/postgres/025). */
#define SESSION_GONE(t) \
	" (" t ".session_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions s" \
	" WHERE s.id = " t ".session_id AND s.ended_at IS NULL))"

enum {
	PT_CODE_INSERT,
	PT_CODE_GET,
	PT_CODE_REDEEM,
	PT_REFRESH_ROTATE,
	PT_REFRESH_REGRACE,
	PT_USER_CLAIMS,
	PT_REFRESH_GET,
	PT_FAMILY_REVOKE,
	PT_ACCESS_REVOKE,
	PT_PURGE,
	PT_HOLDERS,
	PT_REVOKED,
	PT__COUNT
};

static const struct pg_statement statements[PT__COUNT] = {
	[PT_CODE_INSERT] = { "tokens_code_insert", "SELECT * FROM edgeauth_code_insert($1, $2, $3,"
		" $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)", 13, true },
	/* the uses: $1 the code or token used (for a repeat, $2 the grace in
	 * ms), then the eleven fields of the successor (refresh_params) */
	[PT_CODE_REDEEM] = { "tokens_code_redeem", "SELECT edgeauth_use_once(false, $1, $2, $3,"
		" $4, $5, $6, $7, $8, $9, $10, $11, $12)", 12, true },
	[PT_REFRESH_ROTATE] = { "tokens_refresh_rotate", "SELECT edgeauth_use_once(true, $1, $2,"
		" $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)", 12, true },
	[PT_REFRESH_REGRACE] = { "tokens_refresh_regrace", "SELECT edgeauth_refresh_regrace($1,"
		" $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)", 13, true },
	[PT_USER_CLAIMS] = { "tokens_user_claims",
		"SELECT u.is_active, u.display_name, u.email, u.email_verified, u.external_user_id,"
		" u.avatar_url, u.updated_at, r.code FROM users u LEFT JOIN roles r ON r.id = u.role_id"
		" WHERE u.id = $1 AND u.project_id = $2", 2, false },
	/* the seventeen columns of struct store_token_row, as sqlite_tokens.c reads them */
	[PT_CODE_GET] = { "tokens_code_get",
		"SELECT family_id, project_id, client_id, user_id, redirect_uri, code_challenge,"
		" expires_at, used_at IS NOT NULL," SESSION_GONE("t") "," PREDATES_DEACTIVATION("t") ","
		" scope, nonce, auth_time, session_id, created_at, used_at,"
		" (SELECT amr FROM sessions s WHERE s.id = t.session_id) FROM auth_codes t"
		" WHERE hash = $1", 1, false },
	[PT_REFRESH_GET] = { "tokens_refresh_get",
		"SELECT family_id, project_id, client_id, user_id, NULL, NULL, expires_at,"
		" used_at IS NOT NULL, revoked_at IS NOT NULL," PREDATES_DEACTIVATION("t") ","
		" scope, NULL, auth_time, session_id, created_at, used_at,"
		" (SELECT amr FROM sessions s WHERE s.id = t.session_id) FROM refresh_tokens t"
		" WHERE hash = $1", 1, false },
	/* every refresh token of the sign-in, and the access tokens issued with
	 * them; both record their event */
	[PT_FAMILY_REVOKE] = { "tokens_family_revoke",
		"SELECT edgeauth_family_revoke($1, $2) AS event", 2, true },
	[PT_ACCESS_REVOKE] = { "tokens_access_revoke",
		"SELECT edgeauth_access_revoke($1, $2, $3) AS event", 3, true },
	/* up to $2 of each: codes and refresh tokens $1 ms after their expiry
	 * by the database's clock; revocation entries $1 ms after their access
	 * token's expiry, and device authorizations $1 ms after theirs, by the
	 * node's purge clock $3 (the clock exp was set by,
	 * store_purge_expired) */
	[PT_PURGE] = { "tokens_purge",
		"WITH c AS (DELETE FROM auth_codes WHERE hash IN (SELECT hash FROM auth_codes"
		" WHERE expires_at < edgeauth_now_ms() - $1::bigint LIMIT $2) RETURNING 1),"
		" r AS (DELETE FROM refresh_tokens WHERE hash IN (SELECT hash FROM refresh_tokens"
		" WHERE expires_at < edgeauth_now_ms() - $1::bigint LIMIT $2) RETURNING 1),"
		" v AS (DELETE FROM revoked_tokens WHERE jti IN (SELECT jti FROM revoked_tokens"
		" WHERE expires_at < ($3::bigint - $1::bigint) / 1000 LIMIT $2) RETURNING 1),"
		" d AS (DELETE FROM device_authorizations WHERE device_hash IN (SELECT device_hash"
		" FROM device_authorizations WHERE expires_at < $3::bigint - $1::bigint LIMIT $2)"
		" RETURNING 1)"
		" SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM r) + (SELECT count(*) FROM v)"
		" + (SELECT count(*) FROM d)",
		3, false },
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

/* The row, if any, into the struct store_token_row out. */
static int grant_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_token_row *g = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	g->found = true;
	g->family_id = pg_text_dup(res, 0, 0);
	g->project_id = pg_text_dup(res, 0, 1);
	g->client_id = pg_text_dup(res, 0, 2);
	g->user_id = pg_text_dup(res, 0, 3);
	g->redirect_uri = pg_text_dup(res, 0, 4);
	g->code_challenge = pg_text_dup(res, 0, 5);
	g->expires_at = pg_int(res, 0, 6);
	g->used = pg_bool(res, 0, 7);
	g->revoked = pg_bool(res, 0, 8);
	g->predates_deactivation = pg_bool(res, 0, 9);
	g->scope = pg_text_dup(res, 0, 10);
	g->nonce = pg_text_dup(res, 0, 11);
	g->auth_time = pg_int(res, 0, 12);
	g->session_id = pg_text_dup(res, 0, 13);
	g->created_at = pg_int(res, 0, 14);
	g->used_at = pg_int(res, 0, 15);
	g->amr = pg_text_dup(res, 0, 16);
	return 0;
}

static void pg_code_get(struct store *st, const char *hash, struct store_token_row *out,
                        struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PT_CODE_GET], (const char *const[]){ hash }, grant_read, out, NULL,
	       done);
}

static void pg_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                           struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PT_REFRESH_GET], (const char *const[]){ hash }, grant_read, out,
	       NULL, done);
}

/* ---- the writes ---- */

/* A code's refusals: no escalation, or user_not_found for a user deleted
 * meanwhile (or its client or project). */
static const struct pg_outcomes *code_outcomes(void)
{
	static struct pg_outcomes o;

	o.missing = store_user_missing;
	return &o;
}

static void pg_code_insert(struct store *st, const struct new_code *c, struct completion done)
{
	char exp[24], auth[24];

	pg_run(st, &statements[PT_CODE_INSERT], (const char *const[]){ c->hash, c->family_id,
	       c->project_id, c->client_id, c->user_id, c->redirect_uri, c->code_challenge,
	       pg_int_param(c->expires_at, exp), c->scope, c->nonce, pg_int_param(c->auth_time, auth),
	       c->session_id, c->grant_scope }, pg_map_outcome, NULL, code_outcomes(), done);
}

/* The numbers of a struct new_refresh, as parameters. */
struct refresh_numbers {
	char access_exp[24], expires_at[24], auth_time[24];
};

/* Fills p[0..11) with the fields of r, in the order of the functions' parameters. */
static void refresh_params(const struct new_refresh *r, struct refresh_numbers *n,
                           const char *p[11])
{
	const char *v[11] = { r->hash, r->family_id, r->project_id, r->client_id, r->user_id,
	                      r->access_jti, pg_int_param(r->access_exp_s, n->access_exp),
	                      pg_int_param(r->expires_at, n->expires_at), r->scope,
	                      pg_int_param(r->auth_time, n->auth_time), r->session_id };

	memcpy(p, v, sizeof v);
}

/* A use: s with first (and second, when not NULL) before the successor's
 * parameters; *won from its boolean answer. */
static void use_once(struct store *st, const struct pg_statement *s, const char *first,
                     const char *second, const struct new_refresh *next, bool *won,
                     struct completion done)
{
	struct refresh_numbers n;
	const char *p[13] = { first };
	size_t at = 1;

	if (second)
		p[at++] = second;
	refresh_params(next, &n, p + at);
	*won = false;
	pg_run(st, s, p, pg_map_bool, won, NULL, done);
}

static void pg_code_redeem(struct store *st, const char *hash, const struct new_refresh *next,
                           bool *won, struct completion done)
{
	use_once(st, &statements[PT_CODE_REDEEM], hash, NULL, next, won, done);
}

static void pg_refresh_rotate(struct store *st, const char *hash, const struct new_refresh *next,
                              bool *won, struct completion done)
{
	use_once(st, &statements[PT_REFRESH_ROTATE], hash, NULL, next, won, done);
}

/* since is the node's now less the grace, taken just before: the window is
 * measured again on the database's clock, which wrote used_at. */
static void pg_refresh_regrace(struct store *st, const char *hash, int64_t since,
                               const struct new_refresh *next, bool *won, struct completion done)
{
	char grace[24];

	use_once(st, &statements[PT_REFRESH_REGRACE], hash, pg_int_param(now_ms() - since, grace),
	         next, won, done);
}

static void pg_family_revoke(struct store *st, const char *family_id, const struct event *ev,
                             struct completion done)
{
	char *e = pg_event_json(ev);

	pg_run(st, &statements[PT_FAMILY_REVOKE], (const char *const[]){ family_id, e },
	       pg_map_none, NULL, NULL, done);
	free(e);
}

static void pg_access_revoke(struct store *st, const char *jti, long long exp_s,
                             const struct event *ev, struct completion done)
{
	char exp[24], *e = pg_event_json(ev);

	pg_run(st, &statements[PT_ACCESS_REVOKE], (const char *const[]){ jti,
	       pg_int_param(exp_s, exp), e }, pg_map_none, NULL, NULL, done);
	free(e);
}

/* The purge runs on the loop, so it cannot wait for its count: *deleted
 * is the count of the last run that ended (pg_purge_run); a failure is
 * logged. */
static void pg_purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                             int *deleted, struct completion done)
{
	char grace[24], n[24], at[24];

	*deleted = pg_purge_run(st, STORE_PURGE_TOKENS, "purge of expired tokens",
	                        &statements[PT_PURGE], (const char *const[]){
	                        pg_int_param(grace_ms, grace), pg_int_param(batch, n),
	                        pg_int_param(now, at) });
	complete(done, 0, NULL);
}

/* ---- what token issue reads of a user ---- */

static int claims_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct user_claims *u = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	u->found = true;
	u->is_active = pg_bool(res, 0, 0);
	u->display_name = pg_text_dup(res, 0, 1);
	u->email = pg_text_dup(res, 0, 2);
	u->email_verified = pg_bool(res, 0, 3);
	u->external_user_id = pg_text_dup(res, 0, 4);
	u->avatar_url = pg_text_dup(res, 0, 5);
	u->updated_at = pg_int(res, 0, 6);
	u->role_code = pg_text_dup(res, 0, 7);
	return 0;
}

static void pg_user_claims(struct store *st, const char *project_id, const char *user_id,
                           struct user_claims *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PT_USER_CLAIMS], (const char *const[]){ user_id, project_id },
	       claims_read, out, NULL, done);
}

/* ---- what a bearer check reads ---- */

static void pg_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                                const char *user_id, long long iat_s, bool *ok,
                                struct completion done)
{
	char iat[24];

	*ok = false;
	pg_run(st, &statements[PT_HOLDERS], (const char *const[]){ client_id, project_id, user_id,
	       pg_int_param(iat_s, iat) }, pg_map_exists, ok, NULL, done);
}

static void pg_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                                struct store_stamp *stamp, struct completion done)
{
	*revoked = false;
	*stamp = store_stamp(st);   /* before the read: a change after it moves the stamp */
	pg_run(st, &statements[PT_REVOKED], (const char *const[]){ jti }, pg_map_exists, revoked,
	       NULL, done);
}

const struct store_tokens_ops pg_tokens_ops = {
	.code_insert = pg_code_insert,
	.code_get = pg_code_get,
	.code_redeem = pg_code_redeem,
	.refresh_get = pg_refresh_get,
	.refresh_rotate = pg_refresh_rotate,
	.refresh_regrace = pg_refresh_regrace,
	.family_revoke = pg_family_revoke,
	.access_revoke = pg_access_revoke,
	.purge = pg_purge_expired,
	.user_claims = pg_user_claims,
	.holders_ok = pg_token_holders_ok,
	.is_revoked = pg_token_is_revoked,
};
