/*
 * The session service (session.c) and its store (store_sessions.c) without
 * a socket: the cookie's name, reading and Set-Cookie form; prompt and
 * max_age and when the form is spared; starting a session (new, going on
 * for the same user under a new value, ending another user's), finding one
 * (another project's, ended, expired, an inactive user's are none), ending
 * one (the schema's triggers revoke its sign-ins), recording clients, the
 * purge. A real SQLite store, fresh for each test.
 */
#include <check.h>
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "server.h"
#include "session.h"
#include "store.h"
#include "store_projects.h"
#include "store_sessions.h"
#include "util.h"

static struct {
	char dir[64];
	struct config cfg;
	struct server srv;
	struct new_project p;
	char *app;
	char *ann, *bob;      /* users of the project */
	struct session_begin b[3];
	struct session_lookup l;
} fx;

#define exec_sql(...) check_sql(sqlite_of(fx.srv.store)->db, __VA_ARGS__)

#define sql_text(...) check_sql_text(sqlite_of(fx.srv.store)->db, __VA_ARGS__)

static void add_user(char **id, const char *email)
{
	*id = crypto_new_id();
	exec_sql("INSERT INTO users (id, project_id, display_name, email, password_hash,"
	         " created_at, updated_at) VALUES (%Q, %Q, 'u', %Q, 'x', 1, 1)",
	         *id, fx.p.project_id, email);
}

static void setup(void)
{
	struct api_error err;

	memset(&fx, 0, sizeof fx);
	config_init(&fx.cfg);
	fx.srv.cfg = &fx.cfg;
	fx.srv.store = check_store_new("check_session", fx.dir);
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	fx.app = crypto_new_id();
	exec_sql("INSERT INTO clients (id, project_id, name, secret_hash, redirect_uris,"
	         " created_at, updated_at) VALUES (%Q, %Q, 'app', 'x', '[]', 1, 1)",
	         fx.app, fx.p.project_id);
	add_user(&fx.ann, "ann@example.com");
	add_user(&fx.bob, "bob@example.com");
}

static void teardown(void)
{
	ck_assert_int_ne(sqlite3_get_autocommit(sqlite_of(fx.srv.store)->db), 0);
	for (size_t i = 0; i < sqlite_of(fx.srv.store)->sessions.count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(sqlite_of(fx.srv.store)->sessions.stmt[i]), 0);
	for (size_t i = 0; i < N_ELEMS(fx.b); i++)
		session_begin_release(&fx.b[i]);
	session_lookup_release(&fx.l);
	store_new_project_release(&fx.p);
	check_store_remove(fx.srv.store, fx.dir);
	config_release(&fx.cfg);
	free(fx.app);
	free(fx.ann);
	free(fx.bob);
}

/* Starts session i of user with old_cookie (NULL: none): 0, or -1. */
static int begin(size_t i, const char *user, const char *old_cookie)
{
	struct sync_result r;

	session_begin_release(&fx.b[i]);
	session_begin(&fx.b[i], &fx.srv, fx.p.project_id, user, fx.app, old_cookie,
	              SESSION_AMR_PASSWORD, NULL, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : 0;
}

/* Finds the session cookie names in project (1 found, 0 none, -1 failed). */
static int find(const char *cookie, const char *project_id)
{
	struct sync_result r;

	session_find(&fx.l, &fx.srv, cookie, project_id, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : fx.l.row.found;
}

/* A refresh token of the sign-in made in session sid: revoked by its end. */
static void refresh_in(const char *sid, const char *hash)
{
	exec_sql("INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id,"
	         " access_jti, access_exp, created_at, expires_at, session_id)"
	         " VALUES (%Q, 'f', %Q, %Q, %Q, %Q, 9999999999, 1, 99999999999999, %Q)",
	         hash, fx.p.project_id, fx.app, fx.ann, hash, sid);
}

/* ---- the cookie ---- */

START_TEST(test_cookie_name)
{
	char *secure = session_cookie_name("pid_1", true), *plain = session_cookie_name("pid_1", false);

	ck_assert_str_eq(secure, "__Host-edgeauth_pid_1");
	ck_assert_str_eq(plain, "edgeauth_pid_1");
	ck_assert(session_cookie_secure("https://auth.example"));
	ck_assert(!session_cookie_secure("http://127.0.0.1:8080"));
	ck_assert(!session_cookie_secure("httpsx://a"));
	free(secure);
	free(plain);
}
END_TEST

static const struct cookie_case {
	const char *headers[3];
	size_t n;
	const char *want;   /* NULL: none */
} cookie_cases[] = {
	{ { "edgeauth_p=v1" }, 1, "v1" },
	{ { "a=1; edgeauth_p=v1; b=2" }, 1, "v1" },
	{ { " \tedgeauth_p = v1 \t;x=y" }, 1, "v1" },          /* blanks around */
	{ { "a=1", "edgeauth_p=v2" }, 2, "v2" },                /* a header each */
	{ { "edgeauth_p=v1; edgeauth_p=v2" }, 1, NULL },        /* twice: none */
	{ { "edgeauth_p=v1", "edgeauth_p=v1" }, 2, NULL },      /* twice across headers */
	{ { "edgeauth_p=" }, 1, NULL },                         /* empty */
	{ { "edgeauth_pX=v1; xedgeauth_p=v2; EDGEAUTH_P=v3" }, 1, NULL },   /* exact names */
	{ { "edgeauth_p" }, 1, NULL },                          /* no '=': a value alone */
	{ { "=edgeauth_p; edgeauth_p" }, 1, NULL },
	{ { "" }, 1, NULL },
	{ { ";;;" }, 1, NULL },
	{ { NULL }, 0, NULL },
	{ { "edgeauth_p=a=b" }, 1, "a=b" },                     /* the first '=' splits */
	{ { "x=\"q;\"; edgeauth_p=v" }, 1, "v" },
};

START_TEST(test_cookie_value)
{
	const struct cookie_case *c = &cookie_cases[_i];
	char *v = session_cookie_value(c->headers, c->n, "edgeauth_p");

	if (c->want)
		ck_assert_msg(v && !strcmp(v, c->want), "case %d: got %s", _i, v ? v : "NULL");
	else
		ck_assert_msg(v == NULL, "case %d: got %s", _i, v);
	free(v);
}
END_TEST

START_TEST(test_cookie_header)
{
	char *set = session_cookie_header("__Host-edgeauth_p", "v", true, 28800);
	char *plain = session_cookie_header("edgeauth_p", "v", false, 60);
	char *clear = session_cookie_header("edgeauth_p", NULL, false, 60);
	char *clear_secure = session_cookie_header("__Host-edgeauth_p", NULL, true, 60);
	char *legacy = session_cookie_legacy_clear("edgeauth_p");

	ck_assert_str_eq(set, "__Host-edgeauth_p=v; Path=/; Max-Age=28800; Secure; HttpOnly; SameSite=Lax");
	ck_assert_str_eq(plain, "edgeauth_p=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax");
	ck_assert_str_eq(clear, "edgeauth_p=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
	ck_assert_str_eq(clear_secure,
	                 "__Host-edgeauth_p=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax");
	free(set);
	free(plain);
	free(clear);
	ck_assert_str_eq(legacy, "edgeauth_p=; Path=/api/v1/; Max-Age=0; HttpOnly; SameSite=Lax");
	free(clear_secure);
	free(legacy);
}
END_TEST

/* ---- prompt, max_age and the verdict ---- */

static const struct ask_case {
	const char *prompt, *max_age;
	int rc;
	bool none, login;
	long max;
} ask_cases[] = {
	{ NULL, NULL, 0, false, false, -1 },
	{ "none", NULL, 0, true, false, -1 },
	{ "login", "0", 0, false, true, 0 },
	{ "consent login select_account", "2147483647", 0, false, true, 2147483647L },
	{ "consent", NULL, 0, false, false, -1 },      /* unknown values are ignored */
	{ "", "", -1, false, false, -1 },               /* max_age present and empty */
	{ " none ", NULL, 0, true, false, -1 },
	{ "none none", NULL, 0, true, false, -1 },
	{ "none login", NULL, -1, false, false, -1 },
	{ "login none", NULL, -1, false, false, -1 },
	{ "none consent", NULL, -1, false, false, -1 },
	{ "nonE", NULL, 0, false, false, -1 },          /* values are case-sensitive */
	{ NULL, "-1", -1, false, false, -1 },
	{ NULL, "2147483648", -1, false, false, -1 },
	{ NULL, "1e3", -1, false, false, -1 },
	{ NULL, "+5", -1, false, false, -1 },
	{ NULL, " 5", -1, false, false, -1 },
	{ NULL, "007", 0, false, false, 7 },
};

START_TEST(test_ask_read)
{
	const struct ask_case *c = &ask_cases[_i];
	struct session_ask ask;
	const char *why = NULL;
	int rc = session_ask_read(c->prompt, c->max_age, &ask, &why);

	ck_assert_msg(rc == c->rc, "case %d: rc %d", _i, rc);
	if (rc < 0) {
		ck_assert_ptr_nonnull(why);
		return;
	}
	ck_assert_msg(ask.prompt_none == c->none && ask.prompt_login == c->login &&
	              ask.max_age == c->max, "case %d", _i);
}
END_TEST

#define NOW 1000000000LL
static const struct judge_case {
	bool none, login;
	long max_age;
	bool live;
	int64_t auth_time;
	enum session_verdict want;
	const char *hint;   /* id_token_hint's sub; the live session is "ann"'s */
} judge_cases[] = {
	{ false, false, -1, false, 0, SESSION_FORM, NULL },
	{ true, false, -1, false, 0, SESSION_LOGIN_REQUIRED, NULL },
	{ false, false, -1, true, NOW - 86400000, SESSION_SILENT, NULL },
	{ true, false, -1, true, NOW, SESSION_SILENT, NULL },
	{ false, true, -1, true, NOW, SESSION_FORM, NULL },
	{ false, false, 0, true, NOW, SESSION_FORM, NULL },            /* max_age=0: always the form */
	{ true, false, 0, true, NOW, SESSION_LOGIN_REQUIRED, NULL },
	{ false, false, 60, true, NOW - 60000, SESSION_SILENT, NULL },  /* exactly max_age: fine */
	{ false, false, 60, true, NOW - 60001, SESSION_FORM, NULL },
	{ true, false, 60, true, NOW - 60001, SESSION_LOGIN_REQUIRED, NULL },
	{ false, false, 60, true, NOW + 5000, SESSION_SILENT, NULL },   /* a clock behind: recent */
	{ false, false, 2147483647L, true, 0, SESSION_SILENT, NULL },
	/* issue24.8: OIDC Core §3.1.2.1, a hint of the session's user or another's */
	{ true, false, -1, true, NOW, SESSION_SILENT, "ann" },
	{ true, false, -1, true, NOW, SESSION_LOGIN_REQUIRED, "bob" },
	{ false, false, -1, true, NOW, SESSION_FORM, "bob" },
	{ true, false, -1, false, 0, SESSION_LOGIN_REQUIRED, "ann" },
};

START_TEST(test_judge)
{
	const struct judge_case *c = &judge_cases[_i];
	struct session_ask ask = { c->none, c->login, c->max_age, c->hint };
	struct session_row row = { .found = c->live, .user_id = c->live ? "ann" : NULL,
	                           .auth_time = c->auth_time };

	ck_assert_int_eq(session_judge(&ask, &row, NOW), c->want);
	if (!c->live)
		ck_assert_int_eq(session_judge(&ask, NULL, NOW), c->want);
}
END_TEST

/* ---- starting, finding, ending ---- */

START_TEST(test_begin_new)
{
	int64_t before = now_ms();
	char hash[SECRET_HASH_LEN + 1];

	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	ck_assert_int_eq(strlen(fx.b[0].secret), 43);
	ck_assert_ptr_nonnull(fx.b[0].sid);
	ck_assert_str_ne(fx.b[0].sid, fx.b[0].secret);
	crypto_hash_secret(fx.b[0].secret, strlen(fx.b[0].secret), hash);
	/* stored by hash, never by value */
	ck_assert_str_eq(sql_text("SELECT id FROM sessions WHERE secret_hash = %Q", hash),
	                 fx.b[0].sid);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM sessions WHERE secret_hash = %Q OR id = %Q",
	                          fx.b[0].secret, fx.b[0].secret), "0");
	ck_assert_str_eq(sql_text("SELECT user_id || ' ' || project_id FROM sessions WHERE id = %Q",
	                          fx.b[0].sid),
	                 sql_text("SELECT %Q || ' ' || %Q", fx.ann, fx.p.project_id));
	ck_assert_int_ge(fx.b[0].auth_time, before);
	ck_assert_str_eq(sql_text("SELECT expires_at - auth_time = 28800000 AND auth_time = %lld"
	                          " FROM sessions WHERE id = %Q", (long long)fx.b[0].auth_time,
	                          fx.b[0].sid), "1");
	ck_assert_str_eq(sql_text("SELECT client_id FROM session_clients WHERE session_id = %Q",
	                          fx.b[0].sid), fx.app);
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 1);
	ck_assert_str_eq(fx.l.row.id, fx.b[0].sid);
	ck_assert_str_eq(fx.l.row.user_id, fx.ann);
	ck_assert_int_eq(fx.l.row.auth_time, fx.b[0].auth_time);
	/* a second start without the cookie: another session */
	ck_assert_int_eq(begin(1, fx.ann, NULL), 0);
	ck_assert_str_ne(fx.b[1].sid, fx.b[0].sid);
	ck_assert_str_ne(fx.b[1].secret, fx.b[0].secret);
}
END_TEST

/* The same user's live session goes on under the new value: same sid,
 * auth_time now, the old value stops, its sign-ins stay. */
START_TEST(test_begin_continues)
{
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	refresh_in(fx.b[0].sid, "r1");
	exec_sql("UPDATE sessions SET auth_time = 5, expires_at = %lld", (long long)now_ms() + 1000);
	ck_assert_int_eq(begin(1, fx.ann, fx.b[0].secret), 0);
	ck_assert_str_eq(fx.b[1].sid, fx.b[0].sid);
	ck_assert_str_ne(fx.b[1].secret, fx.b[0].secret);
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 0);
	ck_assert_int_eq(find(fx.b[1].secret, fx.p.project_id), 1);
	ck_assert_int_eq(fx.l.row.auth_time, fx.b[1].auth_time);
	ck_assert_int_eq(fx.l.row.expires_at, fx.b[1].auth_time + 28800000LL);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM sessions"), "1");
	ck_assert_str_eq(sql_text("SELECT revoked_at IS NULL FROM refresh_tokens"), "1");
}
END_TEST

/* Another user's session ends as by logout: its sign-ins are revoked. */
START_TEST(test_begin_ends_another_users)
{
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	refresh_in(fx.b[0].sid, "r1");
	ck_assert_int_eq(begin(1, fx.bob, fx.b[0].secret), 0);
	ck_assert_str_ne(fx.b[1].sid, fx.b[0].sid);
	ck_assert_str_eq(sql_text("SELECT ended_at IS NOT NULL FROM sessions WHERE id = %Q",
	                          fx.b[0].sid), "1");
	ck_assert_str_eq(sql_text("SELECT revoked_at IS NOT NULL FROM refresh_tokens"), "1");
	ck_assert_str_eq(sql_text("SELECT count(*) FROM revoked_tokens WHERE jti = 'r1'"), "1");
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 0);
	ck_assert_int_eq(find(fx.b[1].secret, fx.p.project_id), 1);
	ck_assert_str_eq(fx.l.row.user_id, fx.bob);
}
END_TEST

/* An old cookie that names no live session (unknown, expired, another
 * project's) is no session: a new one, and the old row untouched. */
START_TEST(test_begin_old_not_live)
{
	ck_assert_int_eq(begin(0, fx.ann, "never-a-session"), 0);
	ck_assert_int_eq(begin(1, fx.ann, NULL), 0);
	exec_sql("UPDATE sessions SET expires_at = 1 WHERE id = %Q", fx.b[1].sid);
	ck_assert_int_eq(begin(2, fx.bob, fx.b[1].secret), 0);
	ck_assert_str_ne(fx.b[2].sid, fx.b[1].sid);
	ck_assert_str_eq(sql_text("SELECT ended_at IS NULL FROM sessions WHERE id = %Q",
	                          fx.b[1].sid), "1");   /* expiry is no end */
}
END_TEST

/* A user deleted or deactivated since the password check starts nothing,
 * and the old session of another user it would have ended goes on. */
START_TEST(test_begin_user_gone)
{
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	exec_sql("UPDATE users SET is_active = 0 WHERE id = %Q", fx.bob);
	ck_assert_int_eq(begin(1, fx.bob, fx.b[0].secret), -1);
	ck_assert_ptr_null(fx.b[1].sid);
	ck_assert_int_eq(begin(2, "no such user", NULL), -1);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM sessions"), "1");
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 1);
}
END_TEST

START_TEST(test_find_none)
{
	ck_assert_int_eq(find(NULL, fx.p.project_id), 0);
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	ck_assert_int_eq(find(fx.b[0].secret, "another project"), 0);
	ck_assert_int_eq(find("tampered", fx.p.project_id), 0);
	exec_sql("UPDATE users SET is_active = 0 WHERE id = %Q", fx.ann);   /* the trigger ends it */
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 0);
	ck_assert_int_eq(begin(1, fx.bob, NULL), 0);
	exec_sql("UPDATE sessions SET expires_at = %lld WHERE id = %Q", (long long)now_ms(),
	         fx.b[1].sid);
	ck_assert_int_eq(find(fx.b[1].secret, fx.p.project_id), 0);
	/* a row another tool wrote for an inactive user is not live either */
	ck_assert_int_eq(begin(2, fx.bob, NULL), 0);
	exec_sql("DROP TRIGGER users_deactivated_end");
	exec_sql("UPDATE users SET is_active = 0 WHERE id = %Q", fx.bob);
	ck_assert_int_eq(find(fx.b[2].secret, fx.p.project_id), 0);
}
END_TEST

/* 1: it ended a session, 0: none, -1: failed */
static int end(const char *id, const char *project_id, const char *user_id)
{
	struct sync_result r;
	bool ended = true;

	store_session_end(fx.srv.store, id, project_id, user_id, NULL, &ended, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : ended;
}

START_TEST(test_end)
{
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	refresh_in(fx.b[0].sid, "r1");
	ck_assert_int_eq(end(fx.b[0].sid, fx.p.project_id, fx.bob), 0);      /* not bob's */
	ck_assert_int_eq(end(fx.b[0].sid, "another project", NULL), 0);
	ck_assert_int_eq(end("no such session", fx.p.project_id, NULL), 0);
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 1);
	ck_assert_int_eq(end(fx.b[0].sid, fx.p.project_id, fx.ann), 1);
	ck_assert_int_eq(find(fx.b[0].secret, fx.p.project_id), 0);
	ck_assert_str_eq(sql_text("SELECT revoked_at IS NOT NULL FROM refresh_tokens"), "1");
	ck_assert_int_eq(end(fx.b[0].sid, fx.p.project_id, NULL), 0);   /* again: nothing */
}
END_TEST

static int add_client(const char *sid)
{
	struct sync_result r;

	store_session_add_client(fx.srv.store, sid, fx.app, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : 0;
}

START_TEST(test_add_client)
{
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	ck_assert_int_eq(add_client(fx.b[0].sid), 0);   /* recorded at start: once */
	ck_assert_str_eq(sql_text("SELECT count(*) FROM session_clients"), "1");
	exec_sql("DELETE FROM session_clients");
	ck_assert_int_eq(end(fx.b[0].sid, fx.p.project_id, NULL), 1);
	ck_assert_int_eq(add_client(fx.b[0].sid), 0);   /* an ended session takes no client */
	ck_assert_str_eq(sql_text("SELECT count(*) FROM session_clients"), "0");
}
END_TEST

START_TEST(test_purge)
{
	struct api_error err;

	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
	ck_assert_int_eq(begin(1, fx.ann, NULL), 0);
	ck_assert_int_eq(begin(2, fx.bob, NULL), 0);
	exec_sql("UPDATE sessions SET expires_at = 10 WHERE id = %Q", fx.b[0].sid);
	ck_assert_int_eq(end(fx.b[1].sid, fx.p.project_id, NULL), 1);
	ck_assert_int_eq(store_session_purge(fx.srv.store, 1, now_ms(), &err), 1);   /* a batch */
	ck_assert_int_eq(store_session_purge(fx.srv.store, 10, now_ms(), &err), 1);
	ck_assert_int_eq(store_session_purge(fx.srv.store, 10, now_ms(), &err), 0);
	ck_assert_str_eq(sql_text("SELECT id FROM sessions"), fx.b[2].sid);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM session_clients"), "1");
}
END_TEST

START_TEST(test_store_failure)
{
	exec_sql("ALTER TABLE sessions RENAME TO sessions_away");
	ck_assert_int_eq(begin(0, fx.ann, NULL), -1);
	ck_assert_ptr_null(fx.b[0].sid);
	ck_assert_int_eq(find("x", fx.p.project_id), -1);
	ck_assert_int_eq(fx.l.row.found, 0);
	exec_sql("ALTER TABLE sessions_away RENAME TO sessions");
	ck_assert_int_eq(begin(0, fx.ann, NULL), 0);
}
END_TEST

START_TEST(test_confirm_value)
{
	char a[SECRET_HASH_LEN + 1], b[SECRET_HASH_LEN + 1], hash[SECRET_HASH_LEN + 1];

	session_confirm_value("cookie", a);
	session_confirm_value("cookie", b);
	ck_assert_str_eq(a, b);
	crypto_hash_secret("cookie", 6, hash);
	ck_assert_str_ne(a, hash);   /* not what the store holds */
	session_confirm_value("cookie2", b);
	ck_assert_str_ne(a, b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("session");
	TCase *pure = tcase_create("cookie and verdict");
	TCase *store = check_tcase("store", setup, teardown);

	tcase_add_test(pure, test_cookie_name);
	tcase_add_loop_test(pure, test_cookie_value, 0, N_ELEMS(cookie_cases));
	tcase_add_test(pure, test_cookie_header);
	tcase_add_loop_test(pure, test_ask_read, 0, N_ELEMS(ask_cases));
	tcase_add_loop_test(pure, test_judge, 0, N_ELEMS(judge_cases));
	tcase_add_test(pure, test_confirm_value);
	suite_add_tcase(s, pure);
	tcase_add_test(store, test_begin_new);
	tcase_add_test(store, test_begin_continues);
	tcase_add_test(store, test_begin_ends_another_users);
	tcase_add_test(store, test_begin_old_not_live);
	tcase_add_test(store, test_begin_user_gone);
	tcase_add_test(store, test_find_none);
	tcase_add_test(store, test_end);
	tcase_add_test(store, test_add_client);
	tcase_add_test(store, test_purge);
	tcase_add_test(store, test_store_failure);
	suite_add_tcase(s, store);
	return check_run(srunner_create(s));
}
