/*
 * The store's contract for tokens and sign-ins, on both backends
 * (issue26.1; store_conform.h runs every case once on SQLite and once on
 * PostgreSQL): a code and a refresh token are used once, the winner's
 * successor stored with the use; the refresh grace; a family revoked
 * whole with its access tokens; the purge and its grace; what token
 * issue and the bearer check read of the holders; sessions; and the
 * caches, good at one stamp, with the stamp moved by a commit.
 *
 * Times are far from every cut-off (minutes, hours), never raced: the
 * PostgreSQL backend judges expiry by the database's clock.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>

#include "store_conform.h"
#include "metrics.h"
#include "jbody.h"
#include "store_clients.h"
#include "store_outbox.h"
#include "store_sessions.h"
#include "store_tokens.h"
#include "store_users.h"

static void code_new(const char *hash, const char *family, const char *user_id,
                     int64_t expires_at)
{
	struct new_code c = {
		.hash = hash, .family_id = family, .project_id = cf.p.project_id,
		.client_id = cf.p.client_id, .user_id = user_id, .redirect_uri = "https://a/cb",
		.code_challenge = "chal", .expires_at = expires_at, .scope = "openid",
		.nonce = "n-1", .auth_time = 1700000000000LL,
	};

	store_code_insert(cf.st, &c, DONE);
	ok();
}

/* A family of one code (prefix-c) and four refresh tokens to issue
 * (prefix-r1.., with access tokens prefix-j1..): names of a test's own,
 * since every test's rows share the backend's database. */
#define CHAIN_LEN 4
struct chain {
	char user[64], family[32], code[32];
	char hash[CHAIN_LEN][32], jti[CHAIN_LEN][32];
	struct new_refresh r[CHAIN_LEN];
};

/* The chain of prefix for a new user, its code stored and unused. */
static void chain_new(struct chain *c, const char *prefix)
{
	char *u = conform_user_new("U");

	snprintf(c->user, sizeof c->user, "%s", u);
	free(u);
	snprintf(c->family, sizeof c->family, "%s-fam", prefix);
	snprintf(c->code, sizeof c->code, "%s-c", prefix);
	for (int i = 0; i < CHAIN_LEN; i++) {
		snprintf(c->hash[i], sizeof c->hash[i], "%s-r%d", prefix, i + 1);
		snprintf(c->jti[i], sizeof c->jti[i], "%s-j%d", prefix, i + 1);
		c->r[i] = (struct new_refresh){
			.hash = c->hash[i], .family_id = c->family, .project_id = cf.p.project_id,
			.client_id = cf.p.client_id, .user_id = c->user, .access_jti = c->jti[i],
			.access_exp_s = time(NULL) + 600, .expires_at = now_ms() + HOUR_MS,
			.scope = "openid", .auth_time = 1700000000000LL,
		};
	}
	code_new(c->code, c->family, c->user, now_ms() + 10 * MINUTE_MS);
}

/* Single use: whether this use of the code (rotation of the refresh
 * token, repeat within the grace since an hour ago) won, storing next. */
static bool redeem(const char *hash, const struct new_refresh *next)
{
	bool won = false;

	store_code_redeem(cf.st, hash, next, &won, DONE);
	ok();
	return won;
}

static bool rotate(const char *hash, const struct new_refresh *next)
{
	bool won = false;

	store_refresh_rotate(cf.st, hash, next, &won, DONE);
	ok();
	return won;
}

static bool regrace(const char *hash, const struct new_refresh *next)
{
	bool won = false;

	store_refresh_regrace(cf.st, hash, now_ms() - HOUR_MS, next, &won, DONE);
	ok();
	return won;
}

/* The code (or refresh token, refresh true) with that hash, into *g. */
static void token_get(bool is_refresh, const char *hash, struct store_token_row *g)
{
	store_token_row_release(g);
	memset(g, 0, sizeof *g);
	if (is_refresh)
		store_refresh_get(cf.st, hash, g, DONE);
	else
		store_code_get(cf.st, hash, g, DONE);
	ok();
}

/* What the store holds of the code (refresh token): "none", or "live",
 * "used" and "revoked" as they apply, space-separated. */
static const char *token_state(bool is_refresh, const char *hash)
{
	static char out[32];
	struct store_token_row g = { 0 };

	token_get(is_refresh, hash, &g);
	snprintf(out, sizeof out, "%s%s%s", !g.found ? "none" : g.used || g.revoked ? "" : "live",
	         g.used ? "used" : "", g.revoked ? (g.used ? " revoked" : "revoked") : "");
	store_token_row_release(&g);
	return out;
}

static bool revoked(const char *jti)
{
	struct store_stamp at;
	bool r = false;

	store_token_is_revoked(cf.st, jti, &r, &at, DONE);
	ok();
	return r;
}

/* Two uses of one code: the first wins and stores its successor, the
 * second changes nothing. */
START_TEST(test_code_single_use)
{
	struct store_token_row g = { 0 };
	struct chain c;

	chain_new(&c, "a");
	token_get(false, "a-c", &g);
	ck_assert(g.found && !g.used && !g.revoked && !g.predates_deactivation);
	ck_assert_str_eq(g.family_id, "a-fam");
	ck_assert_str_eq(g.project_id, cf.p.project_id);
	ck_assert_str_eq(g.client_id, cf.p.client_id);
	ck_assert_str_eq(g.user_id, c.user);
	ck_assert_str_eq(g.redirect_uri, "https://a/cb");
	ck_assert_str_eq(g.code_challenge, "chal");
	ck_assert_str_eq(g.scope, "openid");
	ck_assert_str_eq(g.nonce, "n-1");
	ck_assert_int_eq(g.auth_time, 1700000000000LL);
	ck_assert_int_gt(g.expires_at, now_ms());
	ck_assert_int_eq(g.used_at, 0);
	ck_assert(redeem("a-c", &c.r[0]));
	ck_assert_msg(!redeem("a-c", &c.r[1]), "issue26.1: a code redeemed twice");
	token_get(false, "a-c", &g);
	ck_assert(g.found && g.used && g.used_at > 0);
	ck_assert_str_eq(token_state(true, "a-r1"), "live");
	ck_assert_str_eq(g.family_id, "a-fam");
	ck_assert_str_eq(g.scope, "openid");
	ck_assert_str_eq(token_state(true, "a-r2"), "none");
	ck_assert_str_eq(token_state(false, "no-such-hash"), "none");
	ck_assert(!redeem("no-such-hash", &c.r[2]));
	store_token_row_release(&g);
}
END_TEST

/* A rotation uses the refresh token once; then the family is revoked
 * whole: its refresh tokens and the access tokens issued with them. */
START_TEST(test_refresh_rotation_and_family)
{
	struct chain c;

	chain_new(&c, "b");
	ck_assert(redeem("b-c", &c.r[0]));
	ck_assert(rotate("b-r1", &c.r[1]));
	ck_assert_msg(!rotate("b-r1", &c.r[2]), "issue26.1: a refresh token rotated twice");
	ck_assert_str_eq(token_state(true, "b-r1"), "used");
	ck_assert_str_eq(token_state(true, "b-r3"), "none");
	ck_assert(!revoked("b-j1") && !revoked("b-j2"));
	store_family_revoke(cf.st, "b-fam", NULL, DONE);
	ok();
	ck_assert_str_eq(token_state(true, "b-r2"), "revoked");
	ck_assert(revoked("b-j1") && revoked("b-j2"));
	ck_assert(!revoked("b-j-other"));
	ck_assert(!rotate("b-r2", &c.r[2]));
}
END_TEST

/* The grace: a repeat of a used token within it revokes the successor
 * (and its access token) and stores a new one, once. */
START_TEST(test_refresh_grace)
{
	struct chain c;

	chain_new(&c, "g");
	ck_assert(redeem("g-c", &c.r[0]));
	/* unused: no grace to take */
	ck_assert(!regrace("g-r1", &c.r[2]));
	ck_assert(rotate("g-r1", &c.r[1]));
	ck_assert(regrace("g-r1", &c.r[2]));
	ck_assert_str_eq(token_state(true, "g-r2"), "revoked");
	ck_assert(revoked("g-j2") && !revoked("g-j3"));
	ck_assert_str_eq(token_state(true, "g-r3"), "live");
	ck_assert_msg(!regrace("g-r1", &c.r[3]), "issue26.1: the grace taken twice");
	ck_assert_str_eq(token_state(true, "g-r4"), "none");
}
END_TEST

/* The purge keeps what expired within the grace; a revocation outlives
 * its access token by the grace too. */
START_TEST(test_purge_grace)
{
	char *u = conform_user_new("U");
	long long now_s = time(NULL);
	int n;

	code_new("gone-hash", "f1", u, now_ms() - 2 * HOUR_MS);
	code_new("kept-hash", "f2", u, now_ms() - 30 * MINUTE_MS);
	code_new("live-hash", "f3", u, now_ms() + 30 * MINUTE_MS);
	store_access_revoke(cf.st, "j-gone", now_s - 2 * 3600, NULL, DONE);
	ok();
	store_access_revoke(cf.st, "j-kept", now_s - 30 * 60, NULL, DONE);
	ok();
	n = store_purge_expired(cf.st, 100, now_ms(), HOUR_MS, &cf.err);
	ck_assert_msg(n == 2, "purged %d (%s), expected 2", n, cf.err.description);
	ck_assert_str_eq(token_state(false, "gone-hash"), "none");
	ck_assert_str_eq(token_state(false, "kept-hash"), "live");
	ck_assert_str_eq(token_state(false, "live-hash"), "live");
	ck_assert(!revoked("j-gone"));
	ck_assert(revoked("j-kept"));
	ck_assert_int_eq(store_purge_expired(cf.st, 100, now_ms(), HOUR_MS, &cf.err), 0);
	free(u);
}
END_TEST

/* What token issue reads of a user, and the bearer check of the holders. */
START_TEST(test_holders)
{
	char *u = conform_user_new("Claire");
	struct user_fields off = { .display_name = "Claire", .is_active = 0 };
	struct user_claims c = { 0 };
	char *out = NULL;
	bool yes = false;

	store_user_claims(cf.st, cf.p.project_id, u, &c, DONE);
	ok();
	ck_assert(c.found && c.is_active && c.email_verified);   /* no email to doubt */
	ck_assert_str_eq(c.display_name, "Claire");
	ck_assert_ptr_null(c.email);
	ck_assert_ptr_null(c.role_code);
	ck_assert_int_gt(c.updated_at, 0);
	user_claims_release(&c);
	memset(&c, 0, sizeof c);
	store_user_claims(cf.st, cf.p.project_id, "nope", &c, DONE);
	ok();
	ck_assert(!c.found);
	store_token_holders_ok(cf.st, cf.p.project_id, cf.p.client_id, u, time(NULL) - 60, &yes, DONE);
	ok();
	ck_assert(yes);
	store_token_holders_ok(cf.st, cf.p.project_id, cf.p.client_id, NULL, time(NULL) - 60, &yes,
	                       DONE);
	ok();
	ck_assert(yes);
	store_user_is_active(cf.st, cf.p.project_id, u, &yes, DONE);
	ok();
	ck_assert(yes);
	store_user_update(cf.st, &event_origin_cli, cf.p.project_id, u, &off, NULL, &out, DONE);
	ok();
	free(out);
	store_user_is_active(cf.st, cf.p.project_id, u, &yes, DONE);
	ok();
	ck_assert(!yes);
	store_token_holders_ok(cf.st, cf.p.project_id, cf.p.client_id, u, time(NULL) - 60, &yes, DONE);
	ok();
	ck_assert(!yes);
	store_token_holders_ok(cf.st, cf.p.project_id, "no-client", NULL, time(NULL) - 60, &yes, DONE);
	ok();
	ck_assert(!yes);
	free(u);
}
END_TEST

/* A session: found by its secret's hash while live, in its project only;
 * ended once; a code of its sign-in ends with it. */
START_TEST(test_session)
{
	char *u = conform_user_new("S"), *sid = NULL;
	struct new_session ns = {
		.id = "sess-public-id", .secret_hash = "sess-secret-hash", .project_id = cf.p.project_id,
		.user_id = u, .client_id = cf.p.client_id, .now = now_ms(),
		.expires_at = now_ms() + HOUR_MS, .amr = "pwd",
	};
	struct new_code c = {
		.hash = "sc-hash", .family_id = "sf", .project_id = cf.p.project_id,
		.client_id = cf.p.client_id, .user_id = u, .redirect_uri = "https://a/cb",
		.code_challenge = "chal", .expires_at = now_ms() + HOUR_MS,
		.auth_time = 1, .session_id = "sess-public-id",
	};
	struct session_row row = { 0 };
	struct store_token_row g = { 0 };
	bool ended = false;

	store_session_start(cf.st, &ns, &sid, DONE);
	ok();
	ck_assert_str_eq(sid, "sess-public-id");
	store_session_find(cf.st, "sess-secret-hash", cf.p.project_id, now_ms(), &row, DONE);
	ok();
	ck_assert(row.found);
	ck_assert_str_eq(row.id, "sess-public-id");
	ck_assert_str_eq(row.user_id, u);
	ck_assert_int_eq(row.expires_at, ns.expires_at);
	session_row_release(&row);
	memset(&row, 0, sizeof row);
	store_session_find(cf.st, "sess-secret-hash", "other-project", now_ms(), &row, DONE);
	ok();
	ck_assert(!row.found);
	store_code_insert(cf.st, &c, DONE);
	ok();
	token_get(false, "sc-hash", &g);
	ck_assert(g.found && !g.revoked);
	ck_assert_str_eq(g.session_id, "sess-public-id");
	store_session_end(cf.st, "sess-public-id", cf.p.project_id, u, NULL, &ended, DONE);
	ok();
	ck_assert(ended);
	store_session_end(cf.st, "sess-public-id", cf.p.project_id, u, NULL, &ended, DONE);
	ok();
	ck_assert(!ended);
	store_session_find(cf.st, "sess-secret-hash", cf.p.project_id, now_ms(), &row, DONE);
	ok();
	ck_assert(!row.found);
	token_get(false, "sc-hash", &g);
	ck_assert_msg(!g.found || g.revoked, "issue26.1: a code of an ended session still usable");
	store_token_row_release(&g);
	free(sid);
	free(u);
}
END_TEST

/* The client scope cache's hits so far (metrics.h). */
static uint64_t cache_hits(void)
{
	static const char series[] = "edgeauth_cache_hits_total{cache=\"client_scope\"} ";
	struct evbuffer *b = evbuffer_new();
	char *text, *at;
	uint64_t n;

	metrics_render(b);
	evbuffer_add(b, "", 1);
	text = (char *)evbuffer_pullup(b, -1);
	at = strstr(text, series);
	ck_assert_msg(at != NULL, "no %s in the metrics", series);
	n = strtoull(at + strlen(series), NULL, 10);
	evbuffer_free(b);
	return n;
}

/* The stamp a read hands back, known once the store serves (on
 * PostgreSQL: once the node listens; the test fails after a minute). */
static struct store_stamp stamp_now(void)
{
	struct store_stamp at = { 0 };
	struct timeval pause = { 0, 50 * 1000 };
	bool r;

	for (int i = 0; i < 1200; i++) {
		store_token_is_revoked(cf.st, "any", &r, &at, DONE);
		ok();
		if (at.known)
			return at;
		event_base_loopexit(cf.base, &pause);
		event_base_dispatch(cf.base);
	}
	ck_abort_msg("the stamp never became known");
	return at;
}

/* The client's scope at the stamp at must read want; the cache of
 * client scopes answered it (hit) or not. */
static void client_scope_is(struct store_stamp at, const char *want, bool hit)
{
	uint64_t before = cache_hits();
	char *out = NULL;

	store_client_scope(cf.st, cf.p.client_id, at, &out, DONE);
	ok();
	ck_assert_str_eq(out, want);
	ck_assert_msg(cache_hits() == before + hit, "the scope cache %s",
	              hit ? "missed at the stamp it was read at" : "answered at another stamp");
	free(out);
}

/* As the server runs: a commit moves the stamp; a cached scope answers
 * at the stamp it was read at, and a read at the new stamp sees the
 * change. */
START_TEST(test_caches_and_stamp)
{
	static const char all[] = "clients:create clients:read clients:update resources:create"
		" resources:read resources:update roles:create roles:read roles:update users:create"
		" users:read users:update";
	struct client_fields f = { .name = "Admin", .is_active = true, .set_permissions = true };
	struct jbody_id_list none = { true, 0, NULL };
	struct store_stamp s1, s2;
	struct client_auth ca, hit;
	char *out = NULL;

	conform_serve();
	s1 = stamp_now();
	ck_assert(store_stamp_equal(s1, s1));
	client_scope_is(s1, all, false);
	client_scope_is(s1, all, true);
	/* the client rows authentication keeps: good at the stamp they were
	 * read at */
	store_client_lookup(cf.st, cf.p.client_id, &ca, DONE);
	ok();
	ck_assert(ca.found && ca.stamp.known);
	store_client_keep(cf.st, cf.p.client_id, &ca);
	ck_assert(store_client_cached(cf.st, cf.p.client_id, ca.stamp, &hit));
	ck_assert_str_eq(hit.project_id, cf.p.project_id);
	f.permission_ids = &none;
	store_client_update(cf.st, &event_origin_cli, cf.p.project_id, cf.p.client_id, &f, NULL,
	                    &out, DONE);
	ok();
	free(out);
	s2 = stamp_now();
	ck_assert_msg(!store_stamp_equal(s1, s2), "issue26.1: a commit left the stamp");
	client_scope_is(s2, "", false);
	client_scope_is(s2, "", true);
	ck_assert_msg(!store_client_cached(cf.st, cf.p.client_id, s2, &hit),
	              "issue26.1: a client row kept past a commit");
}
END_TEST

/* What sign-in reads: a user by email (any case) with the password
 * hash, by external ID without it; a role's scope; a client's name,
 * secret and registered URIs. */
START_TEST(test_signin_reads)
{
	static const char hash[] = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo";
	struct user_fields f = {
		.display_name = "Sig", .email = { FIELD_SET, "Sig@Example.com" },
		.external_user_id = { FIELD_SET, "ext-s" }, .is_active = -1, .password_hash = hash,
	};
	struct store_user_signin su = { 0 };
	struct client_auth ca;
	char *out = NULL, *name = NULL, secret_hash[SECRET_HASH_LEN + 1];
	struct new_project cred = { 0 };
	bool reg = true;

	store_user_create(cf.st, &event_origin_cli, cf.p.project_id, &f, NULL, &out, DONE);
	ok();
	free(out);
	store_signin_user(cf.st, cf.p.project_id, "sig@EXAMPLE.com", &su, DONE);
	ok();
	ck_assert(su.found && su.is_active);
	ck_assert_str_eq(su.password_hash, hash);
	store_user_signin_release(&su);
	memset(&su, 0, sizeof su);
	store_byou_user(cf.st, cf.p.project_id, "ext-s", &su, DONE);
	ok();
	ck_assert(su.found && su.is_active);
	ck_assert_ptr_null(su.password_hash);
	store_user_signin_release(&su);
	memset(&su, 0, sizeof su);
	store_signin_user(cf.st, cf.p.project_id, "none@example.com", &su, DONE);
	ok();
	ck_assert(!su.found);
	store_client_name(cf.st, cf.p.client_id, &name, DONE);
	ok();
	ck_assert_str_eq(name, "admin");
	free(name);
	name = NULL;
	store_client_name(cf.st, "no-client", &name, DONE);
	ok();
	ck_assert_ptr_null(name);
	store_client_post_logout_registered(cf.st, cf.p.client_id, "https://a/out", &reg, DONE);
	ok();
	ck_assert(!reg);
	/* a new secret: the old one fails, the new one passes */
	store_admin_credentials(&cred, secret_hash);
	store_client_set_secret(cf.st, &event_origin_cli, cf.p.project_id, cf.p.client_id,
	                        secret_hash, NULL, DONE);
	ok();
	store_client_authenticate(cf.st, cf.p.client_id, cf.p.client_secret, &ca, DONE);
	fails("invalid_client_credentials", NULL);
	store_client_authenticate(cf.st, cf.p.client_id, cred.client_secret, &ca, DONE);
	ok();
	ck_assert(ca.found && ca.confidential);
	store_client_lookup(cf.st, "no-client", &ca, DONE);
	ok();
	ck_assert(!ca.found);
	store_client_set_secret(cf.st, &event_origin_cli, cf.p.project_id, "no-client", secret_hash,
	                        NULL, DONE);
	fails("client_not_found", NULL);
	store_new_project_release(&cred);
}
END_TEST

/* Everything issued up to now stops: codes and refresh tokens by their
 * rows, the access tokens with them. (Last: it ends every project's.) */
START_TEST(test_invalidate_all)
{
	struct chain c;
	bool ok_holders = true;

	chain_new(&c, "i");
	ck_assert(redeem("i-c", &c.r[0]));
	code_new("i-c2", "i-fam2", c.user, now_ms() + 10 * MINUTE_MS);
	ck_assert_int_eq(store_invalidate_all(cf.st, now_ms(), &cf.err), 0);
	ck_assert(!rotate("i-r1", &c.r[1]));
	ck_assert(!redeem("i-c2", &c.r[2]));
	ck_assert(revoked("i-j1"));
	store_token_holders_ok(cf.st, cf.p.project_id, cf.p.client_id, c.user, time(NULL) - 60,
	                       &ok_holders, DONE);
	ok();
	ck_assert(!ok_holders);
}
END_TEST

/* A session's end queues a back-channel logout for each client it
 * served that has a logout URI, in the end's transaction; read, then
 * deleted once. */
START_TEST(test_outbox)
{
	struct client_fields f = {
		.name = "BC", .redirect_uris = "[]", .set_backchannel_logout_uri = true,
		.backchannel_logout_uri = "https://rp/bc", .id_token_signed_response_alg = "ES256",
	};
	char *u = conform_user_new("O"), *out = NULL, *client, *sid = NULL, hash[SECRET_HASH_LEN + 1];
	struct new_project cred = { 0 };
	struct outbox_rows rows = { 0 };
	struct new_session ns = {
		.id = "out-sess", .secret_hash = "out-secret-hash", .project_id = cf.p.project_id,
		.user_id = u, .now = now_ms(), .expires_at = now_ms() + HOUR_MS, .amr = "pwd",
	};
	const char *ids[1];
	bool ended = false;
	json_t *j;

	store_admin_credentials(&cred, hash);
	store_client_create(cf.st, &event_origin_cli, cf.p.project_id, &f, hash, NULL, &out, DONE);
	ok();
	j = json_loads(out, 0, NULL);
	client = xstrdup(json_string_value(json_object_get(j, "id")));
	json_decref(j);
	free(out);
	ns.client_id = client;
	store_session_start(cf.st, &ns, &sid, DONE);
	ok();
	store_session_add_client(cf.st, "out-sess", client, DONE);
	ok();
	store_outbox_read(cf.st, 10, &rows, DONE);
	ok();
	ck_assert_uint_eq(rows.count, 0);
	outbox_rows_release(&rows);
	memset(&rows, 0, sizeof rows);
	store_session_end(cf.st, "out-sess", cf.p.project_id, NULL, NULL, &ended, DONE);
	ok();
	ck_assert(ended);
	store_outbox_read(cf.st, 10, &rows, DONE);
	ok();
	ck_assert_uint_eq(rows.count, 1);
	ck_assert_str_eq(rows.rows[0].client_id, client);
	ck_assert_str_eq(rows.rows[0].uri, "https://rp/bc");
	ck_assert_str_eq(rows.rows[0].alg, "ES256");
	ck_assert_str_eq(rows.rows[0].subject, u);
	ck_assert_str_eq(rows.rows[0].session_id, "out-sess");
	ck_assert_int_gt(rows.rows[0].created_at, 0);
	ids[0] = rows.rows[0].id;
	store_outbox_delete(cf.st, ids, 1, DONE);
	ok();
	store_outbox_delete(cf.st, ids, 1, DONE);   /* gone already: no error */
	ok();
	outbox_rows_release(&rows);
	memset(&rows, 0, sizeof rows);
	store_outbox_read(cf.st, 10, &rows, DONE);
	ok();
	ck_assert_uint_eq(rows.count, 0);
	outbox_rows_release(&rows);
	store_new_project_release(&cred);
	free(client);
	free(sid);
	free(u);
}
END_TEST

static void add_cases(TCase *tc)
{
	tcase_add_test(tc, test_code_single_use);
	tcase_add_test(tc, test_refresh_rotation_and_family);
	tcase_add_test(tc, test_refresh_grace);
	tcase_add_test(tc, test_purge_grace);
	tcase_add_test(tc, test_holders);
	tcase_add_test(tc, test_session);
	tcase_add_test(tc, test_outbox);
	tcase_add_test(tc, test_caches_and_stamp);
	tcase_add_test(tc, test_signin_reads);
	tcase_add_test(tc, test_invalidate_all);   /* last */
}

int main(void)
{
	return conform_run(conform_suite("store_conform_tokens", add_cases));
}
