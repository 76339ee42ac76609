/*
 * backchannel.c against a receiving evhttp server (and a DNS server) on
 * loopback in the same event base: the logout token and how it is posted,
 * an answer's outcome (2xx delivered, 4xx final, 5xx retried with the same
 * jti), refused addresses and URIs, a name that resolves to a forbidden
 * address, the queue limits and its fairness between clients, rows read
 * only once committed, and rows kept
 * for the next start when a stop cuts a delivery. A real SQLite store and
 * key ring in a temporary directory, fresh for each test.
 */
#include <check.h>
#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/dns_struct.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/util.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "b64url.h"
#include "backchannel.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include "config.h"
#include "jwt.h"
#include "keyring.h"
#include "server.h"
#include "store.h"
#include "store_projects.h"
#include "util.h"

#define MAX_RECEIVED 128
#define LOGOUT_EVENT "http://schemas.openid.net/event/backchannel-logout"

struct received {
	char path[64];
	char content_type[64];
	char *body;
	int64_t at_us;
};

/* the store and key ring of keyring_fixture.h, the server over them */
static struct keyring_fixture kf;
static struct {
	struct server srv;
	struct new_project p;
	char *user;
	struct backchannel *bc;
	struct event *tick;            /* wakes the loop, so run_until sees time pass */
	struct event *commit_ev;       /* group commit, as http.c does it */
	struct evhttp *receiver;
	unsigned port;                 /* the receiver's */
	struct received got[MAX_RECEIVED];
	size_t n_got;
	evutil_socket_t dns_fd;
	struct evdns_server_port *dns_server;
	struct evdns_base *dns;
} fx;

/* ---- the receiver: answers by the path's first segment ---- */

static void on_receive(struct evhttp_request *req, void *arg)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	const char *path = evhttp_request_get_uri(req);
	const char *ctype = evhttp_find_header(evhttp_request_get_input_headers(req),
	                                       "Content-Type");
	size_t n = evbuffer_get_length(in);
	struct received *r;

	(void)arg;
	ck_assert_uint_lt(fx.n_got, MAX_RECEIVED);
	r = &fx.got[fx.n_got++];
	snprintf(r->path, sizeof r->path, "%s", path);
	snprintf(r->content_type, sizeof r->content_type, "%s", ctype ? ctype : "");
	r->body = xcalloc(1, n + 1);
	evbuffer_remove(in, r->body, n);
	r->at_us = mono_us();
	if (!strncmp(path, "/stall", 6))
		return;   /* never answered: evhttp_free takes it */
	evhttp_send_reply(req, !strncmp(path, "/fail", 5) ? 503 :
	                  !strncmp(path, "/reject", 7) ? 404 : 200, "-", NULL);
}

/* ---- a DNS server: meta.test is 169.254.169.254, ok.test 127.0.0.1 ---- */

static void on_dns(struct evdns_server_request *req, void *arg)
{
	(void)arg;
	for (int i = 0; i < req->nquestions; i++) {
		const struct evdns_server_question *q = req->questions[i];
		unsigned char a[4] = { 127, 0, 0, 1 };
		if (q->type != EVDNS_TYPE_A)
			continue;   /* no AAAA records: an empty answer */
		if (!strcasecmp(q->name, "meta.test"))   /* evdns randomizes the case */
			memcpy(a, (unsigned char[4]){ 169, 254, 169, 254 }, 4);
		else if (strcasecmp(q->name, "ok.test") != 0)
			continue;
		evdns_server_request_add_a_reply(req, q->name, 1, a, 60);
	}
	evdns_server_request_respond(req, 0);
}

/* Starts the DNS server on a free loopback port and a resolver that asks it. */
static void start_dns(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	socklen_t len = sizeof *in;
	char ns[32];

	fx.dns_fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fx.dns_fd, 0);
	check_sockaddr("127.0.0.1", 0, &ss);
	ck_assert_int_eq(bind(fx.dns_fd, (struct sockaddr *)in, len), 0);
	ck_assert_int_eq(getsockname(fx.dns_fd, (struct sockaddr *)in, &len), 0);
	evutil_make_socket_nonblocking(fx.dns_fd);
	fx.dns_server = evdns_add_server_port_with_base(fx.srv.base, fx.dns_fd, 0, on_dns, NULL);
	fx.dns = evdns_base_new(fx.srv.base, 0);
	snprintf(ns, sizeof ns, "127.0.0.1:%u", ntohs(in->sin_port));
	ck_assert_int_eq(evdns_base_nameserver_ip_add(fx.dns, ns), 0);
}

/* ---- fixture ---- */

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

static void on_commit(evutil_socket_t fd, short what, void *arg)
{
	struct api_error err;

	(void)fd;
	(void)what;
	(void)arg;
	ck_assert_int_eq(store_batch_commit(fx.srv.store, &err), 0);
	backchannel_poke(fx.bc);
}

static void on_batch_opened(void *arg)
{
	(void)arg;
	event_active(fx.commit_ev, EV_TIMEOUT, 0);
}

static void setup(void)
{
	static const struct timeval ten_ms = { 0, 10000 };
	struct api_error err;
	struct evhttp_bound_socket *bound;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	memset(&fx, 0, sizeof fx);
	fx.dns_fd = -1;
	keyring_fixture_open(&kf, "check_backchannel");
	kf.cfg.listen_port = 1;   /* edgeauth's own address: 127.0.0.1:1 */
	fx.srv.cfg = &kf.cfg;
	fx.srv.store = kf.st;
	fx.srv.keys = kf.ring;
	ck_assert_int_eq(store_project_create(fx.srv.store, "p", &fx.p, &err), 0);
	fx.srv.base = event_base_new();
	fx.tick = event_new(fx.srv.base, -1, EV_PERSIST, on_tick, NULL);
	event_add(fx.tick, &ten_ms);
	fx.commit_ev = event_new(fx.srv.base, -1, 0, on_commit, NULL);
	fx.receiver = evhttp_new(fx.srv.base);
	evhttp_set_gencb(fx.receiver, on_receive, NULL);
	bound = evhttp_bind_socket_with_handle(fx.receiver, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(bound);
	ck_assert_int_eq(getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&ss,
	                             &len), 0);
	fx.port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	fx.user = xstrdup("user-1");
	check_sql(sqlite_of(fx.srv.store)->db,
	          "INSERT INTO users (id, project_id, display_name, created_at,"
	          " updated_at) VALUES (%Q, %Q, 'U', 1, 1)", fx.user, fx.p.project_id);
}

static void teardown(void)
{
	backchannel_free(fx.bc);
	evhttp_free(fx.receiver);
	if (fx.dns_server)
		evdns_close_server_port(fx.dns_server);
	if (fx.dns)
		evdns_base_free(fx.dns, 0);
	if (fx.dns_fd >= 0)
		close(fx.dns_fd);
	event_free(fx.tick);
	event_free(fx.commit_ev);
	event_base_free(fx.srv.base);
	for (size_t i = 0; i < fx.n_got; i++)
		free(fx.got[i].body);
	store_new_project_release(&fx.p);
	keyring_fixture_close(&kf);
	free(fx.user);
}

static void start(void)
{
	char errbuf[256];

	fx.bc = backchannel_new(&fx.srv, fx.dns, errbuf, sizeof errbuf);
	ck_assert_msg(fx.bc != NULL, "%s", errbuf);
}

/* Runs the loop until cond() holds or ms passed; returns cond(). */
static bool run_until(bool (*cond)(void), int ms)
{
	int64_t until = mono_us() + ms * 1000LL;

	while (!cond() && mono_us() < until)
		event_base_loop(fx.srv.base, EVLOOP_ONCE);
	return cond();
}

static bool never(void)
{
	return false;
}

/* Runs the loop for ms. */
static void run_for(int ms)
{
	run_until(never, ms);
}

/* A row of the outbox, as the schema's triggers write it. uri: a path on
 * the receiver when it starts with '/', else as it is. */
static void add_row(const char *id, const char *uri, const char *alg, const char *sid)
{
	char *full = uri[0] == '/' ? xasprintf("http://127.0.0.1:%u%s", fx.port, uri)
	                           : xstrdup(uri);

	check_sql(sqlite_of(fx.srv.store)->db,
	          "INSERT INTO backchannel_outbox (id, client_id, uri, alg,"
	          " subject, session_id, created_at) VALUES (%Q, 'client-1', %Q, %Q, %Q, %Q, 1)",
	          id, full, alg, fx.user, sid);
	free(full);
}

static long long outbox_rows(void)
{
	sqlite3_stmt *s;
	long long n;

	ck_assert_int_eq(sqlite3_prepare_v2(sqlite_of(fx.srv.store)->db, "SELECT count(*) FROM"
	                                    " backchannel_outbox", -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static bool outbox_empty(void)
{
	return outbox_rows() == 0;
}

static size_t want_got;
static bool got_enough(void)
{
	return fx.n_got >= want_got;
}

/* Waits up to ms for n requests at the receiver in all. */
static bool receive(size_t n, int ms)
{
	want_got = n;
	return run_until(got_enough, ms);
}

/* The received request at path (the first one), or NULL. */
static const struct received *received_at(const char *path)
{
	for (size_t i = 0; i < fx.n_got; i++)
		if (!strcmp(fx.got[i].path, path))
			return &fx.got[i];
	return NULL;
}

/* ---- the logout token ---- */

/* The token's protected header's alg. */
static char *token_alg(const char *token)
{
	size_t n;
	unsigned char *h = b64url_decode_any(token, (size_t)(strchr(token, '.') - token), &n);
	json_t *header = json_loads((const char *)h, 0, NULL);
	char *alg = xstrdup(json_string_value(json_object_get(header, "alg")));

	json_decref(header);
	free(h);
	return alg;
}

/* The body is logout_token=<a logout token for jti> of docs/signin.md §"Back-channel logout":
 * verifies as typ logout+jwt (and as nothing else) with the ring's key of
 * alg; iss, aud, sub, sid (or none), jti, events; exp = iat + 120; no nonce. */
static void expect_logout_token(const struct received *r, const char *jti, const char *alg,
                                const char *sid)
{
	const char *token;
	json_t *claims, *events;
	char *header_alg;

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->content_type, "application/x-www-form-urlencoded");
	ck_assert_msg(!strncmp(r->body, "logout_token=", 13), "%s", r->body);
	token = r->body + 13;
	ck_assert_ptr_null(keyring_verify(fx.srv.keys, JWT_TYP_ID, token, strlen(token), NULL));
	ck_assert_ptr_null(keyring_verify(fx.srv.keys, JWT_TYP_ACCESS, token, strlen(token), NULL));
	claims = keyring_verify(fx.srv.keys, JWT_TYP_LOGOUT, token, strlen(token), NULL);
	ck_assert_msg(claims != NULL, "the token does not verify: %s", token);
	header_alg = token_alg(token);
	ck_assert_str_eq(header_alg, alg);
	free(header_alg);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "iss")), kf.cfg.issuer);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "aud")), "client-1");
	ck_assert_str_eq(json_string_value(json_object_get(claims, "sub")), fx.user);
	ck_assert_str_eq(json_string_value(json_object_get(claims, "jti")), jti);
	if (sid)
		ck_assert_str_eq(json_string_value(json_object_get(claims, "sid")), sid);
	else
		ck_assert_ptr_null(json_object_get(claims, "sid"));
	ck_assert_int_eq(json_integer_value(json_object_get(claims, "exp")) -
	                 json_integer_value(json_object_get(claims, "iat")), 120);
	ck_assert_int_le(llabs(json_integer_value(json_object_get(claims, "iat")) -
	                       (json_int_t)(now_ms() / 1000)), 5);
	ck_assert_ptr_null(json_object_get(claims, "nonce"));
	events = json_object_get(claims, "events");
	ck_assert_uint_eq(json_object_size(events), 1);
	ck_assert(json_is_object(json_object_get(events, LOGOUT_EVENT)));
	ck_assert_uint_eq(json_object_size(json_object_get(events, LOGOUT_EVENT)), 0);
	ck_assert_uint_eq(json_object_size(claims), sid ? 8 : 7);
	json_decref(claims);
}

START_TEST(test_delivers_logout_tokens)
{
	add_row("jti-rs", "/ok/rs", "RS256", "session-1");
	add_row("jti-es", "/ok/es", "ES256", NULL);   /* a BYOU user: no sid */
	start();
	ck_assert(receive(2, 3000));
	expect_logout_token(received_at("/ok/rs"), "jti-rs", "RS256", "session-1");
	expect_logout_token(received_at("/ok/es"), "jti-es", "ES256", NULL);
	ck_assert(run_until(outbox_empty, 2000));
	ck_assert_uint_eq(backchannel_stats(fx.bc)->delivered, 2);
	ck_assert_uint_eq(backchannel_in_flight(fx.bc), 0);
}
END_TEST

/* A 4xx is final: one request, the row deleted, no retry. */
START_TEST(test_4xx_is_final)
{
	add_row("jti-4", "/reject/x", "RS256", "s");
	start();
	ck_assert(receive(1, 3000));
	ck_assert(run_until(outbox_empty, 2000));
	run_for(1500);
	ck_assert_uint_eq(fx.n_got, 1);
	ck_assert_uint_eq(backchannel_stats(fx.bc)->rejected, 1);
	ck_assert_uint_eq(backchannel_stats(fx.bc)->retried, 0);
}
END_TEST

/* A port nothing listens on (a socket's, closed). */
static unsigned closed_port(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(struct sockaddr_in);
	evutil_socket_t fd = socket(AF_INET, SOCK_STREAM, 0);

	check_sockaddr("127.0.0.1", 0, &ss);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&ss, len), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	close(fd);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static bool four_retries(void)
{
	return backchannel_stats(fx.bc)->retried == 4;
}

/* A 5xx is tried again after 1 s, with the same token ID; so is a
 * connection that cannot be made. */
START_TEST(test_5xx_is_retried)
{
	char *refused = xasprintf("http://127.0.0.1:%u/x", closed_port());

	add_row("jti-5", "/fail/x", "RS256", "s");
	add_row("jti-closed", refused, "RS256", "s");
	free(refused);
	start();
	ck_assert(receive(2, 4000));
	ck_assert_int_ge(fx.got[1].at_us - fx.got[0].at_us, 900000);
	ck_assert_int_lt(fx.got[1].at_us - fx.got[0].at_us, 2000000);
	expect_logout_token(&fx.got[0], "jti-5", "RS256", "s");
	expect_logout_token(&fx.got[1], "jti-5", "RS256", "s");
	ck_assert(run_until(four_retries, 1000));   /* two each */
	ck_assert_int_eq(outbox_rows(), 2);   /* still to deliver */
}
END_TEST

static bool four_refused(void)
{
	return backchannel_stats(fx.bc)->refused == 4;
}

/* Not sent, and not retried: a forbidden address, edgeauth's own, a URI
 * that is not http(s), a row no key can sign. */
START_TEST(test_refused)
{
	add_row("a", "http://169.254.169.254/latest", "RS256", "s");
	add_row("b", "http://127.0.0.1:1/api/v1/logout", "RS256", "s");
	add_row("c", "ftp://127.0.0.1/x", "RS256", "s");
	add_row("d", "/ok/d", "HS256", "s");
	start();
	ck_assert(run_until(four_refused, 3000));
	ck_assert(run_until(outbox_empty, 2000));
	ck_assert_uint_eq(fx.n_got, 0);
	ck_assert_uint_eq(backchannel_stats(fx.bc)->retried, 0);
}
END_TEST

/* Names go through the resolver, and every address is checked: a name
 * that resolves to a forbidden address is refused. */
START_TEST(test_names_resolved_and_checked)
{
	char *ok = xasprintf("http://ok.test:%u/ok/dns", fx.port);

	start_dns();
	add_row("meta", "http://meta.test/latest/meta-data", "RS256", "s");
	add_row("good", ok, "RS256", "s");
	free(ok);
	start();
	ck_assert(receive(1, 3000));
	expect_logout_token(received_at("/ok/dns"), "good", "RS256", "s");
	ck_assert(run_until(outbox_empty, 3000));
	ck_assert_uint_eq(backchannel_stats(fx.bc)->refused, 1);
	ck_assert_uint_eq(backchannel_stats(fx.bc)->delivered, 1);
}
END_TEST

#define FLOOD 1200

/* n rows of client at paths /PATH/1.. of the receiver, created at 1..n
 * (the oldest first), for the user fx.user. */
static void flood(const char *client, const char *path, int n)
{
	check_sql(sqlite_of(fx.srv.store)->db,
	          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
	          " FROM n WHERE i < %d) INSERT INTO backchannel_outbox (id, client_id, uri, alg,"
	          " subject, session_id, created_at) SELECT printf('%%06d', i), %Q,"
	          " 'http://127.0.0.1:%u/%q/' || i, 'ES256', %Q, 's', i FROM n", n, client,
	          fx.port, path, fx.user);
}

static bool limits_reached(void)
{
	return backchannel_stats(fx.bc)->dropped == FLOOD - BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT -
	       BACKCHANNEL_MAX_QUEUED && fx.n_got == BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT &&
	       outbox_rows() == BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT + BACKCHANNEL_MAX_QUEUED;
}

/* One client: 16 in flight, 1024 waiting, the rest dropped (and their
 * rows deleted); what a stop cuts stays in the outbox for the next start. */
START_TEST(test_queue_limits)
{
	flood("client-1", "stall", FLOOD);
	start();
	ck_assert(run_until(limits_reached, 4000));
	ck_assert_uint_eq(backchannel_in_flight(fx.bc), BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT);
	ck_assert_uint_eq(backchannel_queued(fx.bc), BACKCHANNEL_MAX_QUEUED);
	/* oldest first: the first 16 rows are the ones under way */
	ck_assert_ptr_nonnull(received_at("/stall/1"));
	ck_assert_ptr_nonnull(received_at("/stall/16"));
	backchannel_free(fx.bc);
	fx.bc = NULL;
	ck_assert_int_eq(outbox_rows(), BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT + BACKCHANNEL_MAX_QUEUED);
}
END_TEST

#define NOISY 1150   /* issue 24's probe: more than the queue holds */

static bool victim_delivered(void)
{
	return received_at("/ok/victim") != NULL;
}

static size_t stalled(void)
{
	size_t n = 0;

	for (size_t i = 0; i < fx.n_got; i++)
		n += !strncmp(fx.got[i].path, "/stall/", 7);
	return n;
}

static bool fair_settled(void)
{
	return backchannel_stats(fx.bc)->dropped == NOISY + 1 -
	       BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT - BACKCHANNEL_MAX_QUEUED &&
	       outbox_rows() == BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT + BACKCHANNEL_MAX_QUEUED - 1;
}

/* issue24.5: one client whose receiver never answers has more logouts than
 * the queue holds, all older than another client's one; that one is not
 * dropped, and is delivered while the first client's backlog waits: the
 * slow client holds only its share of the slots, and the full queue drops
 * the newest of the slow client's instead. */
START_TEST(test_fair_between_clients)
{
	char *victim = xasprintf("http://127.0.0.1:%u/ok/victim", fx.port);

	flood("client-slow", "stall", NOISY);
	check_sql(sqlite_of(fx.srv.store)->db,
	          "INSERT INTO backchannel_outbox (id, client_id, uri, alg,"
	          " subject, session_id, created_at) VALUES ('victim', 'client-2', %Q, 'ES256',"
	          " %Q, 's2', %d)", victim, fx.user, NOISY + 1);
	free(victim);
	start();
	ck_assert_msg(run_until(victim_delivered, 10000),
	              "issue24.5: another client's logout was not delivered behind %d stalled ones"
	              " (dropped %llu)", NOISY, (unsigned long long)backchannel_stats(fx.bc)->dropped);
	ck_assert_uint_le(stalled(), BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT);
	ck_assert(run_until(fair_settled, 4000));
	ck_assert_uint_eq(backchannel_stats(fx.bc)->delivered, 1);
	ck_assert_uint_eq(backchannel_in_flight(fx.bc), BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT);
	ck_assert_uint_eq(backchannel_queued(fx.bc), BACKCHANNEL_MAX_QUEUED - 1);
}
END_TEST

/* A delivery a stop cut short is made again at the next start, with the
 * same jti. */
START_TEST(test_sent_again_after_a_stop)
{
	add_row("again", "/stall/again", "RS256", "s");
	start();
	ck_assert(receive(1, 3000));
	backchannel_free(fx.bc);
	fx.bc = NULL;
	ck_assert_int_eq(outbox_rows(), 1);
	start();
	ck_assert(receive(2, 3000));
	expect_logout_token(&fx.got[1], "again", "RS256", "s");
}
END_TEST

/* With group commit, a row written in a batch not yet committed is not
 * read: a logout is sent only for a change that is durable. */
START_TEST(test_read_after_commit)
{
	struct api_error err;

	store_batch_enable(fx.srv.store, on_batch_opened, NULL);
	start();
	run_for(50);
	ck_assert_int_eq(store_begin(fx.srv.store, &err), 0);
	add_row("batched", "/ok/batched", "RS256", "s");
	ck_assert_int_eq(store_commit(fx.srv.store, &err), 0);   /* the savepoint only */
	event_del(fx.commit_ev);   /* hold the batch open */
	backchannel_poke(fx.bc);
	run_for(300);
	ck_assert_uint_eq(fx.n_got, 0);
	event_active(fx.commit_ev, EV_TIMEOUT, 0);   /* commits, and pokes */
	ck_assert(receive(1, 2000));
	expect_logout_token(received_at("/ok/batched"), "batched", "RS256", "s");
	ck_assert(run_until(outbox_empty, 2000));
}
END_TEST

static Suite *backchannel_suite(void)
{
	Suite *s = suite_create("backchannel");
	TCase *tc = check_tcase("delivery", setup, teardown);

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_delivers_logout_tokens);
	tcase_add_test(tc, test_4xx_is_final);
	tcase_add_test(tc, test_5xx_is_retried);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_names_resolved_and_checked);
	tcase_add_test(tc, test_queue_limits);
	tcase_add_test(tc, test_fair_between_clients);
	tcase_add_test(tc, test_sent_again_after_a_stop);
	tcase_add_test(tc, test_read_after_commit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(backchannel_suite()));
}
