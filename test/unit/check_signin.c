/*
 * The sign-in service (signin.c) without a socket: the outcomes, the
 * throttle's order (refused before any look-up or hash), attempts counted
 * when their check is queued, what a success and a full queue take back,
 * the dummy hash of an unknown account, the session a sign-in starts and
 * the code it carries, the silent sign-in of a live session (single
 * sign-on) and its verdicts, the OIDC scopes a code stores; and the store's
 * reads sign-in and BYOU codes make. A real SQLite store, worker pool and
 * throttle tables, fresh for each test.
 */
#include <check.h>
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>

#include "config.h"
#include "crypto.h"
#include "passwords.h"
#include "server.h"
#include "session.h"
#include "signin.h"
#include "store_projects.h"
#include "store.h"
#include "store_clients.h"
#include "store_tokens.h"
#include "store_users.h"
#include "throttle.h"
#include "util.h"

#define REDIRECT "https://app.example/cb"
#define CHALLENGE "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
#define PASSWORD "correct horse"
#define EMAIL "Ann@Example.com"

/* One sign-in: what it is asked, its state, and how it ended. */
struct attempt {
	struct signin_request in;
	struct signin s;
	struct signin_result out;
	struct sync_result r;
	bool started;
};

static struct {
	char dir[64];
	struct config cfg;
	struct server srv;
	struct new_project p;
	char *app;            /* a client of the project with REDIRECT */
	char *user;           /* EMAIL, PASSWORD, active */
	struct attempt a[4];
	struct signin_silent silent;
	struct signin_silent_request silent_in;
	enum signin_silent_outcome silent_outcome;
	char *silent_code;
} fx;

#define exec_sql(...) check_sql(sqlite_of(fx.srv.store)->db, __VA_ARGS__)
#define sql_text(...) check_sql_text(sqlite_of(fx.srv.store)->db, __VA_ARGS__)

/* The counters with these limits (max_failures, per account, per address). */
static void limits(int pair, int account, int address)
{
	throttle_free(fx.srv.signin_account_addresses);
	throttle_free(fx.srv.signin_accounts);
	throttle_free(fx.srv.signin_addresses);
	fx.srv.signin_account_addresses = throttle_new(64, pair, 60);
	fx.srv.signin_accounts = throttle_new(64, account, 60);
	fx.srv.signin_addresses = throttle_new(64, address, 60);
}

static void on_hashed(void *arg, char *encoded)
{
	*(char **)arg = encoded;
}

/* PASSWORD's hash, made on the pool as the users API makes it. */
static char *password_hash(void)
{
	struct api_error err;
	char *encoded = NULL;

	ck_assert_int_eq(passwords_hash(fx.srv.passwords, PASSWORD, on_hashed, &encoded, &err), 0);
	while (!encoded)
		event_base_loop(fx.srv.base, EVLOOP_ONCE);
	return encoded;
}

static void setup(void)
{
	struct api_error err;
	char *hash;

	memset(&fx, 0, sizeof fx);
	config_init(&fx.cfg);
	fx.cfg.argon2_memory_kib = 64;
	fx.cfg.argon2_iterations = 1;
	fx.cfg.hash_threads = 1;
	fx.srv.cfg = &fx.cfg;
	fx.srv.base = event_base_new();
	fx.srv.passwords = passwords_new(fx.srv.base, &fx.cfg);
	fx.srv.store = check_store_new("check_signin", fx.dir);
	limits(10, 100, 100);
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	fx.app = crypto_new_id();
	fx.user = crypto_new_id();
	exec_sql("INSERT INTO clients (id, project_id, name, secret_hash, redirect_uris,"
	         " created_at, updated_at) VALUES (%Q, %Q, 'app', 'x', '[\"" REDIRECT "\"]', 1, 1)",
	         fx.app, fx.p.project_id);
	hash = password_hash();
	exec_sql("INSERT INTO users (id, project_id, display_name, email, password_hash,"
	         " external_user_id, created_at, updated_at)"
	         " VALUES (%Q, %Q, 'Ann', %Q, %Q, 'ext-1', 1, 1)",
	         fx.user, fx.p.project_id, EMAIL, hash);
	free(hash);
}

/* Every test ends with no open transaction and every statement reset. */
static void statements_finished(const struct stmt_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		ck_assert_int_eq(sqlite3_stmt_busy(set->stmt[i]), 0);
}

static void teardown(void)
{
	passwords_free(fx.srv.passwords);   /* runs what is still queued */
	ck_assert_int_ne(sqlite3_get_autocommit(sqlite_of(fx.srv.store)->db), 0);
	statements_finished(&sqlite_of(fx.srv.store)->users);
	statements_finished(&sqlite_of(fx.srv.store)->clients);
	statements_finished(&sqlite_of(fx.srv.store)->tokens);
	statements_finished(&sqlite_of(fx.srv.store)->sessions);
	for (size_t i = 0; i < N_ELEMS(fx.a); i++) {
		signin_release(&fx.a[i].s);
		signin_result_release(&fx.a[i].out);
	}
	signin_silent_release(&fx.silent);
	crypto_free_wiped(fx.silent_code);
	throttle_free(fx.srv.signin_account_addresses);
	throttle_free(fx.srv.signin_accounts);
	throttle_free(fx.srv.signin_addresses);
	store_new_project_release(&fx.p);
	check_store_remove(fx.srv.store, fx.dir);
	event_base_free(fx.srv.base);
	config_release(&fx.cfg);
	free(fx.app);
	free(fx.user);
}

/* Starts sign-in i of email with password from address; returns whether it
 * has already ended (then no hash was queued: a hash ends on the loop). The
 * sign-in sends the cookie fx.a[i].in.session_cookie held before (set it
 * between start and start: it is kept). */
static bool start(size_t i, const char *email, const char *password, const char *address)
{
	struct attempt *a = &fx.a[i];
	const char *cookie = a->in.session_cookie;

	signin_release(&a->s);
	signin_result_release(&a->out);
	a->in = (struct signin_request){
		.project_id = fx.p.project_id, .client_id = fx.app, .redirect_uri = REDIRECT,
		.code_challenge = CHALLENGE, .scope = "openid email", .nonce = "n-1",
		.email = email, .password = password, .address = address,
		.session_cookie = cookie,
	};
	signin_run(&a->s, &fx.srv, &a->in, &a->out, sync_completion(&a->r));
	a->started = true;
	return a->r.done;
}

/* Runs the loop until sign-in i has ended; returns its outcome (-1: the
 * sign-in failed, its error in fx.a[i].r.err). */
static int finish(size_t i)
{
	struct attempt *a = &fx.a[i];

	ck_assert(a->started);
	while (!a->r.done)
		event_base_loop(fx.srv.base, EVLOOP_ONCE);
	return a->r.failed ? -1 : (int)a->out.outcome;
}

/* A whole sign-in from 127.0.0.1. */
static int sign_in(const char *email, const char *password)
{
	start(0, email, password, "127.0.0.1");
	return finish(0);
}

START_TEST(test_signed_in_with_a_code)
{
	char hash[SECRET_HASH_LEN + 1];
	struct store_token_row g;
	struct sync_result r;

	ck_assert(!start(0, "ann@EXAMPLE.com", PASSWORD, "127.0.0.1"));   /* waits on a hash */
	ck_assert_int_eq(finish(0), SIGNIN_SIGNED_IN);
	ck_assert_ptr_nonnull(fx.a[0].out.code);
	crypto_hash_secret(fx.a[0].out.code, strlen(fx.a[0].out.code), hash);
	store_code_get(fx.srv.store, hash, &g, sync_completion(&r));
	ck_assert(r.done && !r.failed && g.found);
	ck_assert_str_eq(g.project_id, fx.p.project_id);
	ck_assert_str_eq(g.client_id, fx.app);
	ck_assert_str_eq(g.user_id, fx.user);
	ck_assert_str_eq(g.redirect_uri, REDIRECT);
	ck_assert_str_eq(g.code_challenge, CHALLENGE);
	ck_assert(!g.used);
	store_token_row_release(&g);
}
END_TEST

/* A wrong password, an inactive user and an unknown account end alike. */
START_TEST(test_refused)
{
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_ptr_null(fx.a[0].out.code);
	exec_sql("UPDATE users SET is_active = 0");
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_REFUSED);
	ck_assert_ptr_null(fx.a[0].out.code);
}
END_TEST

/* An unknown account costs a hash all the same: the sign-in waits on the
 * pool, so its time does not tell that the account does not exist. */
START_TEST(test_unknown_account_costs_a_hash)
{
	ck_assert(!start(0, "nobody@example.com", PASSWORD, "127.0.0.1"));
	ck_assert_int_eq(finish(0), SIGNIN_REFUSED);
}
END_TEST

/* The audit trail: a success rides the session's transaction; a refusal
 * names the user the email names, or none (never the typed email); the
 * attempt that reaches a limit records the throttle, once. All by the
 * client, from the address. */
START_TEST(test_events)
{
	sqlite3 *db = sqlite_of(fx.srv.store)->db;
	char *want;

	limits(3, 100, 100);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	want = xasprintf("%s %s 127.0.0.1 success %s", fx.app, fx.user, fx.p.project_id);
	ck_assert_str_eq(check_sql_text(db, "SELECT actor || ' ' || target || ' ' || address"
	                                " || ' ' || outcome || ' ' || project_id FROM events"
	                                " WHERE action = 'signin.success'"), want);
	free(want);
	ck_assert_int_eq(sign_in("nobody@example.com", "typed"), SIGNIN_REFUSED);
	ck_assert_str_eq(check_sql_text(db, "SELECT count(*) FROM events WHERE action ="
	                                " 'signin.failure' AND target IS NULL"), "1");
	ck_assert_str_eq(check_sql_text(db, "SELECT count(*) FROM events WHERE"
	                                " instr(coalesce(target, ''), 'nobody') > 0"), "0");
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_THROTTLED);
	ck_assert_str_eq(check_sql_text(db, "SELECT count(*) FROM events WHERE action ="
	                                " 'signin.failure' AND target = %Q", fx.user), "3");
	want = xasprintf("%s throttled", fx.user);
	ck_assert_str_eq(check_sql_text(db, "SELECT group_concat(target || ' ' || outcome) FROM"
	                                " events WHERE action = 'signin.throttled'"), want);
	free(want);
}
END_TEST

/* Past a limit: refused before the user is looked up or a hash queued. */
START_TEST(test_throttle_comes_first)
{
	limits(2, 100, 100);
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_int_eq(sign_in("ann@example.COM", "wrong"), SIGNIN_REFUSED);
	exec_sql("ALTER TABLE users RENAME TO users_away");   /* a look-up would fail */
	ck_assert(start(0, EMAIL, PASSWORD, "127.0.0.1"));     /* ended: no hash */
	ck_assert_int_eq(finish(0), SIGNIN_THROTTLED);
	ck_assert_int_ge(fx.a[0].out.retry_after_s, 1);
	ck_assert_int_le(fx.a[0].out.retry_after_s, 60);
	exec_sql("ALTER TABLE users_away RENAME TO users");
	/* the pair is throttled, not the account elsewhere or the address */
	start(1, EMAIL, PASSWORD, "127.0.0.2");
	ck_assert_int_eq(finish(1), SIGNIN_SIGNED_IN);
}
END_TEST

/* Each counter refuses on its own: two failures counted under its key, then
 * a third sign-in (the right password) that shares only that key. */
static const struct counter_case {
	int pair, account, address;   /* the limits */
	const char *who[3][2];        /* email and address of each sign-in */
} counter_cases[] = {
	{ 2, 100, 100, { { EMAIL, "127.0.0.2" }, { EMAIL, "127.0.0.2" }, { EMAIL, "127.0.0.2" } } },
	/* the account from every address */
	{ 100, 2, 100, { { EMAIL, "127.0.0.2" }, { EMAIL, "127.0.0.3" }, { EMAIL, "127.0.0.4" } } },
	/* the address for every account */
	{ 100, 100, 2, { { "x@example.com", "127.0.0.5" }, { "y@example.com", "127.0.0.5" },
	                 { EMAIL, "127.0.0.5" } } },
};

START_TEST(test_throttle_counters)
{
	const struct counter_case *c = &counter_cases[_i];

	limits(c->pair, c->account, c->address);
	for (size_t i = 0; i < 2; i++) {
		start(i, c->who[i][0], "wrong", c->who[i][1]);
		ck_assert_int_eq(finish(i), SIGNIN_REFUSED);
	}
	start(2, c->who[2][0], PASSWORD, c->who[2][1]);
	ck_assert_int_eq(finish(2), SIGNIN_THROTTLED);
}
END_TEST

/* An attempt counts when its check is queued: a second guess sent while
 * the first is still hashing is refused unchecked. */
START_TEST(test_counted_when_queued)
{
	limits(1, 100, 100);
	ck_assert(!start(0, EMAIL, "wrong", "127.0.0.1"));
	ck_assert(start(1, EMAIL, PASSWORD, "127.0.0.1"));
	ck_assert_int_eq(finish(1), SIGNIN_THROTTLED);
	ck_assert_int_eq(finish(0), SIGNIN_REFUSED);
}
END_TEST

/* A success wipes the account's counts and takes its own back from the
 * address's. */
START_TEST(test_success_resets)
{
	limits(2, 2, 2);
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	/* account: one failure since the success; address: two failures */
	ck_assert_int_eq(sign_in("other@example.com", PASSWORD), SIGNIN_THROTTLED);
}
END_TEST

/* A full hash queue: SIGNIN_BUSY at once, and the attempt is taken back. */
START_TEST(test_busy_is_taken_back)
{
	passwords_free(fx.srv.passwords);
	fx.cfg.max_pending_hashes = 1;
	fx.srv.passwords = passwords_new(fx.srv.base, &fx.cfg);
	limits(2, 100, 100);
	ck_assert(!start(0, EMAIL, "wrong", "127.0.0.1"));
	ck_assert(start(1, EMAIL, "wrong", "127.0.0.1"));
	ck_assert_int_eq(finish(1), SIGNIN_BUSY);
	ck_assert_str_eq(fx.a[1].out.err.code, "temporarily_unavailable");
	ck_assert_int_eq(fx.a[1].out.err.status, 503);
	ck_assert_int_eq(finish(0), SIGNIN_REFUSED);
	/* one failure counted, not two: a second wrong password is checked */
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_THROTTLED);
}
END_TEST

/* A store that fails the look-up fails the sign-in, and nothing counts. */
START_TEST(test_store_failure)
{
	limits(1, 100, 100);
	exec_sql("ALTER TABLE users RENAME TO users_away");
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), -1);
	ck_assert_str_eq(fx.a[0].r.err.code, "system_error");
	exec_sql("ALTER TABLE users_away RENAME TO users");
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
}
END_TEST

/* The password was right but no code could be stored: SIGNIN_NO_CODE, no
 * code handed out, and the success still resets the counts. */
START_TEST(test_no_code)
{
	limits(2, 100, 100);
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	exec_sql("CREATE TRIGGER no_codes BEFORE INSERT ON auth_codes"
	         " BEGIN SELECT RAISE(FAIL, 'no'); END");
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_NO_CODE);
	ck_assert_ptr_null(fx.a[0].out.code);
	exec_sql("DROP TRIGGER no_codes");
	ck_assert_int_eq(sign_in(EMAIL, "wrong"), SIGNIN_REFUSED);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
}
END_TEST

/* ---- sessions ---- */

/* The code's row (found or not). */
static void code_row(const char *code, struct store_token_row *g)
{
	char hash[SECRET_HASH_LEN + 1];
	struct sync_result r;

	crypto_hash_secret(code, strlen(code), hash);
	store_code_get(fx.srv.store, hash, g, sync_completion(&r));
	ck_assert(r.done && !r.failed && g->found);
}

/* A password sign-in starts a session: its cookie value comes back, and
 * the code carries its id, its auth_time, the OIDC scope and the nonce. */
START_TEST(test_signed_in_with_a_session)
{
	struct store_token_row g;
	struct sync_result r;
	struct session_lookup l = { 0 };
	int64_t before = now_ms();

	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	ck_assert_ptr_nonnull(fx.a[0].out.session_secret);
	session_find(&l, &fx.srv, fx.a[0].out.session_secret, fx.p.project_id, sync_completion(&r));
	ck_assert(r.done && !r.failed && l.row.found);
	ck_assert_str_eq(l.row.user_id, fx.user);
	ck_assert_int_ge(l.row.auth_time, before);
	code_row(fx.a[0].out.code, &g);
	ck_assert_str_eq(g.session_id, l.row.id);
	ck_assert_int_eq(g.auth_time, l.row.auth_time);
	ck_assert_str_eq(g.scope, "openid email");
	ck_assert_str_eq(g.nonce, "n-1");
	ck_assert_str_eq(sql_text("SELECT client_id FROM session_clients"), fx.app);
	store_token_row_release(&g);
	session_lookup_release(&l);
}
END_TEST

/* Signing in again with the cookie: the same session, a new value. */
START_TEST(test_signed_in_again_same_session)
{
	struct store_token_row g1, g2;
	char *first;

	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	first = xstrdup(fx.a[0].out.session_secret);
	code_row(fx.a[0].out.code, &g1);
	fx.a[0].in.session_cookie = first;
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	ck_assert_str_ne(fx.a[0].out.session_secret, first);
	code_row(fx.a[0].out.code, &g2);
	ck_assert_str_eq(g2.session_id, g1.session_id);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM sessions"), "1");
	fx.a[0].in.session_cookie = NULL;
	store_token_row_release(&g1);
	store_token_row_release(&g2);
	free(first);
}
END_TEST

/* A session that cannot be stored: no code, no cookie, SIGNIN_NO_CODE. */
START_TEST(test_no_session)
{
	exec_sql("CREATE TRIGGER no_sessions BEFORE INSERT ON sessions"
	         " BEGIN SELECT RAISE(FAIL, 'no'); END");
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_NO_CODE);
	ck_assert_ptr_null(fx.a[0].out.code);
	ck_assert_ptr_null(fx.a[0].out.session_secret);
	ck_assert_str_eq(sql_text("SELECT count(*) FROM auth_codes"), "0");
}
END_TEST

/* A silent sign-in with cookie (NULL: none) and prompt/max_age; returns
 * its outcome, or -1 when it failed. */
static int silent(const char *cookie, const char *prompt, const char *max_age)
{
	struct sync_result r;
	const char *why;

	signin_silent_release(&fx.silent);
	crypto_free_wiped(fx.silent_code);
	fx.silent_in = (struct signin_silent_request){
		.project_id = fx.p.project_id, .client_id = fx.app, .redirect_uri = REDIRECT,
		.code_challenge = CHALLENGE, .scope = "openid", .nonce = "n-2",
		.session_cookie = cookie,
	};
	ck_assert_int_eq(session_ask_read(prompt, max_age, &fx.silent_in.ask, &why), 0);
	signin_silent_run(&fx.silent, &fx.srv, &fx.silent_in, &fx.silent_outcome, &fx.silent_code,
	                  sync_completion(&r));
	ck_assert(r.done);   /* no hash: it ends at once on SQLite */
	if (fx.silent_outcome != SILENT_SIGNED_IN)
		ck_assert_ptr_null(fx.silent_code);
	return r.failed ? -1 : (int)fx.silent_outcome;
}

START_TEST(test_silent)
{
	struct store_token_row g, first;
	const char *cookie;

	ck_assert_int_eq(silent(NULL, NULL, NULL), SILENT_FORM);
	ck_assert_int_eq(silent(NULL, "none", NULL), SILENT_LOGIN_REQUIRED);
	ck_assert_int_eq(silent("no such session", "none", NULL), SILENT_LOGIN_REQUIRED);
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	code_row(fx.a[0].out.code, &first);
	cookie = fx.a[0].out.session_secret;
	exec_sql("DELETE FROM session_clients");
	ck_assert_int_eq(silent(cookie, NULL, NULL), SILENT_SIGNED_IN);
	code_row(fx.silent_code, &g);
	ck_assert_str_eq(g.session_id, first.session_id);
	ck_assert_int_eq(g.auth_time, first.auth_time);   /* the password's, not now */
	ck_assert_str_eq(g.user_id, fx.user);
	ck_assert_str_eq(g.scope, "openid");
	ck_assert_str_eq(g.nonce, "n-2");
	ck_assert_str_eq(g.redirect_uri, REDIRECT);
	ck_assert_str_eq(g.code_challenge, CHALLENGE);
	ck_assert_str_eq(sql_text("SELECT client_id FROM session_clients"), fx.app);
	store_token_row_release(&g);
	ck_assert_int_eq(silent(cookie, "none", "3600"), SILENT_SIGNED_IN);
	ck_assert_int_eq(silent(cookie, "login", NULL), SILENT_FORM);
	ck_assert_int_eq(silent(cookie, NULL, "0"), SILENT_FORM);
	ck_assert_int_eq(silent(cookie, "none", "0"), SILENT_LOGIN_REQUIRED);
	exec_sql("UPDATE sessions SET auth_time = auth_time - 10000");
	ck_assert_int_eq(silent(cookie, NULL, "9"), SILENT_FORM);
	ck_assert_int_eq(silent(cookie, NULL, "11"), SILENT_SIGNED_IN);
	store_token_row_release(&first);
}
END_TEST

/* A code that cannot be stored: SILENT_NO_CODE, no code; a look-up that
 * fails fails the silent sign-in. */
START_TEST(test_silent_failures)
{
	ck_assert_int_eq(sign_in(EMAIL, PASSWORD), SIGNIN_SIGNED_IN);
	exec_sql("CREATE TRIGGER no_codes BEFORE INSERT ON auth_codes"
	         " BEGIN SELECT RAISE(FAIL, 'no'); END");
	ck_assert_int_eq(silent(fx.a[0].out.session_secret, NULL, NULL), SILENT_NO_CODE);
	exec_sql("DROP TRIGGER no_codes");
	exec_sql("ALTER TABLE sessions RENAME TO sessions_away");
	ck_assert_int_eq(silent(fx.a[0].out.session_secret, NULL, NULL), -1);
	ck_assert_str_eq(fx.silent.flow.err.code, "system_error");
	exec_sql("ALTER TABLE sessions_away RENAME TO sessions");
	/* an ended session signs no one in */
	exec_sql("UPDATE sessions SET ended_at = 1");
	ck_assert_int_eq(silent(fx.a[0].out.session_secret, NULL, NULL), SILENT_FORM);
}
END_TEST

static const struct scope_case {
	const char *scope, *want;   /* want NULL: plain OAuth */
} scope_cases[] = {
	{ NULL, NULL },
	{ "", NULL },
	{ "profile email", NULL },                    /* no openid: plain OAuth */
	{ "openid", "openid" },
	{ "roles email openid profile", "openid profile email roles" },
	{ "openid openid  email orders:read", "openid email" },
	{ "OpenID email", NULL },                     /* values are case-sensitive */
	{ "openidx profile", NULL },
	{ " openid", "openid" },
};

START_TEST(test_oidc_scope)
{
	const struct scope_case *c = &scope_cases[_i];
	char *got = signin_oidc_scope(c->scope);

	if (c->want)
		ck_assert_msg(got && !strcmp(got, c->want), "case %d: %s", _i, got ? got : "NULL");
	else
		ck_assert_msg(!got, "case %d: %s", _i, got);
	free(got);
}
END_TEST

/* ---- the store's reads ---- */

static int user_read(bool byou, const char *project_id, const char *key, struct store_user_signin *u)
{
	struct sync_result r;

	if (byou)
		store_byou_user(fx.srv.store, project_id, key, u, sync_completion(&r));
	else
		store_signin_user(fx.srv.store, project_id, key, u, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : u->found;
}

START_TEST(test_store_signin_user)
{
	struct store_user_signin u;

	ck_assert_int_eq(user_read(false, fx.p.project_id, "ANN@example.com", &u), 1);
	ck_assert_str_eq(u.user_id, fx.user);
	ck_assert(u.is_active);
	ck_assert(strncmp(u.password_hash, "$argon2id$", 10) == 0);
	store_user_signin_release(&u);
	ck_assert_int_eq(user_read(false, "another project", EMAIL, &u), 0);
	ck_assert_ptr_null(u.user_id);
	ck_assert_int_eq(user_read(false, fx.p.project_id, "ann@example.co", &u), 0);
	exec_sql("UPDATE users SET is_active = 0");
	ck_assert_int_eq(user_read(false, fx.p.project_id, EMAIL, &u), 1);
	ck_assert(!u.is_active);
	store_user_signin_release(&u);
}
END_TEST

/* A BYOU user by external ID, case-sensitive; its hash is not read. */
START_TEST(test_store_byou_user)
{
	struct store_user_signin u;

	ck_assert_int_eq(user_read(true, fx.p.project_id, "ext-1", &u), 1);
	ck_assert_str_eq(u.user_id, fx.user);
	ck_assert(u.is_active);
	ck_assert_ptr_null(u.password_hash);
	store_user_signin_release(&u);
	ck_assert_int_eq(user_read(true, fx.p.project_id, "EXT-1", &u), 0);
	ck_assert_int_eq(user_read(true, "another project", "ext-1", &u), 0);
	exec_sql("ALTER TABLE users RENAME TO users_away");
	ck_assert_int_eq(user_read(true, fx.p.project_id, "ext-1", &u), -1);
	ck_assert_int_eq(user_read(false, fx.p.project_id, EMAIL, &u), -1);
	exec_sql("ALTER TABLE users_away RENAME TO users");
}
END_TEST

static int registered(const char *client_id, const char *uri)
{
	struct sync_result r;
	bool yes = true;

	store_client_redirect_registered(fx.srv.store, client_id, uri, &yes, sync_completion(&r));
	ck_assert(r.done);
	return r.failed ? -1 : yes;
}

START_TEST(test_store_redirect_registered)
{
	ck_assert_int_eq(registered(fx.app, REDIRECT), 1);
	ck_assert_int_eq(registered(fx.app, REDIRECT "/"), 0);   /* matched exactly */
	ck_assert_int_eq(registered(fx.app, "https://APP.example/cb"), 0);
	ck_assert_int_eq(registered("nobody", REDIRECT), 0);
	exec_sql("UPDATE clients SET redirect_uris = 'not json' WHERE id = %Q", fx.app);
	ck_assert_int_eq(registered(fx.app, REDIRECT), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("signin");
	TCase *tc = check_tcase("signin", setup, teardown);
	TCase *store = check_tcase("store", setup, teardown);

	tcase_add_test(tc, test_signed_in_with_a_code);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_unknown_account_costs_a_hash);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_throttle_comes_first);
	tcase_add_loop_test(tc, test_throttle_counters, 0, N_ELEMS(counter_cases));
	tcase_add_test(tc, test_counted_when_queued);
	tcase_add_test(tc, test_success_resets);
	tcase_add_test(tc, test_busy_is_taken_back);
	tcase_add_test(tc, test_store_failure);
	tcase_add_test(tc, test_no_code);
	tcase_add_test(tc, test_signed_in_with_a_session);
	tcase_add_test(tc, test_signed_in_again_same_session);
	tcase_add_test(tc, test_no_session);
	tcase_add_test(tc, test_silent);
	tcase_add_test(tc, test_silent_failures);
	tcase_add_loop_test(tc, test_oidc_scope, 0, N_ELEMS(scope_cases));
	suite_add_tcase(s, tc);
	tcase_add_test(store, test_store_signin_user);
	tcase_add_test(store, test_store_byou_user);
	tcase_add_test(store, test_store_redirect_registered);
	suite_add_tcase(s, store);
	return check_run(srunner_create(s));
}
