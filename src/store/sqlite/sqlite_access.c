/*
 * Access rules and consents on SQLite (store_access_ops, store_backend.h):
 * one statement for what a sign-in reads; a consent's revocation and the
 * client's refresh tokens of the user go in one transaction.
 */
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_access.h"
#include "store_events.h"
#include "util.h"

enum access_stmt {
	SA_FACTS,
	SA_CONSENT_GRANT,
	SA_CONSENT_LIST,
	SA_CONSENT_DELETE,
	SA_REVOKE_ACCESS,
	SA_REVOKE_REFRESH,
	SA__COUNT
};

/* the client's live refresh tokens of the user: ?1 the user, ?2 the client */
#define USER_CLIENT_TOKENS \
	" FROM refresh_tokens WHERE user_id = ?1 AND client_id = ?2 AND revoked_at IS NULL"

static const char *const sql[SA__COUNT] = {
	[SA_FACTS] =
		"SELECT c.allowed_role_ids, (SELECT role_id FROM users WHERE id = ?2),"
		" c.consent_required, (SELECT scopes FROM consents WHERE user_id = ?2"
		" AND client_id = ?1), (SELECT group_concat(named, ' ') FROM (SELECT DISTINCT "
		SQL_NAMED_PERMISSION " AS named FROM users u JOIN role_permissions rp"
		" ON rp.role_id = u.role_id" SQL_JOIN_PERMISSION("rp.permission_id")
		" WHERE u.id = ?2" SQL_SCOPE_CODES_OK " ORDER BY named))"
		" FROM (SELECT 1) LEFT JOIN clients c ON c.id = ?1",
	[SA_CONSENT_GRANT] =
		"INSERT INTO consents (user_id, client_id, scopes, granted_at) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes,"
		" granted_at = excluded.granted_at",
	[SA_CONSENT_LIST] =
		"SELECT json_group_array(json_object('client_id', client_id, 'client_name', name,"
		" 'scopes', scopes, 'granted_at', iso_time(granted_at))) FROM (SELECT k.client_id,"
		" c.name, k.scopes, k.granted_at FROM consents k JOIN clients c ON c.id = k.client_id"
		" WHERE k.user_id = ?1 ORDER BY k.granted_at DESC, k.client_id)",
	[SA_CONSENT_DELETE] = "DELETE FROM consents WHERE user_id = ?1 AND client_id = ?2",
	[SA_REVOKE_ACCESS] =
		"INSERT OR IGNORE INTO revoked_tokens (jti, expires_at)"
		" SELECT access_jti, access_exp" USER_CLIENT_TOKENS,
	[SA_REVOKE_REFRESH] = ("UPDATE refresh_tokens SET revoked_at = ?3 WHERE user_id = ?1"
		" AND client_id = ?2 AND revoked_at IS NULL"),
};

const struct stmt_set store_access_sql = { SA__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum access_stmt which)
{
	return sqlite_of(st)->access.stmt[which];
}

static void sqlite_access_facts(struct store *st, const char *client_id, const char *user_id,
                                struct store_access_facts *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SA_FACTS);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, client_id);
	store_bind_text(s, 2, user_id);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->allowed_role_ids = store_column_dup(s, 0);
		out->role_id = store_column_dup(s, 1);
		out->consent_required = sqlite3_column_int(s, 2) != 0;
		out->consented = store_column_dup(s, 3);
		out->permissions = store_column_dup(s, 4);
	}
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

/* What a consent's write works on. */
struct consent_write {
	const char *user_id;
	const char *client_id;
	const char *scopes;
	const struct event *ev;
	bool *revoked;
};

static int grant_write(struct store *st, void *arg, struct api_error *err)
{
	struct consent_write *w = arg;
	sqlite3_stmt *s = stmt(st, SA_CONSENT_GRANT);

	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->client_id);
	store_bind_text(s, 3, w->scopes);
	sqlite3_bind_int64(s, 4, now_ms());
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return w->ev ? store_event_insert(st, w->ev, err) : 0;
}

static void sqlite_consent_grant(struct store *st, const char *user_id, const char *client_id,
                                 const char *scopes, const struct event *ev,
                                 struct completion done)
{
	struct consent_write w = { user_id, client_id, scopes, ev, NULL };
	struct api_error err;

	complete(done, store_write_tx(st, grant_write, NULL, &w, &err), &err);
}

static void sqlite_consent_list(struct store *st, const char *user_id, char **json,
                                struct completion done)
{
	sqlite3_stmt *s = stmt(st, SA_CONSENT_LIST);
	struct api_error err;
	int rc;

	*json = NULL;
	store_bind_text(s, 1, user_id);
	rc = store_step(st, s, &err);
	if (rc == 1)
		*json = xstrdup(store_column_text(s, 0) ? store_column_text(s, 0) : "[]");
	else if (rc == 0)   /* an aggregate always has its row */
		rc = store_fail(st, &err, "consent list");
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

/* Binds the user, the client and now to s and runs it. */
static int user_client_write(struct store *st, sqlite3_stmt *s, const struct consent_write *w,
                             struct api_error *err)
{
	store_bind_text(s, 1, w->user_id);
	store_bind_text(s, 2, w->client_id);
	if (sqlite3_bind_parameter_count(s) >= 3)
		sqlite3_bind_int64(s, 3, now_ms());
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* The consent first: without one, nothing is revoked. */
static int revoke_write(struct store *st, void *arg, struct api_error *err)
{
	struct consent_write *w = arg;

	if (user_client_write(st, stmt(st, SA_CONSENT_DELETE), w, err) < 0)
		return -1;
	*w->revoked = sqlite3_changes(sqlite_of(st)->db) > 0;
	if (!*w->revoked)
		return 0;
	if (user_client_write(st, stmt(st, SA_REVOKE_ACCESS), w, err) < 0 ||
	    user_client_write(st, stmt(st, SA_REVOKE_REFRESH), w, err) < 0)
		return -1;
	return w->ev ? store_event_insert(st, w->ev, err) : 0;
}

static void sqlite_consent_revoke(struct store *st, const char *user_id, const char *client_id,
                                  const struct event *ev, bool *revoked,
                                  struct completion done)
{
	struct consent_write w = { user_id, client_id, NULL, ev, revoked };
	struct api_error err;

	*revoked = false;
	complete(done, store_write_tx(st, revoke_write, NULL, &w, &err), &err);
}

const struct store_access_ops sqlite_access_ops = {
	.facts = sqlite_access_facts,
	.consent_grant = sqlite_consent_grant,
	.consent_list = sqlite_consent_list,
	.consent_revoke = sqlite_consent_revoke,
};
