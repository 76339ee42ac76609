/*
 * The sessions area of the SQLite backend (store_sessions_ops). A session is
 * ended only by setting ended_at, so that schema/008's triggers revoke its
 * sign-ins and queue its back-channel logouts; nothing here deletes a live
 * one but the purge of expired ones, which by design ends nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_sessions.h"
#include "util.h"

enum session_stmt {
	SS_FIND_ANY_USER,
	SS_FIND,
	SS_INSERT,
	SS_CONTINUE,
	SS_END,
	SS_ADD_CLIENT,
	SS_PURGE,
	SS_LIST_USER,
	SS_LIST,
	SS__COUNT
};

/* A live session of project ?2 at ?3 behind the secret hash ?1; SS_FIND
 * also wants its user active (the triggers end a deactivated user's
 * sessions; a row another tool wrote is held to it too) and its last
 * sign-in after the second of its user's and project's last deactivation,
 * the cut-off codes and tokens follow (sqlite_tokens.c), so that a session
 * of that second gives no codes that are dead on arrival. */
#define SQL_LIVE \
	" FROM sessions s WHERE s.secret_hash = ?1 AND s.project_id = ?2" \
	" AND s.ended_at IS NULL AND s.expires_at > ?3"

/* The live sessions of project ?1 at ?3, of user ?2 when not NULL. */
#define SQL_LIST_FILTER \
	" WHERE s.project_id = ?1 AND (?2 IS NULL OR s.user_id = ?2)" \
	" AND s.ended_at IS NULL AND s.expires_at > ?3"

/* What a find reads (session_read): the row, and whether the user's role
 * requires a second factor the session was not signed in with
 * (docs/signin.md §"Second factors"): its amr is the password's alone;
 * every other says a factor (a code, a passkey after the password or
 * alone). */
#define SQL_FOUND \
	"SELECT s.id, s.user_id, s.auth_time, s.expires_at, s.amr = 'pwd' AND" \
	" coalesce((SELECT r.requires_second_factor FROM users u JOIN roles r ON r.id = u.role_id" \
	" WHERE u.id = s.user_id), 0)"

static const char *const sql[SS__COUNT] = {
	[SS_FIND_ANY_USER] = SQL_FOUND SQL_LIVE,
	[SS_FIND] =
		SQL_FOUND SQL_LIVE
		" AND EXISTS (SELECT 1 FROM users u, projects p WHERE u.id = s.user_id"
		" AND p.id = s.project_id AND u.is_active"
		" AND (u.tokens_valid_after IS NULL OR s.auth_time / 1000 > u.tokens_valid_after / 1000)"
		" AND (p.tokens_valid_after IS NULL OR s.auth_time / 1000 > p.tokens_valid_after / 1000))",
	/* nothing when the user went (or was deactivated) since the password
	 * check */
	[SS_INSERT] =
		"INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,"
		" expires_at, amr) SELECT ?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7 FROM users"
		" WHERE id = ?4 AND is_active",
	[SS_CONTINUE] =
		"UPDATE sessions SET secret_hash = ?2, auth_time = ?3, expires_at = ?4, amr = ?5"
		" WHERE id = ?1",
	[SS_END] =
		"UPDATE sessions SET ended_at = ?4 WHERE id = ?1 AND project_id = ?2"
		" AND (?3 IS NULL OR user_id = ?3) AND ended_at IS NULL",
	/* only into a session that has not ended: a client that got a code
	 * after the end would never be told */
	[SS_ADD_CLIENT] =
		"INSERT OR IGNORE INTO session_clients (session_id, client_id)"
		" SELECT id, ?2 FROM sessions WHERE id = ?1 AND ended_at IS NULL",
	[SS_PURGE] =
		"DELETE FROM sessions WHERE id IN (SELECT id FROM sessions"
		" WHERE ended_at IS NOT NULL OR expires_at <= ?1 LIMIT ?2)",
	[SS_LIST_USER] =
		"SELECT id, created_at, auth_time, expires_at, amr FROM sessions"
		" WHERE project_id = ?1 AND user_id = ?2 AND ended_at IS NULL AND expires_at > ?3"
		" ORDER BY created_at DESC, id LIMIT ?4",
	/* The count and the page in one read (store_session_list): the page
	 * is chosen first, so only its rows are made records. */
	[SS_LIST] =
		"SELECT (SELECT count(*) FROM sessions s" SQL_LIST_FILTER "),"
		" (SELECT json_group_array(json_object('id', s.id, 'user_id', s.user_id,"
		" 'user_name', u.display_name, 'user_email', u.email, 'amr', s.amr,"
		" 'created_at', iso_time(s.created_at), 'auth_time', iso_time(s.auth_time),"
		" 'expires_at', iso_time(s.expires_at)))"
		" FROM (SELECT * FROM sessions s" SQL_LIST_FILTER
		" ORDER BY s.created_at DESC, s.id DESC LIMIT ?4 OFFSET ?5) s"
		" LEFT JOIN users u ON u.id = s.user_id)",
};

const struct stmt_set store_sessions_sql = { SS__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, enum session_stmt which)
{
	return sqlite_of(st)->sessions.stmt[which];
}

/* Steps a find statement into *out. 0, or -1 with err. */
static int session_read(struct store *st, sqlite3_stmt *s, const char *secret_hash,
                        const char *project_id, int64_t now, struct session_row *out,
                        struct api_error *err)
{
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, secret_hash);
	store_bind_text(s, 2, project_id);
	sqlite3_bind_int64(s, 3, now);
	rc = store_step(st, s, err);
	if (rc == 1) {
		out->found = true;
		out->id = xstrdup(store_column_text(s, 0));
		out->user_id = xstrdup(store_column_text(s, 1));
		out->auth_time = sqlite3_column_int64(s, 2);
		out->expires_at = sqlite3_column_int64(s, 3);
		out->second_factor_missing = sqlite3_column_int(s, 4) != 0;
	}
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

/* What a start works on, for store_write_tx. */
struct session_start {
	const struct new_session *s;
	char **sid;
};

static int session_insert(struct store *st, const struct new_session *n, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SS_INSERT);

	store_bind_text(s, 1, n->id);
	store_bind_text(s, 2, n->secret_hash);
	store_bind_text(s, 3, n->project_id);
	store_bind_text(s, 4, n->user_id);
	sqlite3_bind_int64(s, 5, n->now);
	sqlite3_bind_int64(s, 6, n->expires_at);
	store_bind_text(s, 7, n->amr);
	if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
		return -1;
	return sqlite3_changes(sqlite_of(st)->db) ? 0
	       : api_fail(err, E_USER_NOT_FOUND, STORE_SESSION_USER_GONE);
}

static int session_continue(struct store *st, const struct new_session *n, const char *id,
                            struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SS_CONTINUE);

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, n->secret_hash);
	sqlite3_bind_int64(s, 3, n->now);
	sqlite3_bind_int64(s, 4, n->expires_at);
	store_bind_text(s, 5, n->amr);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static int session_end(struct store *st, const char *id, const char *project_id,
                       const char *user_id, int64_t now, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SS_END);

	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, user_id);
	sqlite3_bind_int64(s, 4, now);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

static int client_record(struct store *st, const char *session_id, const char *client_id,
                         struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SS_ADD_CLIENT);

	if (!client_id)
		return 0;   /* the console's sign-in: no client to tell */
	store_bind_text(s, 1, session_id);
	store_bind_text(s, 2, client_id);
	return store_step_write(st, s, NULL, 0, NULL, err);
}

/* docs/signin.md §"Sessions"'s lifecycle, in the start's transaction. The old session
 * is looked up whoever its user is, active or not: another user's ends. */
static int start_write(struct store *st, void *arg, struct api_error *err)
{
	struct session_start *w = arg;
	const struct new_session *n = w->s;
	struct session_row old = { 0 };
	int rc = 0;

	if (n->old_secret_hash &&
	    session_read(st, stmt(st, SS_FIND_ANY_USER), n->old_secret_hash, n->project_id, n->now,
	                 &old, err) < 0)
		return -1;
	if (old.found && strcmp(old.user_id, n->user_id) == 0) {
		rc = session_continue(st, n, old.id, err);
		*w->sid = xstrdup(old.id);
	} else {
		if (old.found)
			rc = session_end(st, old.id, n->project_id, NULL, n->now, err);
		if (rc == 0)
			rc = session_insert(st, n, err);
		*w->sid = xstrdup(n->id);
	}
	session_row_release(&old);
	return rc < 0 ? -1 : client_record(st, *w->sid, n->client_id, err);
}

static void sqlite_session_start(struct store *st, const struct new_session *s, char **sid,
                                 struct completion done)
{
	struct session_start w = { s, sid };
	struct api_error err;
	int rc;

	*sid = NULL;
	rc = store_write_tx_event(st, start_write, NULL, &w, s->event, &err);
	if (rc < 0) {
		free(*sid);   /* nothing was written */
		*sid = NULL;
	}
	complete(done, rc, &err);
}

static void sqlite_session_find(struct store *st, const char *secret_hash, const char *project_id,
                                int64_t now, struct session_row *out, struct completion done)
{
	struct api_error err;

	complete(done, session_read(st, stmt(st, SS_FIND), secret_hash, project_id, now, out, &err),
	         &err);
}

static int add_client(struct store *st, void *arg, struct api_error *err)
{
	const char *const *ids = arg;

	return client_record(st, ids[0], ids[1], err);
}

static void sqlite_session_add_client(struct store *st, const char *session_id,
                                      const char *client_id, struct completion done)
{
	const char *ids[2] = { session_id, client_id };
	struct api_error err;

	complete(done, store_write_tx(st, add_client, NULL, ids, &err), &err);
}

/* What an end works on, for store_write_tx. */
struct session_ending {
	const char *id;
	const char *project_id;
	const char *user_id;
	const struct event *ev;
	bool *ended;
};

static int end_write(struct store *st, void *arg, struct api_error *err)
{
	const struct session_ending *e = arg;

	if (session_end(st, e->id, e->project_id, e->user_id, now_ms(), err) < 0)
		return -1;
	*e->ended = sqlite3_changes(sqlite_of(st)->db) > 0;
	if (!e->ev || !*e->ended)
		return 0;   /* nothing ended: nothing to record */
	return store_event_insert(st, e->ev, err);
}

static void sqlite_session_end(struct store *st, const char *id, const char *project_id,
                               const char *user_id, const struct event *ev, bool *ended,
                               struct completion done)
{
	struct session_ending e = { id, project_id, user_id, ev, ended };
	struct api_error err;
	int rc;

	*ended = false;
	rc = store_write_tx(st, end_write, NULL, &e, &err);
	if (rc < 0)
		*ended = false;   /* rolled back */
	complete(done, rc, &err);
}

static void sqlite_session_purge(struct store *st, int batch, int64_t now, int *deleted,
                                 struct completion done)
{
	struct api_error err;

	*deleted = store_purge_batch(st, stmt(st, SS_PURGE), now, batch, &err);
	complete(done, *deleted < 0 ? -1 : 0, &err);
}

static void sqlite_session_list_user(struct store *st, const char *project_id,
                                     const char *user_id, int64_t now, struct session_list *out,
                                     struct completion done)
{
	sqlite3_stmt *s = stmt(st, SS_LIST_USER);
	struct api_error err;
	int rc;

	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, user_id);
	sqlite3_bind_int64(s, 3, now);
	sqlite3_bind_int(s, 4, STORE_SESSION_LIST_MAX);
	out->items = xcalloc(STORE_SESSION_LIST_MAX, sizeof *out->items);
	while ((rc = store_step(st, s, &err)) == 1) {
		struct session_item *it = &out->items[out->n++];
		it->id = store_column_dup(s, 0);
		it->created_at = sqlite3_column_int64(s, 1);
		it->auth_time = sqlite3_column_int64(s, 2);
		it->expires_at = sqlite3_column_int64(s, 3);
		it->amr = store_column_dup(s, 4);
	}
	store_stmt_finish(s);
	if (rc < 0)
		session_list_release(out);
	complete(done, rc < 0 ? -1 : 0, &err);
}

static void sqlite_session_list(struct store *st, const char *project_id, const char *user_id,
                                int64_t now, const struct list_query *q, struct page *out,
                                struct completion done)
{
	sqlite3_stmt *s = stmt(st, SS_LIST);
	struct api_error err;

	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, user_id);
	sqlite3_bind_int64(s, 3, now);
	sqlite3_bind_int64(s, 4, q->page_size);
	sqlite3_bind_int64(s, 5, list_offset(q));
	complete(done, store_read_page(st, s, out, &err), &err);
}

const struct store_sessions_ops sqlite_sessions_ops = {
	.start = sqlite_session_start,
	.find = sqlite_session_find,
	.add_client = sqlite_session_add_client,
	.end = sqlite_session_end,
	.purge = sqlite_session_purge,
	.list_user = sqlite_session_list_user,
	.list = sqlite_session_list,
};
