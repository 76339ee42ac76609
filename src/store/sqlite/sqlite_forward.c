/*
 * Forward authentication's data on SQLite (store_forward_ops,
 * store_backend.h): the app a URL belongs to, and the app cookies, each
 * read in one statement. A cookie is never read by its value, and is
 * good only while its session is live.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_forward.h"
#include "util.h"

enum forward_stmt {
	SW_APP,
	SW_COOKIE_INSERT,
	SW_CHECK,
	SW__COUNT
};

/* ?1 the URL; a base is a prefix on a boundary (store_forward.h), the
 * longest wins, then the smallest client ID: min() of that key (its first
 * part 9 digits for any base shorter than 10^8 bytes) gives its
 * row's columns (SQLite's bare columns of a min() query), an aggregate
 * that needs no sorter, which costs more than the rest of the question
 * (scripts/bench/callgrind's forward_auth row). */
#define APP_MIN \
	"SELECT c.id AS id, c.project_id AS project_id, c.is_active AND p.is_active AS active," \
	" f.value AS base, c.allowed_role_ids AS allowed_role_ids," \
	" min((1000000000 - length(f.value)) || c.id)" \
	" FROM clients c JOIN projects p ON p.id = c.project_id," \
	" json_each(CASE WHEN json_valid(c.forward_auth_urls) THEN c.forward_auth_urls" \
	" ELSE '[]' END) f" \
	" WHERE c.forward_auth_urls <> '[]' AND f.type = 'text' AND f.value <> ''" \
	" AND substr(?1, 1, length(f.value)) = f.value" \
	" AND (substr(f.value, -1) = '/' OR length(?1) = length(f.value)" \
	" OR substr(?1, length(f.value) + 1, 1) IN ('/', '?', '#')) HAVING count(*) > 0"

static const char *const sql[SW__COUNT] = {
	[SW_APP] = APP_MIN,
	[SW_COOKIE_INSERT] =
		"INSERT INTO forward_auth_cookies (token_hash, session_id, client_id, created_at)"
		" VALUES (?1, ?2, ?3, ?4)",
	/* the app, and ?2 the hash, ?3 now: the session live, its user active;
	 * the role's permissions as a token carries them (SQL_TOKEN_PERMISSIONS),
	 * comma-separated */
	[SW_CHECK] =
		"SELECT a.id, a.project_id, a.active, a.base, a.allowed_role_ids, u.id, u.email, u.display_name, ro.code, u.role_id,"
		" coalesce((SELECT group_concat(named, ',') FROM (SELECT " SQL_NAMED_PERMISSION
		" AS named FROM role_permissions rp" SQL_JOIN_PERMISSION("rp.permission_id")
		" WHERE rp.role_id = u.role_id" SQL_SCOPE_CODES_OK " ORDER BY named)), '')"
		" FROM (" APP_MIN ") a LEFT JOIN forward_auth_cookies k ON k.token_hash = ?2"
		" AND k.client_id = a.id LEFT JOIN sessions s ON s.id = k.session_id"
		" AND s.project_id = a.project_id AND s.ended_at IS NULL AND s.expires_at > ?3"
		" LEFT JOIN users u ON u.id = s.user_id AND u.is_active"
		" LEFT JOIN roles ro ON ro.id = u.role_id",
};

const struct stmt_set store_forward_sql = { SW__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum forward_stmt which)
{
	return sqlite_of(st)->forward.stmt[which];
}

/* APP_MIN's columns, the first of s's row. */
static void app_read(sqlite3_stmt *s, struct forward_app *out)
{
	out->found = true;
	out->client_id = store_column_dup(s, 0);
	out->project_id = store_column_dup(s, 1);
	out->active = sqlite3_column_int(s, 2) != 0;
	out->base = store_column_dup(s, 3);
	out->allowed_role_ids = store_column_dup(s, 4);
}

static void sqlite_forward_app(struct store *st, const char *url, struct forward_app *out,
                               struct completion done)
{
	sqlite3_stmt *s = stmt(st, SW_APP);
	struct api_error err;
	int rc;

	store_bind_text(s, 1, url);
	rc = store_step(st, s, &err);
	if (rc == 1)
		app_read(s, out);
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

struct cookie_write {
	const char *token_hash, *session_id, *client_id;
	int64_t now;
};

static int cookie_write(struct store *st, void *arg, struct api_error *err)
{
	struct cookie_write *w = arg;
	sqlite3_stmt *s = stmt(st, SW_COOKIE_INSERT);

	store_bind_text(s, 1, w->token_hash);
	store_bind_text(s, 2, w->session_id);
	store_bind_text(s, 3, w->client_id);
	sqlite3_bind_int64(s, 4, w->now);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static void sqlite_forward_cookie_insert(struct store *st, const char *token_hash,
                                         const char *session_id, const char *client_id,
                                         int64_t now, struct completion done)
{
	struct cookie_write w = { token_hash, session_id, client_id, now };
	struct api_error err;

	complete(done, store_write_tx(st, cookie_write, NULL, &w, &err), &err);
}

static void sqlite_forward_check(struct store *st, const char *url, const char *token_hash,
                                 int64_t now, struct forward_lookup *out, struct completion done)
{
	sqlite3_stmt *s = stmt(st, SW_CHECK);
	struct forward_user *user = &out->user;
	struct api_error err;
	int rc;

	store_bind_text(s, 1, url);
	store_bind_text(s, 2, token_hash);
	sqlite3_bind_int64(s, 3, now);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		app_read(s, &out->app);
		user->found = sqlite3_column_type(s, 5) != SQLITE_NULL;
	}
	if (rc == 1 && user->found) {
		user->user_id = store_column_dup(s, 5);
		user->email = store_column_dup(s, 6);
		user->name = store_column_dup(s, 7);
		user->role_code = store_column_dup(s, 8);
		user->role_id = store_column_dup(s, 9);
		user->permissions = store_column_dup(s, 10);
	}
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

const struct store_forward_ops sqlite_forward_ops = {
	.app = sqlite_forward_app,
	.cookie_insert = sqlite_forward_cookie_insert,
	.check = sqlite_forward_check,
};
