/*
 * Browser sessions on PostgreSQL (store_sessions_ops): a start and an end are
 * each one call of a function of schema/postgres/017_signin.sql, which
 * records the event; whether a session is live is asked of the database's
 * clock, the same for every node.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_sessions.h"
#include "store_pg.h"
#include "util.h"

enum {
	PS_START,
	PS_FIND,
	PS_ADD_CLIENT,
	PS_END,
	PS_PURGE,
	PS_LIST_USER,
	PS_LIST,
	PS__COUNT
};

static const struct pg_statement statements[PS__COUNT] = {
	[PS_START] = { "sessions_start", "SELECT sid, event FROM edgeauth_session_start($1, $2, $3,"
		" $4, $5, $6, $7, $8, $9, $10)", 10, true },
	/* a live session: not ended, not expired, its user active, its last
	 * sign-in after the second of its user's and project's last
	 * deactivation (the cut-off of codes and tokens, pg_tokens.c); and
	 * whether its user's role requires a second factor it was signed in
	 * without (amr "pwd", sqlite_sessions.c's SQL_FOUND) */
	[PS_FIND] = { "sessions_find", "SELECT s.id, s.user_id, s.auth_time, s.expires_at,"
		" s.amr = 'pwd' AND coalesce((SELECT r.requires_second_factor FROM users u"
		" JOIN roles r ON r.id = u.role_id WHERE u.id = s.user_id), false)"
		" FROM sessions s WHERE s.secret_hash = $1 AND s.project_id = $2"
		" AND s.ended_at IS NULL AND s.expires_at > edgeauth_now_ms()"
		" AND EXISTS (SELECT 1 FROM users u, projects p WHERE u.id = s.user_id"
		" AND p.id = s.project_id AND u.is_active"
		" AND (u.tokens_valid_after IS NULL OR s.auth_time / 1000 > u.tokens_valid_after / 1000)"
		" AND (p.tokens_valid_after IS NULL OR s.auth_time / 1000 > p.tokens_valid_after / 1000))",
		2, false },
	[PS_ADD_CLIENT] = { "sessions_add_client", "SELECT edgeauth_session_add_client($1, $2)",
		2, true },
	[PS_END] = { "sessions_end", "SELECT ended, event FROM edgeauth_session_end($1, $2, $3, $4)", 4,
		true },
	/* ended or expired sessions only, whose deletion changes nothing a cache
	 * holds (schema/postgres/021): the purging node's caches stay, as the
	 * fleet's do (no notification), or every tick would empty them */
	[PS_PURGE] = { "sessions_purge", "WITH d AS (DELETE FROM sessions WHERE id IN"
		" (SELECT id FROM sessions WHERE ended_at IS NOT NULL OR expires_at <= edgeauth_now_ms()"
		" LIMIT $1) RETURNING 1) SELECT count(*) FROM d", 1, PG_WRITES_UNCACHED },
	[PS_LIST_USER] = { "sessions_list_user", "SELECT id, created_at, auth_time, expires_at, amr"
		" FROM sessions WHERE project_id = $1 AND user_id = $2 AND ended_at IS NULL"
		" AND expires_at > edgeauth_now_ms() ORDER BY created_at DESC, id LIMIT $3", 3, false },
	/* store_session_list: $1 the project, $2 a user or NULL, $3 now (ms) */
	[PS_LIST] = { "sessions_list", PG_SQL_PAGE("sessions",
		" WHERE r.project_id = $1 AND ($2::text IS NULL OR r.user_id = $2)"
		" AND r.ended_at IS NULL AND r.expires_at > $3::bigint",
		"json_build_object('id', r.id, 'user_id', r.user_id,"
		" 'user_name', (SELECT u.display_name FROM users u WHERE u.id = r.user_id),"
		" 'user_email', (SELECT u.email FROM users u WHERE u.id = r.user_id), 'amr', r.amr,"
		" 'created_at', edgeauth_iso_time(r.created_at),"
		" 'auth_time', edgeauth_iso_time(r.auth_time),"
		" 'expires_at', edgeauth_iso_time(r.expires_at))",
		"r.created_at DESC, r.id DESC", "$4", "$5"), 5, false },
};

const struct pg_statement_set pg_sessions_statements = { statements, PS__COUNT };

/* No row: the user went since the password check. */
static int session_started(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	if (PQntuples(res) == 0)
		return api_fail(err, E_USER_NOT_FOUND, STORE_SESSION_USER_GONE);
	return pg_map_text(res, out, how, err);
}

static void pg_session_start(struct store *st, const struct new_session *s, char **sid,
                             struct completion done)
{
	char auth[24], exp[24], *ev = pg_event_json(s->event);

	*sid = NULL;
	pg_run(st, &statements[PS_START], (const char *const[]){ s->id, s->secret_hash,
	       s->old_secret_hash, s->project_id, s->user_id, s->client_id,
	       pg_int_param(s->now, auth), pg_int_param(s->expires_at, exp), ev, s->amr },
	       session_started, sid, NULL, done);
	free(ev);
}

static int session_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct session_row *r = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	r->found = true;
	r->id = xstrdup(pg_text(res, 0, 0));
	r->user_id = xstrdup(pg_text(res, 0, 1));
	r->auth_time = pg_int(res, 0, 2);
	r->expires_at = pg_int(res, 0, 3);
	r->second_factor_missing = pg_bool(res, 0, 4);
	return 0;
}

/* Expiry is the database clock's, not a now of the node's. */
/* Expiry is the database's clock's: now is this node's. */
static void pg_session_find(struct store *st, const char *secret_hash, const char *project_id,
                            int64_t now, struct session_row *out, struct completion done)
{
	(void)now;
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PS_FIND], (const char *const[]){ secret_hash, project_id },
	       session_read, out, NULL, done);
}

static void pg_session_add_client(struct store *st, const char *session_id, const char *client_id,
                                  struct completion done)
{
	pg_run(st, &statements[PS_ADD_CLIENT], (const char *const[]){ session_id, client_id },
	       pg_map_none, NULL, NULL, done);
}

static void pg_session_end(struct store *st, const char *id, const char *project_id,
                           const char *user_id, const struct event *ev, bool *ended,
                           struct completion done)
{
	char *e = pg_event_json(ev);

	pg_run(st, &statements[PS_END], (const char *const[]){ id, project_id, user_id, e },
	       pg_map_bool, ended, NULL, done);
	free(e);
}

/* On the loop, as the purge of tokens (pg_purge_run). */
/* Runs on the loop, so it does not wait for its count: *deleted is the
 * count of the last run that ended (pg_purge_run); a failure is logged.
 * Expiry is the database's clock's: now is this node's. */
static void pg_session_purge(struct store *st, int batch, int64_t now, int *deleted,
                             struct completion done)
{
	char n[24];

	(void)now;
	*deleted = pg_purge_run(st, STORE_PURGE_SESSIONS, "purge of sessions",
	                        &statements[PS_PURGE], (const char *const[]){ pg_int_param(batch, n) });
	complete(done, 0, NULL);
}

static int sessions_listed(const PGresult *res, void *out, const void *how,
                           struct api_error *err)
{
	struct session_list *l = out;
	int n = PQntuples(res);

	(void)how;
	(void)err;
	l->items = xcalloc(n ? (size_t)n : 1, sizeof *l->items);
	for (int r = 0; r < n; r++) {
		struct session_item *it = &l->items[l->n++];
		it->id = pg_text_dup(res, r, 0);
		it->created_at = pg_int(res, r, 1);
		it->auth_time = pg_int(res, r, 2);
		it->expires_at = pg_int(res, r, 3);
		it->amr = pg_text_dup(res, r, 4);
	}
	return 0;
}

/* Expiry is the database's clock's: now is this node's. */
static void pg_session_list_user(struct store *st, const char *project_id, const char *user_id,
                                 int64_t now, struct session_list *out, struct completion done)
{
	char max[24];

	(void)now;
	pg_run(st, &statements[PS_LIST_USER], (const char *const[]){ project_id, user_id,
	       pg_int_param(STORE_SESSION_LIST_MAX, max) }, sessions_listed, out, NULL, done);
}

static void pg_session_list(struct store *st, const char *project_id, const char *user_id,
                            int64_t now, const struct list_query *q, struct page *out,
                            struct completion done)
{
	char at[24], size[24], offset[24];

	pg_run(st, &statements[PS_LIST], (const char *const[]){ project_id, user_id,
	       pg_int_param(now, at), pg_int_param(q->page_size, size),
	       pg_int_param(list_offset(q), offset) }, pg_map_page, out, NULL, done);
}

const struct store_sessions_ops pg_sessions_ops = {
	.start = pg_session_start,
	.find = pg_session_find,
	.add_client = pg_session_add_client,
	.end = pg_session_end,
	.purge = pg_session_purge,
	.list_user = pg_session_list_user,
	.list = pg_session_list,
};
