/*
 * Forward authentication's data on PostgreSQL (store_forward_ops,
 * store_backend.h): the same statements as sqlite_forward.c, each one
 * round trip. A cookie is never read by its value, and is good only while
 * its session is live.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_forward.h"
#include "store_pg.h"
#include "util.h"

enum {
	PW_APP,
	PW_COOKIE_INSERT,
	PW_CHECK,
	PW__COUNT
};

/* a base is a prefix of $1 on a boundary (store_forward.h) */
#define APP_SELECT \
	"SELECT c.id, c.project_id, c.is_active AND p.is_active AS active, f AS base," \
	" c.allowed_role_ids::text AS allowed_role_ids" \
	" FROM clients c JOIN projects p ON p.id = c.project_id," \
	" jsonb_array_elements_text(c.forward_auth_urls) f" \
	" WHERE c.forward_auth_urls <> '[]' AND f <> '' AND left($1::text, length(f)) = f" \
	" AND (right(f, 1) = '/' OR length($1::text) = length(f)" \
	" OR substr($1::text, length(f) + 1, 1) IN ('/', '?', '#'))" \
	" ORDER BY length(f) DESC, c.id LIMIT 1"

static const struct pg_statement statements[PW__COUNT] = {
	[PW_APP] = { "forward_app", APP_SELECT, 1, PG_READS },
	[PW_COOKIE_INSERT] = { "forward_cookie_insert", "INSERT INTO forward_auth_cookies"
		" (token_hash, session_id, client_id, created_at) VALUES ($1, $2, $3, $4)", 4,
		PG_WRITES_UNCACHED },
	/* the app, and $2 the hash, $3 now: the session live, its user active;
	 * the role's permissions as a token carries them, comma-separated */
	[PW_CHECK] = { "forward_check", "SELECT a.*, u.id, u.email, u.display_name, ro.code,"
		" u.role_id, replace(edgeauth_scope_of_user(u.id), ' ', ',')"
		" FROM (" APP_SELECT ") a LEFT JOIN forward_auth_cookies k ON k.token_hash = $2"
		" AND k.client_id = a.id LEFT JOIN sessions s ON s.id = k.session_id"
		" AND s.project_id = a.project_id AND s.ended_at IS NULL AND s.expires_at > $3::bigint"
		" LEFT JOIN users u ON u.id = s.user_id AND u.is_active"
		" LEFT JOIN roles ro ON ro.id = u.role_id", 3, PG_READS },
};

const struct pg_statement_set pg_forward_statements = { statements, PW__COUNT };

static int app_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct forward_app *a = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	a->found = true;
	a->client_id = pg_text_dup(res, 0, 0);
	a->project_id = pg_text_dup(res, 0, 1);
	a->active = pg_bool(res, 0, 2);
	a->base = pg_text_dup(res, 0, 3);
	a->allowed_role_ids = pg_text_dup(res, 0, 4);
	return 0;
}

static void pg_forward_app(struct store *st, const char *url, struct forward_app *out,
                           struct completion done)
{
	pg_run(st, &statements[PW_APP], (const char *const[]){ url }, app_read, out, NULL, done);
}

static void pg_forward_cookie_insert(struct store *st, const char *token_hash,
                                     const char *session_id, const char *client_id, int64_t now,
                                     struct completion done)
{
	char n[24];

	pg_run(st, &statements[PW_COOKIE_INSERT], (const char *const[]){ token_hash, session_id,
	       client_id, pg_int_param(now, n) }, pg_map_none, NULL, NULL, done);
}

/* The app, and the cookie's user (columns 5..: NULL without one). */
static int check_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct forward_lookup *o = out;
	struct forward_user *u = &o->user;

	if (app_read(res, &o->app, how, err) < 0 || PQntuples(res) == 0 || !pg_text(res, 0, 5))
		return 0;
	u->found = true;
	u->user_id = pg_text_dup(res, 0, 5);
	u->email = pg_text_dup(res, 0, 6);
	u->name = pg_text_dup(res, 0, 7);
	u->role_code = pg_text_dup(res, 0, 8);
	u->role_id = pg_text_dup(res, 0, 9);
	u->permissions = pg_text_dup(res, 0, 10);
	return 0;
}

static void pg_forward_check(struct store *st, const char *url, const char *token_hash,
                             int64_t now, struct forward_lookup *out, struct completion done)
{
	char n[24];

	pg_run(st, &statements[PW_CHECK], (const char *const[]){ url, token_hash,
	       pg_int_param(now, n) }, check_read, out, NULL, done);
}

const struct store_forward_ops pg_forward_ops = {
	.app = pg_forward_app,
	.cookie_insert = pg_forward_cookie_insert,
	.check = pg_forward_check,
};
