/* Codes, refresh tokens, revocation, and what token issue reads of a
 * user, on SQLite (store_tokens_ops). Single use is an UPDATE ... WHERE
 * used_at IS NULL whose change count says who won, so of two uses exactly
 * one succeeds even across processes; the refresh grace takes back a
 * successor the same way. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sqlite_backend.h"
#include "sqlite_grants.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_tokens.h"
#include "util.h"

/* Whether the code or refresh token row t was created in or before the
 * second of the last deactivation of its user, client or project
 * (schema/006): such a grant stays dead after a reactivation. Whole
 * seconds, as an access token's iat is compared (T_HOLDERS), so that every
 * kind issued in a deactivation's own second is refused alike (docs/decisions.md
 * "Reactivation revives nothing"). A NULL tokens_valid_after
 * compares as NULL, which EXISTS reads as false. */
#define SQL_PREDATES_DEACTIVATION(t) \
	" EXISTS (SELECT 1 FROM users u, clients c, projects p WHERE u.id = " t ".user_id" \
	" AND c.id = " t ".client_id AND p.id = " t ".project_id" \
	" AND (" t ".created_at / 1000 <= u.tokens_valid_after / 1000" \
	" OR " t ".created_at / 1000 <= c.tokens_valid_after / 1000" \
	" OR " t ".created_at / 1000 <= p.tokens_valid_after / 1000))"

/* Whether the code row t was made in a session that has ended or is gone:
 * its sign-in ended with the session. This check, not a deletion, is what
 * keeps such a code from redeeming (schema/017). */
#define SQL_SESSION_GONE(t) \
	" (" t ".session_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions s" \
	" WHERE s.id = " t ".session_id AND s.ended_at IS NULL))"

enum {
	T_CODE_INSERT,
	T_CODE_GET,
	T_CODE_USE,
	T_REFRESH_INSERT,
	T_REFRESH_GET,
	T_REFRESH_USE,
	T_REGRACE_SUCCESSOR,
	T_REGRACE_ACCESS,
	T_FAMILY_REVOKE_ACCESS,
	T_FAMILY_REVOKE_REFRESH,
	T_ACCESS_REVOKE,
	T_PURGE_CODES,
	T_PURGE_REFRESH,
	T_PURGE_REVOKED,
	T_PURGE_DEVICE,
	T_REVOKED,
	T_HOLDERS,
	T_USER_CLAIMS,
	T__COUNT
};

static const char *const sql[T__COUNT] = {
	[T_CODE_INSERT] =
		"INSERT INTO auth_codes (hash, family_id, project_id, client_id, user_id,"
		" redirect_uri, code_challenge, created_at, expires_at, scope, nonce, auth_time,"
		" session_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[T_CODE_GET] =
		"SELECT family_id, project_id, client_id, user_id, redirect_uri, code_challenge,"
		" expires_at, used_at IS NOT NULL," SQL_SESSION_GONE("t") ","
		SQL_PREDATES_DEACTIVATION("t") ","
		" scope, nonce, auth_time, session_id, created_at, used_at,"
		" (SELECT amr FROM sessions s WHERE s.id = t.session_id)"
		" FROM auth_codes t WHERE hash = ?1",
	[T_CODE_USE] =
		"UPDATE auth_codes SET used_at = ?2 WHERE hash = ?1 AND used_at IS NULL",
	[T_REFRESH_INSERT] =
		"INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id,"
		" access_jti, access_exp, created_at, expires_at, scope, auth_time, session_id)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[T_REFRESH_GET] =
		"SELECT family_id, project_id, client_id, user_id, NULL, NULL, expires_at,"
		" used_at IS NOT NULL, revoked_at IS NOT NULL," SQL_PREDATES_DEACTIVATION("t") ","
		" scope, NULL, auth_time, session_id, created_at, used_at,"
		" (SELECT amr FROM sessions s WHERE s.id = t.session_id)"
		" FROM refresh_tokens t WHERE hash = ?1",
	[T_REFRESH_USE] =
		"UPDATE refresh_tokens SET used_at = ?2, successor_hash = ?3 WHERE hash = ?1"
		" AND used_at IS NULL AND revoked_at IS NULL",
	/* The refresh grace's single use, on the successor's row: ?1 the
	 * repeated token, ?2 now, ?3 the window's start. */
	[T_REGRACE_SUCCESSOR] =
		"UPDATE refresh_tokens SET revoked_at = ?2 WHERE hash = (SELECT successor_hash"
		" FROM refresh_tokens WHERE hash = ?1 AND used_at >= ?3 AND revoked_at IS NULL)"
		" AND used_at IS NULL AND revoked_at IS NULL",
	[T_REGRACE_ACCESS] =
		"INSERT OR IGNORE INTO revoked_tokens (jti, expires_at)"
		" SELECT s.access_jti, s.access_exp FROM refresh_tokens t"
		" JOIN refresh_tokens s ON s.hash = t.successor_hash WHERE t.hash = ?1",
	[T_FAMILY_REVOKE_ACCESS] =
		"INSERT OR IGNORE INTO revoked_tokens (jti, expires_at)"
		" SELECT access_jti, access_exp FROM refresh_tokens WHERE family_id = ?1",
	[T_FAMILY_REVOKE_REFRESH] =
		"UPDATE refresh_tokens SET revoked_at = ?2 WHERE family_id = ?1 AND revoked_at IS NULL",
	[T_ACCESS_REVOKE] =
		"INSERT OR IGNORE INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2)",
	[T_PURGE_CODES] =
		"DELETE FROM auth_codes WHERE hash IN (SELECT hash FROM auth_codes"
		" WHERE expires_at < ?1 LIMIT ?2)",
	[T_PURGE_REFRESH] =
		"DELETE FROM refresh_tokens WHERE hash IN (SELECT hash FROM refresh_tokens"
		" WHERE expires_at < ?1 LIMIT ?2)",
	[T_REVOKED] = "SELECT 1 FROM revoked_tokens WHERE jti = ?1",
	/* iat is in seconds: a token of the deactivation's own second is taken
	 * as issued before it (the safe side). */
	[T_HOLDERS] =
		"SELECT 1 FROM clients c JOIN projects p ON p.id = c.project_id"
		" WHERE c.id = ?1 AND c.project_id = ?2 AND c.is_active AND p.is_active"
		" AND (c.tokens_valid_after IS NULL OR ?4 > c.tokens_valid_after / 1000)"
		" AND (p.tokens_valid_after IS NULL OR ?4 > p.tokens_valid_after / 1000)"
		" AND (?3 IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.id = ?3"
		" AND u.project_id = ?2 AND u.is_active"
		" AND (u.tokens_valid_after IS NULL OR ?4 > u.tokens_valid_after / 1000)))",
	[T_USER_CLAIMS] =
		"SELECT u.is_active, u.display_name, u.email, u.email_verified, u.external_user_id,"
		" u.avatar_url, u.updated_at, r.code FROM users u LEFT JOIN roles r ON r.id = u.role_id"
		" WHERE u.id = ?1 AND u.project_id = ?2",
	[T_PURGE_REVOKED] =
		"DELETE FROM revoked_tokens WHERE jti IN (SELECT jti FROM revoked_tokens"
		" WHERE expires_at < ?1 / 1000 LIMIT ?2)",
	/* device authorizations (docs/device.md) go with the codes */
	[T_PURGE_DEVICE] =
		"DELETE FROM device_authorizations WHERE device_hash IN (SELECT device_hash"
		" FROM device_authorizations WHERE expires_at < ?1 LIMIT ?2)",
};

const struct stmt_set store_tokens_sql = { T__COUNT, sql, NULL };

#define STMT(st, i) (sqlite_of(st)->tokens.stmt[i])

/* Both lookups select the same sixteen columns. */
static int grant_get(struct store *st, sqlite3_stmt *s, const char *hash,
                     struct store_token_row *out, struct api_error *err)
{
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, hash);
	rc = store_step(st, s, err);
	if (rc == 1) {
		out->found = true;
		out->family_id = store_column_dup(s, 0);
		out->project_id = store_column_dup(s, 1);
		out->client_id = store_column_dup(s, 2);
		out->user_id = store_column_dup(s, 3);
		out->redirect_uri = store_column_dup(s, 4);
		out->code_challenge = store_column_dup(s, 5);
		out->expires_at = sqlite3_column_int64(s, 6);
		out->used = sqlite3_column_int(s, 7) != 0;
		out->revoked = sqlite3_column_int(s, 8) != 0;
		out->predates_deactivation = sqlite3_column_int(s, 9) != 0;
		out->scope = store_column_dup(s, 10);
		out->nonce = store_column_dup(s, 11);
		out->auth_time = sqlite3_column_int64(s, 12);
		out->session_id = store_column_dup(s, 13);
		out->created_at = sqlite3_column_int64(s, 14);
		out->used_at = sqlite3_column_int64(s, 15);
		out->amr = store_column_dup(s, 16);
	}
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

/* Runs an UPDATE that marks a row used (?1 its hash, ?2 now, and for a
 * refresh token ?3 its successor's hash); 1 when it changed a row. */
static int mark_used(struct store *st, sqlite3_stmt *s, const char *hash, const char *successor,
                     struct api_error *err)
{
	int rc;

	store_bind_text(s, 1, hash);
	sqlite3_bind_int64(s, 2, now_ms());
	if (successor)
		store_bind_text(s, 3, successor);
	rc = store_step_write(st, s, NULL, 0, NULL, err);
	return rc < 0 ? -1 : sqlite3_changes(sqlite_of(st)->db) == 1;
}

static int code_insert(struct store *st, void *arg, struct api_error *err)
{
	const struct new_code *c = arg;
	sqlite3_stmt *s = STMT(st, T_CODE_INSERT);

	if (c->grant_scope &&
	    sqlite_grant_check_holder(st, c->grant_scope, GRANT_HOLDER_USER, c->user_id, err) < 0)
		return -1;

	store_bind_text(s, 1, c->hash);
	store_bind_text(s, 2, c->family_id);
	store_bind_text(s, 3, c->project_id);
	store_bind_text(s, 4, c->client_id);
	store_bind_text(s, 5, c->user_id);
	store_bind_text(s, 6, c->redirect_uri);
	store_bind_text(s, 7, c->code_challenge);
	sqlite3_bind_int64(s, 8, now_ms());
	sqlite3_bind_int64(s, 9, c->expires_at);
	store_bind_text(s, 10, c->scope);
	store_bind_text(s, 11, c->nonce);
	sqlite3_bind_int64(s, 12, c->auth_time);
	store_bind_text(s, 13, c->session_id);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static void sqlite_code_insert(struct store *st, const struct new_code *c, struct completion done)
{
	struct api_error err;

	complete(done, store_write_tx(st, code_insert, NULL, (void *)c, &err), &err);
}

static void sqlite_code_get(struct store *st, const char *hash, struct store_token_row *out,
                            struct completion done)
{
	struct api_error err;

	complete(done, grant_get(st, STMT(st, T_CODE_GET), hash, out, &err), &err);
}

static int refresh_insert(struct store *st, const struct new_refresh *r, struct api_error *err)
{
	sqlite3_stmt *s = STMT(st, T_REFRESH_INSERT);

	store_bind_text(s, 1, r->hash);
	store_bind_text(s, 2, r->family_id);
	store_bind_text(s, 3, r->project_id);
	store_bind_text(s, 4, r->client_id);
	store_bind_text(s, 5, r->user_id);
	store_bind_text(s, 6, r->access_jti);
	sqlite3_bind_int64(s, 7, r->access_exp_s);
	sqlite3_bind_int64(s, 8, now_ms());
	sqlite3_bind_int64(s, 9, r->expires_at);
	store_bind_text(s, 10, r->scope);
	sqlite3_bind_int64(s, 11, r->auth_time);
	store_bind_text(s, 12, r->session_id);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* A single use in progress (use_once): the code or refresh token hash;
 * for a refresh token, its successor is recorded in its row. */
struct single_use {
	sqlite3_stmt *use;
	const char *hash;
	const struct new_refresh *next;
	bool records_successor;
	bool *won;
};

/* Marks the row used if nothing used it first, and stores its successor:
 * of simultaneous uses exactly one wins; a loser changes nothing. */
static int use_once(struct store *st, void *arg, struct api_error *err)
{
	struct single_use *u = arg;
	int rc = mark_used(st, u->use, u->hash, u->records_successor ? u->next->hash : NULL, err);

	*u->won = rc == 1;
	return rc == 1 ? refresh_insert(st, u->next, err) : rc;
}

static void sqlite_code_redeem(struct store *st, const char *hash, const struct new_refresh *next,
                               bool *won, struct completion done)
{
	struct single_use u = { STMT(st, T_CODE_USE), hash, next, false, won };
	struct api_error err;
	int rc = store_write_tx(st, use_once, NULL, &u, &err);

	*won = *won && rc == 0;
	complete(done, rc, &err);
}

static void sqlite_refresh_rotate(struct store *st, const char *hash,
                                  const struct new_refresh *next, bool *won, struct completion done)
{
	struct single_use u = { STMT(st, T_REFRESH_USE), hash, next, true, won };
	struct api_error err;
	int rc = store_write_tx(st, use_once, NULL, &u, &err);

	*won = *won && rc == 0;
	complete(done, rc, &err);
}

/* A repeat within the grace (store_refresh_regrace). */
struct regrace {
	const char *hash;
	int64_t since;
	const struct new_refresh *next;
	bool *won;
};

/* Takes back the unused successor, if the repeat may, then revokes its
 * access token and stores the new one: the access revocation reads the
 * successor through the repeated token's row, before anything else. */
static int regrace(struct store *st, void *arg, struct api_error *err)
{
	struct regrace *g = arg;
	sqlite3_stmt *take = STMT(st, T_REGRACE_SUCCESSOR), *access = STMT(st, T_REGRACE_ACCESS);

	store_bind_text(take, 1, g->hash);
	sqlite3_bind_int64(take, 2, now_ms());
	sqlite3_bind_int64(take, 3, g->since);
	if (store_step_write(st, take, NULL, 0, NULL, err) < 0)
		return -1;
	*g->won = sqlite3_changes(sqlite_of(st)->db) == 1;
	if (!*g->won)
		return 0;
	store_bind_text(access, 1, g->hash);
	if (store_step_write(st, access, NULL, 0, NULL, err) < 0)
		return -1;
	return refresh_insert(st, g->next, err);
}

static void sqlite_refresh_regrace(struct store *st, const char *hash, int64_t since,
                                   const struct new_refresh *next, bool *won,
                                   struct completion done)
{
	struct regrace g = { hash, since, next, won };
	struct api_error err;
	int rc;

	*won = false;
	rc = store_write_tx(st, regrace, NULL, &g, &err);
	*won = *won && rc == 0;
	complete(done, rc, &err);
}

static void sqlite_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                               struct completion done)
{
	struct api_error err;

	complete(done, grant_get(st, STMT(st, T_REFRESH_GET), hash, out, &err), &err);
}


static int family_revoke(struct store *st, void *arg, struct api_error *err)
{
	const char *family_id = arg;
	sqlite3_stmt *a = STMT(st, T_FAMILY_REVOKE_ACCESS), *r = STMT(st, T_FAMILY_REVOKE_REFRESH);

	store_bind_text(a, 1, family_id);
	if (store_step_write(st, a, NULL, 0, NULL, err) < 0)
		return -1;
	store_bind_text(r, 1, family_id);
	sqlite3_bind_int64(r, 2, now_ms());
	return store_step_write(st, r, NULL, 0, NULL, err);
}

static void sqlite_family_revoke(struct store *st, const char *family_id, const struct event *ev,
                                 struct completion done)
{
	struct api_error err;

	complete(done, store_write_tx_event(st, family_revoke, NULL, (void *)family_id, ev, &err),
	         &err);
}

struct access_revocation {
	const char *jti;
	long long exp_s;
};

static int access_revoke(struct store *st, void *arg, struct api_error *err)
{
	const struct access_revocation *r = arg;
	sqlite3_stmt *s = STMT(st, T_ACCESS_REVOKE);

	store_bind_text(s, 1, r->jti);
	sqlite3_bind_int64(s, 2, r->exp_s);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static void sqlite_access_revoke(struct store *st, const char *jti, long long exp_s,
                                 const struct event *ev, struct completion done)
{
	struct access_revocation r = { jti, exp_s };
	struct api_error err;

	complete(done, store_write_tx_event(st, access_revoke, NULL, &r, ev, &err), &err);
}

static int purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                         struct api_error *err)
{
	static const int which[] = { T_PURGE_CODES, T_PURGE_REFRESH, T_PURGE_REVOKED,
	                             T_PURGE_DEVICE };
	int total = 0;

	for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
		int n = store_purge_batch(st, STMT(st, which[i]), now - grace_ms, batch, err);

		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

static void sqlite_purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                                 int *deleted, struct completion done)
{
	struct api_error err;

	*deleted = purge_expired(st, batch, now, grace_ms, &err);
	complete(done, *deleted < 0 ? -1 : 0, &err);
}

/* ---- what token issue reads of a user ---- */

static void sqlite_user_claims(struct store *st, const char *project_id, const char *user_id,
                               struct user_claims *out, struct completion done)
{
	sqlite3_stmt *s = STMT(st, T_USER_CLAIMS);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, user_id);
	store_bind_text(s, 2, project_id);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->found = true;
		out->is_active = sqlite3_column_int(s, 0) != 0;
		out->display_name = store_column_dup(s, 1);
		out->email = store_column_dup(s, 2);
		out->email_verified = sqlite3_column_int(s, 3) != 0;
		out->external_user_id = store_column_dup(s, 4);
		out->avatar_url = store_column_dup(s, 5);
		out->updated_at = sqlite3_column_int64(s, 6);
		out->role_code = store_column_dup(s, 7);
	}
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

/* ---- what a bearer check reads ---- */

static void sqlite_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                                    const char *user_id, long long iat_s, bool *ok,
                                    struct completion done)
{
	sqlite3_stmt *s = STMT(st, T_HOLDERS);
	struct api_error err;
	int rc;

	sqlite3_bind_int64(s, 4, iat_s);
	rc = store_exists(st, s, client_id, project_id, user_id, &err);
	*ok = rc == 1;
	complete(done, rc, &err);
}

static void sqlite_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                                    struct store_stamp *stamp, struct completion done)
{
	struct api_error err;
	int rc = store_exists(st, STMT(st, T_REVOKED), jti, NULL, NULL, &err);

	*revoked = rc == 1;
	*stamp = store_stamp(st);
	complete(done, rc, &err);
}

const struct store_tokens_ops sqlite_tokens_ops = {
	.code_insert = sqlite_code_insert,
	.code_get = sqlite_code_get,
	.code_redeem = sqlite_code_redeem,
	.refresh_get = sqlite_refresh_get,
	.refresh_rotate = sqlite_refresh_rotate,
	.refresh_regrace = sqlite_refresh_regrace,
	.family_revoke = sqlite_family_revoke,
	.access_revoke = sqlite_access_revoke,
	.purge = sqlite_purge_expired,
	.user_claims = sqlite_user_claims,
	.holders_ok = sqlite_token_holders_ok,
	.is_revoked = sqlite_token_is_revoked,
};
