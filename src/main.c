/*
 * edgeauth: the command line (CONTRACT.md §1), start and clean stop.
 * `serve` runs one libevent loop; the `project` commands open the same store
 * beside a running server and exit.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "audit_file.h"
#include "auth.h"
#include "backchannel.h"
#include "cert.h"
#include "config.h"
#include "http.h"
#include "keyring.h"
#include "passwords.h"
#include "server.h"
#include "store.h"
#include "store_events.h"
#include "store_keys.h"
#include "store_projects.h"
#include "store_sessions.h"
#include "store_tokens.h"
#include "store_users.h"
#include "throttle.h"
#include "tls.h"
#include "util.h"

#define EDGEAUTH_VERSION "0.1.0"
#define EXIT_USAGE 2
#define SHUTDOWN_GRACE_MS 5000

static const char usage_text[] =
	"usage: edgeauth [-c FILE] [serve]                      run the server (default)\n"
	"       edgeauth [-c FILE] project create --name NAME   create a project, print its admin client\n"
	"       edgeauth [-c FILE] project list                 print the projects as JSON\n"
	"       edgeauth [-c FILE] project activate ID\n"
	"       edgeauth [-c FILE] project deactivate ID\n"
	"       edgeauth [-c FILE] project admin-client ID      a new admin client for it, printed\n"
	"       edgeauth [-c FILE] key list                     print the signing keys as JSON\n"
	"       edgeauth [-c FILE] key rotate [--alg ES256|RS256]\n"
	"                                                       add a key of each (or of one) algorithm\n"
	"       edgeauth [-c FILE] key retire KID               stop a key signing and verifying at once\n"
	"       edgeauth [-c FILE] events [--project ID] [--since RFC3339] [--action A]\n"
	"                                                       print the audit trail as JSON lines\n"
	"       edgeauth [-c FILE] cert self-signed --host NAME [--cert FILE] [--key FILE]\n"
	"                                                       write a self-signed TLS pair\n"
	"       edgeauth --version | --help\n"
	"FILE defaults to etc/edgeauth.conf.\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

static struct store *open_store(const struct config *cfg)
{
	char errbuf[512];
	struct store *st = store_open(cfg->store_path, cfg->synchronous_full, errbuf, sizeof errbuf);
	if (!st)
		fprintf(stderr, "edgeauth: %s\n", errbuf);
	return st;
}

/* The [audit] file of a CLI command's events (NULL: none). */
static struct audit_file *cli_audit;

/* The store of a CLI command: its writes are events of the CLI, which go
 * to the [audit] file too. */
static struct store *open_store_cli(const struct config *cfg)
{
	struct store *st = open_store(cfg);

	if (!st)
		return NULL;
	store_events_origin(st, &event_origin_cli);
	if (cfg->audit_file) {
		cli_audit = audit_file_open(cfg->audit_file);
		store_events_sink(st, audit_file_write, cli_audit);
	}
	return st;
}

/* Prints one JSON value on stdout, compact, and frees it. */
static void print_json(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT);

	printf("%s\n", text);
	fflush(stdout);
	free(text);
	json_decref(v);
}

static void print_new_project(const struct new_project *np)
{
	print_json(json_pack("{s:s, s:s, s:s}", "project_id", np->project_id,
	                     "client_id", np->client_id, "client_secret", np->client_secret));
}

static int cmd_project(const struct config *cfg, int argc, char **argv)
{
	struct store *st;
	struct api_error err;
	int rc = 1;

	if (argc < 1)
		return usage();
	st = open_store_cli(cfg);
	if (!st)
		return 1;
	if (!strcmp(argv[0], "create")) {
		struct new_project np;
		if (argc != 3 || strcmp(argv[1], "--name") != 0 || !*argv[2]) {
			rc = usage();
		} else if (store_project_create(st, argv[2], &np, &err) == 0) {
			print_new_project(&np);
			store_new_project_release(&np);
			rc = 0;
		}
	} else if (!strcmp(argv[0], "list") && argc == 1) {
		json_t *list = store_project_list(st, &err);
		if (list) {
			print_json(list);
			rc = 0;
		}
	} else if ((!strcmp(argv[0], "activate") || !strcmp(argv[0], "deactivate")) && argc == 2) {
		int changed = store_project_set_active(st, argv[1], argv[0][0] == 'a', &err);
		if (changed == 0)
			fprintf(stderr, "edgeauth: no project %s\n", argv[1]);
		rc = changed == 1 ? 0 : 1;
	} else if (!strcmp(argv[0], "admin-client") && argc == 2) {
		/* CONTRACT.md §8: recovers a project whose admin client was deleted */
		struct new_project np;
		int made = store_project_admin_client(st, argv[1], &np, &err);
		if (made == 0)
			fprintf(stderr, "edgeauth: no project %s\n", argv[1]);
		if (made == 1) {
			print_new_project(&np);
			store_new_project_release(&np);
		}
		rc = made == 1 ? 0 : 1;
	} else {
		rc = usage();
	}
	store_close(st);
	return rc;
}

/* ---- key ---- */

/* A time of the key list: RFC 3339, or null for none. */
static json_t *key_time(int64_t ms, bool none)
{
	char buf[TIMESTAMP_LEN];

	if (none)
		return json_null();
	format_timestamp(ms, buf);
	return json_string(buf);
}

/* The keys as JSON: kid, alg, state and times; never the private key. */
static json_t *key_list_json(const struct key_row *rows, size_t n)
{
	json_t *list = json_array();
	int64_t now = now_ms();

	for (size_t i = 0; i < n; i++) {
		const struct key_row *k = &rows[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
			"kid", k->kid, "alg", jwt_alg_name(k->alg),
			"state", key_state_name(key_schedule_state(rows, n, i, now)),
			"created", key_time(k->created_at, false),
			"activates_at", key_time(k->activates_at, false),
			"published_until", key_time(k->publish_until, k->publish_until == KEY_NO_BOUND),
			"retired_at", key_time(k->retired_at, k->retired_at == 0)));
	}
	return list;
}

static int key_list(struct store *st)
{
	struct key_rows all;
	struct api_error err;

	if (store_keys_list(st, &all, &err) < 0)
		return 1;
	print_json(key_list_json(all.rows, all.count));
	store_keys_rows_release(&all);
	return 0;
}

/* key rotate: a new key of each of algs[0..n). */
static int key_rotate(const struct config *cfg, struct store *st, const enum jwt_alg *algs,
                      size_t n)
{
	struct key_row added[JWT_ALG_COUNT];
	struct keyring *ring;
	struct api_error err;
	char errbuf[512];
	int rc = 1;

	/* the start's checks: the KEK opens the stored keys, a new store is filled */
	ring = keyring_open(cfg, st, errbuf, sizeof errbuf);
	if (!ring) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	if (keyring_rotate(ring, st, algs, n, added, &err) == 0) {
		print_json(key_list_json(added, n));
		rc = 0;
	} else {
		fprintf(stderr, "edgeauth: %s\n", err.description);
	}
	keyring_free(ring);
	return rc;
}

static int key_retire(const struct config *cfg, struct store *st, const char *kid)
{
	struct api_error err;
	int r = store_key_retire(st, kid, now_ms(), keyring_lifetime_ms(cfg), &err);

	if (r == 0)
		fprintf(stderr, "edgeauth: no key %s\n", kid);
	else if (r < 0)
		fprintf(stderr, "edgeauth: %s\n", err.description);
	return r == 1 ? 0 : 1;
}

/* The key commands (CONTRACT.md §8) work beside a running server, which
 * sees their changes at its next request. */
static int cmd_key(const struct config *cfg, int argc, char **argv)
{
	struct store *st;
	int rc;

	enum jwt_alg algs[JWT_ALG_COUNT] = { JWT_ES256, JWT_RS256 };
	size_t n_algs = JWT_ALG_COUNT;   /* rotate: both without --alg */
	bool list = argc == 1 && !strcmp(argv[0], "list");
	bool rotate = argc == 1 && !strcmp(argv[0], "rotate");
	bool retire = argc == 2 && !strcmp(argv[0], "retire");

	if (argc == 3 && !strcmp(argv[0], "rotate") && !strcmp(argv[1], "--alg") &&
	    jwt_alg_parse(argv[2], &algs[0]) == 0) {
		rotate = true;
		n_algs = 1;
	}
	if (!list && !rotate && !retire)
		return usage();
	st = open_store_cli(cfg);
	if (!st)
		return 1;
	if (list)
		rc = key_list(st);
	else if (rotate)
		rc = key_rotate(cfg, st, algs, n_algs);
	else
		rc = key_retire(cfg, st, argv[1]);
	store_close(st);
	return rc;
}

/* ---- cert ---- */

/* cert self-signed --host NAME [--cert FILE] [--key FILE]: the files
 * default to the config's tls_cert and tls_key, else var/ (CONTRACT.md §11). */
static int cmd_cert(const struct config *cfg, int argc, char **argv)
{
	const char *host = NULL;
	const char *cert = cfg->tls_cert ? cfg->tls_cert : "var/tls-cert.pem";
	const char *key = cfg->tls_key ? cfg->tls_key : "var/tls-key.pem";
	char fingerprint[CERT_FINGERPRINT_LEN], errbuf[512];

	if (argc < 1 || strcmp(argv[0], "self-signed") != 0)
		return usage();
	for (int i = 1; i < argc; i += 2) {
		const char **opt = !strcmp(argv[i], "--host") ? &host :
		                   !strcmp(argv[i], "--cert") ? &cert :
		                   !strcmp(argv[i], "--key") ? &key : NULL;
		if (!opt || i + 1 >= argc || !*argv[i + 1])
			return usage();
		*opt = argv[i + 1];
	}
	if (!host)
		return usage();
	if (cert_self_signed_write(host, cert, key, fingerprint, errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	printf("certificate %s\nkey %s\nSHA-256 fingerprint %s\n", cert, key, fingerprint);
	return 0;
}

/* ---- TLS: the pair at start and on SIGHUP (CONTRACT.md §11) ---- */

/* Loads the pair when the config has one; 0, or -1 (reason logged). */
static int start_tls(struct server *srv)
{
	char msg[512];

	if (!config_tls_enabled(srv->cfg))
		return 0;
	srv->tls = tls_new(srv->cfg, srv->base, msg, sizeof msg);
	if (!srv->tls) {
		fprintf(stderr, "edgeauth: %s\n", msg);
		return -1;
	}
	tls_describe(srv->tls, msg, sizeof msg);
	fprintf(stderr, "edgeauth: TLS %s\n", msg);
	return 0;
}

/* New connections get the pair as the files now hold it (a renewal); open
 * ones keep theirs. A pair that fails to load leaves the old one in use. */
static void on_sighup(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	char msg[512];

	(void)sig;
	(void)what;
	if (!srv->tls) {
		fprintf(stderr, "edgeauth: SIGHUP: no TLS pair to reload\n");
	} else if (tls_reload(srv->tls, msg, sizeof msg) < 0) {
		fprintf(stderr, "edgeauth: SIGHUP: %s; the previous certificate stays in use\n", msg);
	} else {
		tls_describe(srv->tls, msg, sizeof msg);
		fprintf(stderr, "edgeauth: SIGHUP: TLS %s\n", msg);
	}
	if (srv->audit)
		audit_file_reopen(srv->audit);   /* logrotate moved it away */
}

/* ---- events ---- */

static void print_line(void *arg, const char *record)
{
	(void)arg;
	printf("%s\n", record);
}

/* edgeauth events [--project ID] [--since RFC3339] [--action A]: the audit
 * trail, oldest first, one JSON object a line. */
static int cmd_events(const struct config *cfg, int argc, char **argv)
{
	struct event_filter f = { .since = INT64_MIN };
	struct api_error err;
	struct store *st;
	int rc;

	for (int i = 0; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v || !*v)
			return usage();
		if (!strcmp(argv[i], "--project") && !f.project_id)
			f.project_id = v;
		else if (!strcmp(argv[i], "--action") && !f.action)
			f.action = v;
		else if (!strcmp(argv[i], "--since") && f.since == INT64_MIN &&
		         parse_timestamp(v, &f.since) == 0)
			continue;
		else
			return usage();
	}
	st = open_store(cfg);
	if (!st)
		return 1;
	rc = store_event_list(st, &f, print_line, NULL, &err) < 0 ? 1 : 0;
	fflush(stdout);
	store_close(st);
	return rc;
}

/* ---- serve ---- */

static void on_drain_tick(evutil_socket_t fd, short what, void *arg);

struct shutdown {
	struct server *srv;
	struct event *tick;
	int64_t deadline_us;
};

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct shutdown *sd = arg;
	struct timeval tv = { 0, 20000 };

	(void)what;
	if (sd->srv->stopping)
		return;
	fprintf(stderr, "edgeauth: signal %d, stopping\n", (int)sig);
	sd->srv->stopping = 1;
	http_stop_accepting(sd->srv);
	sd->deadline_us = mono_us() + SHUTDOWN_GRACE_MS * 1000LL;
	sd->tick = event_new(sd->srv->base, -1, EV_PERSIST, on_drain_tick, sd);
	event_add(sd->tick, &tv);
}

/* Requests in flight finish, up to the grace period; then the loop ends. */
static void on_drain_tick(evutil_socket_t fd, short what, void *arg)
{
	struct shutdown *sd = arg;

	(void)fd;
	(void)what;
	if (sd->srv->in_flight <= 0 || mono_us() > sd->deadline_us)
		event_base_loopbreak(sd->srv->base);
}

/* Expired codes, refresh tokens and revocation entries go in small batches,
 * a grace period after expiry (so that until then they still answer
 * auth_code_expired or refresh_token_expired, and a replay is still seen),
 * so one tick never holds the loop for long; a full batch asks for another
 * tick soon. Sessions that expired or ended go at once: nothing answers
 * about them (an ended session's sign-ins were revoked when it ended, and
 * deleting an expired one revokes nothing). Events of the audit trail go
 * once older than [audit] retention_days. */
#define PURGE_BATCH 500
#define DAY_MS (86400 * 1000LL)

struct purge {
	struct server *srv;
	struct event *ev;
};

static void on_purge_tick(evutil_socket_t fd, short what, void *arg)
{
	struct purge *pg = arg;
	struct api_error err;
	struct timeval tv = { pg->srv->cfg->purge_interval_s, 0 };
	int n = store_purge_expired(pg->srv->store, PURGE_BATCH,
	                            pg->srv->cfg->purge_grace_s * 1000LL, &err);
	int sessions = store_session_purge(pg->srv->store, PURGE_BATCH, now_ms(), &err);
	int events = store_event_purge(pg->srv->store, PURGE_BATCH,
	                               now_ms() - pg->srv->cfg->audit_retention_days * DAY_MS, &err);

	(void)fd;
	(void)what;
	if (n >= PURGE_BATCH || sessions >= PURGE_BATCH || events >= PURGE_BATCH)
		tv.tv_sec = 1;
	evtimer_add(pg->ev, &tv);
}

/* New users' search keys wait in a small table (schema/005), and are moved
 * into the search index in key order while the server is idle: a run of
 * keys in order shares the index pages it touches, where each create on its
 * own dirtied a page per key. A tick that finds no request since the last
 * one moves runs of SUFFIX_MOVE_KEYS keys for up to SUFFIX_MOVE_BUDGET_MS and
 * comes straight back (a request that arrives meanwhile waits at most that
 * long); one that finds requests keeps off for SUFFIX_MOVE_BACKOFF_MS, so a
 * busy server's answers never wait for it. With nothing to move, or after a
 * failure, it looks again after a second. Under constant load the keys stay
 * where they are, which searches read too. */
#define SUFFIX_MOVE_KEYS 2000
#define SUFFIX_MOVE_BUDGET_MS 10
#define SUFFIX_MOVE_BACKOFF_MS 50

struct suffix_mover {
	struct server *srv;
	struct event *ev;
	uint64_t requests;   /* the server's count at the last tick */
};

static void on_suffix_move_tick(evutil_socket_t fd, short what, void *arg)
{
	struct suffix_mover *sm = arg;
	struct server *srv = sm->srv;
	struct api_error err;
	struct timeval tv = { 0, SUFFIX_MOVE_BACKOFF_MS * 1000 };
	int64_t until = now_ms() + SUFFIX_MOVE_BUDGET_MS;

	(void)fd;
	(void)what;
	if (srv->requests == sm->requests && srv->in_flight == 0 &&
	    !store_batch_open(srv->store)) {
		int rc;
		while ((rc = store_user_suffixes_move(srv->store, SUFFIX_MOVE_KEYS, &err)) > 0 &&
		       now_ms() < until)
			;
		tv = rc > 0 ? (struct timeval){ 0, 0 }   /* more to move: after what is ready */
		            : (struct timeval){ 1, 0 };  /* none left, or failed (logged) */
	}
	sm->requests = srv->requests;
	evtimer_add(sm->ev, &tv);
}

/* A store with no project gets one, so a newcomer can call the API at once. */
static int ensure_default_project(struct store *st)
{
	struct api_error err;
	struct new_project np;
	long n = store_project_count(st, &err);

	if (n < 0)
		return -1;
	if (n > 0)
		return 0;
	if (store_project_create(st, "default", &np, &err) < 0)
		return -1;
	print_new_project(&np);
	store_new_project_release(&np);
	return 0;
}

static int cmd_serve(const struct config *cfg)
{
	struct server srv = { .cfg = cfg };
	struct shutdown sd = { .srv = &srv };
	struct purge pg = { .srv = &srv };
	struct suffix_mover sm = { .srv = &srv };
	struct timeval first_tick = { 1, 0 };
	struct event *sigint = NULL, *sigterm = NULL, *sighup = NULL;
	char errbuf[512];
	int rc = 1;

	signal(SIGPIPE, SIG_IGN);
	srv.store = open_store(cfg);
	if (!srv.store)
		goto out;
	srv.keys = keyring_open(cfg, srv.store, errbuf, sizeof errbuf);
	if (!srv.keys) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		goto out;
	}
	if (ensure_default_project(srv.store) < 0)
		goto out;
	if (cfg->audit_file) {
		srv.audit = audit_file_open(cfg->audit_file);
		store_events_sink(srv.store, audit_file_write, srv.audit);
	}
	srv.base = event_base_new();
	if (!srv.base)
		goto out;
	srv.passwords = passwords_new(srv.base, cfg);
	srv.signin_account_addresses = throttle_new((size_t)cfg->signin_tracked_keys,
	                                            cfg->signin_max_failures, cfg->signin_window_s);
	srv.signin_accounts = throttle_new((size_t)cfg->signin_tracked_keys,
	                                   cfg->signin_max_failures_per_account,
	                                   cfg->signin_window_s);
	srv.signin_addresses = throttle_new((size_t)cfg->signin_tracked_keys,
	                                    cfg->signin_max_failures_per_address, cfg->signin_window_s);
	if (start_tls(&srv) < 0 || http_start(&srv) < 0)
		goto out;
	srv.backchannel = backchannel_new(&srv, NULL, errbuf, sizeof errbuf);
	if (!srv.backchannel) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		goto out;
	}
	sigint = evsignal_new(srv.base, SIGINT, on_signal, &sd);
	sigterm = evsignal_new(srv.base, SIGTERM, on_signal, &sd);
	event_add(sigint, NULL);
	event_add(sigterm, NULL);
	sighup = evsignal_new(srv.base, SIGHUP, on_sighup, &srv);
	event_add(sighup, NULL);
	pg.ev = evtimer_new(srv.base, on_purge_tick, &pg);
	evtimer_add(pg.ev, &first_tick);
	sm.ev = evtimer_new(srv.base, on_suffix_move_tick, &sm);
	evtimer_add(sm.ev, &first_tick);
	fprintf(stderr, "edgeauth: listening on %s:%d, issuer %s\n", cfg->listen_host,
	        cfg->listen_port, cfg->issuer);
	event_base_dispatch(srv.base);
	rc = 0;
out:
	if (sd.tick)
		event_free(sd.tick);
	if (pg.ev)
		event_free(pg.ev);
	if (sm.ev)
		event_free(sm.ev);
	if (sigint)
		event_free(sigint);
	if (sigterm)
		event_free(sigterm);
	if (sighup)
		event_free(sighup);
	passwords_free(srv.passwords);   /* runs pending done()s while evhttp still lives */
	/* deliveries under way are cut (their rows stay for the next start);
	 * the deletes of finished ones join the batch http_free commits */
	backchannel_free(srv.backchannel);
	srv.backchannel = NULL;
	http_free(&srv);
	tls_free(srv.tls);   /* after every connection is gone */
	auth_cache_free(srv.auth_cache);
	throttle_free(srv.signin_account_addresses);
	throttle_free(srv.signin_accounts);
	throttle_free(srv.signin_addresses);
	if (srv.base)
		event_base_free(srv.base);
	store_close(srv.store);
	audit_file_free(srv.audit);   /* after the store's last commit */
	keyring_free(srv.keys);
	if (rc == 0)
		fprintf(stderr, "edgeauth: stopped\n");
	return rc;
}

int main(int argc, char **argv)
{
	const char *conf = "etc/edgeauth.conf";
	struct config cfg;
	char errbuf[512];
	int i = 1, rc;

	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("edgeauth %s\n", EDGEAUTH_VERSION);
		return 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "-c")) {
		if (i + 1 >= argc)
			return usage();
		conf = argv[i + 1];
		i += 2;
	}
	json_set_alloc_funcs(xmalloc, free);
	config_init(&cfg);
	if (config_load(&cfg, conf, errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		config_release(&cfg);
		return EXIT_USAGE;
	}
	if (i >= argc || !strcmp(argv[i], "serve"))
		rc = (i + 1 < argc) ? usage() : cmd_serve(&cfg);
	else if (!strcmp(argv[i], "project"))
		rc = cmd_project(&cfg, argc - i - 1, argv + i + 1);
	else if (!strcmp(argv[i], "key"))
		rc = cmd_key(&cfg, argc - i - 1, argv + i + 1);
	else if (!strcmp(argv[i], "events"))
		rc = cmd_events(&cfg, argc - i - 1, argv + i + 1);
	else if (!strcmp(argv[i], "cert"))
		rc = cmd_cert(&cfg, argc - i - 1, argv + i + 1);
	else
		rc = usage();
	audit_file_free(cli_audit);
	config_release(&cfg);
	return rc;
}
