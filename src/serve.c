/*
 * edgeauth serve: start, the one libevent loop, and the clean stop. The
 * other commands (cli.c) open the same store beside a running server and
 * exit.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <event2/event.h>

#include "audit_file.h"
#include "auth.h"
#include "backchannel.h"
#include "cli_project.h"
#include "cli_store.h"
#include "crypto.h"
#include "group_commit.h"
#include "config.h"
#include "conn_guard.h"
#include "http.h"
#include "keyring.h"
#include "log.h"
#include "metrics_http.h"
#include "router.h"
#include "serve.h"
#include "notify.h"
#include "passwords.h"
#include "server.h"
#include "store.h"
#include "secret_file.h"
#include "store_backup.h"
#include "store_events.h"
#include "store_projects.h"
#include "store_sessions.h"
#include "store_tokens.h"
#include "store_users.h"
#include "throttle.h"
#include "tls.h"
#include "untold.h"
#include "util.h"
#include "version.h"

/* ---- TLS: the pair at start and on SIGHUP (docs/operations.md §"TLS") ---- */

/* Loads the pair when the config has one; 0, or -1 (reason logged). */
static int start_tls(struct server *srv)
{
	char msg[512];

	if (!config_tls_enabled(srv->cfg))
		return 0;
	srv->tls = tls_new(srv->cfg, srv->base, msg, sizeof msg);
	if (!srv->tls) {
		log_error("%s", msg);
		return -1;
	}
	tls_describe(srv->tls, msg, sizeof msg);
	log_info("TLS %s", msg);
	return 0;
}

/* ---- SIGHUP: the config file again (docs/operations.md §"Reload") ---- */

struct reload {
	struct server *srv;
	struct config *cfg;   /* srv->cfg, which only the reload writes */
};

static void on_key_changed(const struct config_key *k, bool applied, void *arg)
{
	(void)arg;
	if (applied)
		log_info("SIGHUP: [%s] %s changed", k->section, k->key);
	else
		log_warn("SIGHUP: [%s] %s changed, which needs a restart: the running value stays "
		         "until then", k->section, k->key);
}

/* What holds a reloaded value of its own takes it up. */
static void reloaded(struct server *srv)
{
	const struct config *cfg = srv->cfg;

	log_set_format(cfg->log_format);
	throttle_set_limit(srv->signin_account_addresses, cfg->signin_max_failures,
	                   cfg->signin_window_s);
	throttle_set_limit(srv->signin_accounts, cfg->signin_max_failures_per_account,
	                   cfg->signin_window_s);
	throttle_set_limit(srv->signin_addresses, cfg->signin_max_failures_per_address,
	                   cfg->signin_window_s);
	throttle_set_limit(srv->device_guesses, cfg->signin_max_failures_per_address,
	                   cfg->signin_window_s);
	throttle_set_limit(srv->device_sessions, cfg->signin_max_failures, cfg->signin_window_s);
	throttle_set_limit(srv->session_codes, cfg->max_codes_per_minute, THROTTLE_BOUND_WINDOW_S);
	throttle_set_limit(srv->family_rotations, cfg->max_rotations_per_minute,
	                   THROTTLE_BOUND_WINDOW_S);
	backchannel_allow_reloaded(srv->backchannel, cfg);
}

/* New connections get the pair as the files now hold it (a renewal); open
 * ones keep theirs. A pair that fails to load leaves the old one in use. */
static void reload_tls(struct server *srv)
{
	char msg[512];

	if (!srv->tls)
		return;
	tls_set_paths(srv->tls, srv->cfg->tls_cert, srv->cfg->tls_key);
	if (tls_reload(srv->tls, msg, sizeof msg) < 0) {
		log_error("SIGHUP: %s; the previous certificate stays in use", msg);
	} else {
		tls_describe(srv->tls, msg, sizeof msg);
		log_info("SIGHUP: TLS %s", msg);
	}
}

/* The audit file is reopened (logrotate moved it away), or another one
 * opened when [audit] file changed. */
static void reload_audit(struct server *srv, const char *was)
{
	const char *now = srv->cfg->audit_file;

	if (was && now && !strcmp(was, now)) {
		audit_file_reopen(srv->audit);
		return;
	}
	audit_file_free(srv->audit);
	srv->audit = now ? audit_file_open(now) : NULL;
	store_events_sink(srv->store, now ? audit_file_write : NULL, srv->audit);
}

/* A file that fails validation is refused whole: the running config stays. */
static void on_sighup(evutil_socket_t sig, short what, void *arg)
{
	struct reload *rl = arg;
	char errbuf[512], *audit = rl->cfg->audit_file ? xstrdup(rl->cfg->audit_file) : NULL;

	(void)sig;
	(void)what;
	notify_reloading();
	if (config_reload(rl->cfg, rl->cfg->source, on_key_changed, NULL, errbuf,
	                  sizeof errbuf) < 0) {
		log_error("SIGHUP: %s; the file is refused whole, the running configuration stays",
		          errbuf);
	} else {
		reloaded(rl->srv);
		log_info("SIGHUP: configuration reloaded from %s", rl->cfg->source);
	}
	reload_tls(rl->srv);
	reload_audit(rl->srv, audit);
	free(audit);
	notify_reloaded();
}

/* ---- descriptors: room for every connection ---- */

/* Descriptors the server opens while it runs, beyond those open once it
 * listens and the connections: a socket per back-channel delivery under
 * way, the WAL's sync, SQLite's temporary files, a TLS reload, an audit
 * file reopened, a PostgreSQL reconnection. */
#define FD_HEADROOM (BACKCHANNEL_MAX_IN_FLIGHT + 32)

/* Descriptors open now (Linux: /proc/self/fd), or -1. */
static int fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = -1;   /* the directory's own */

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Makes RLIMIT_NOFILE leave room for max_connections plus the metrics
 * listener's, what is open now (store, listeners, workers), PostgreSQL's
 * pool and FD_HEADROOM, so that accept() never runs out: the soft limit
 * is raised as far as the hard one allows; if that is still short, the
 * API's max_connections is lowered to what fits, and logged (a start
 * refused would turn an upgrade into an outage). Returns 0, or -1 (logged)
 * when not one connection fits. */
static int fit_descriptor_limit(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct rlimit rl;
	int open = fds_open();
	rlim_t others, need;
	long fit;

	if (open < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;   /* nothing to measure by: as configured */
	/* a pool that connects later is counted again: a few to spare */
	others = (rlim_t)open + FD_HEADROOM + (srv->metrics_guard ? METRICS_MAX_CONNECTIONS : 0) +
	         (cfg->store_postgres ? (rlim_t)cfg->pool_size : 0);
	need = others + (rlim_t)cfg->max_connections;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	fit = rl.rlim_cur > others ? (long)(rl.rlim_cur - others) : 0;
	if (fit < 1) {
		log_error("the open files limit (RLIMIT_NOFILE, LimitNOFILE) is %llu: %llu are taken "
		          "before any connection; raise it to at least %llu for max_connections = %d",
		          (unsigned long long)rl.rlim_cur, (unsigned long long)others,
		          (unsigned long long)need, cfg->max_connections);
		return -1;
	}
	log_warn("the open files limit (RLIMIT_NOFILE, LimitNOFILE) is %llu: max_connections "
	         "lowered from %d to %ld; raise it to at least %llu for %d",
	         (unsigned long long)rl.rlim_cur, cfg->max_connections, fit,
	         (unsigned long long)need, cfg->max_connections);
	conn_guard_set_max_connections(srv->guard, (int)fit);
	return 0;
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
	log_info("signal %d, stopping", (int)sig);
	notify_stopping();
	sd->srv->stopping = 1;
	http_stop_accepting(sd->srv);
	sd->deadline_us = mono_us() + sd->srv->cfg->stop_grace_s * 1000000LL;
	sd->tick = event_new(sd->srv->base, -1, EV_PERSIST, on_drain_tick, sd);
	event_add(sd->tick, &tv);
}

/* Requests in flight finish, their answers are handed to the kernel (an
 * answer is sent once it is in the connection's output, but the loop must
 * run until it is written), and the store's operations under way (a
 * back-channel read on PostgreSQL) end, up to the grace period; then the
 * loop ends. */
static void on_drain_tick(evutil_socket_t fd, short what, void *arg)
{
	struct shutdown *sd = arg;

	(void)fd;
	(void)what;
	if ((sd->srv->in_flight <= 0 && conn_guard_unsent(sd->srv->guard) == 0 &&
	     store_idle(sd->srv->store)) ||
	    mono_us() > sd->deadline_us)
		event_base_loopbreak(sd->srv->base);
}

/* Expired codes, refresh tokens and revocation entries go in small batches,
 * a grace period after expiry (so that until then they still answer
 * auth_code_expired or refresh_token_expired, and a replay is still seen),
 * so one tick never holds the loop for long; a full batch asks for another
 * tick PURGE_AGAIN_MS later, so that the purge keeps up with any inflow:
 * up to 50,000 rows a second of each table, each batch one statement,
 * where each row came from a request of its own (and the bounds of
 * docs/tokens.md's "Limits" keep what one session or sign-in writes in a minute
 * small). On PostgreSQL a tick reads the count of the last run that ended
 * (pg_purge_run). Sessions that expired or ended go at once: nothing answers
 * about them (an ended session's sign-ins were revoked when it ended, and
 * deleting an expired one revokes nothing). Events of the audit trail go
 * once older than [audit] retention_days. */
#define PURGE_BATCH 500
#define PURGE_AGAIN_MS 10
#define DAY_MS (86400 * 1000LL)

struct purge {
	struct server *srv;
	struct event *ev;
	int64_t started_ms;    /* the wall clock at start */
	int64_t started_us;    /* the monotonic clock then */
};

/* The wall clock, but never ahead of the monotonic time since start: a
 * clock stepped forward (and later back) must not purge a revocation while
 * its token can still live in the corrected clock's view (docs/decisions.md
 * "Clock steps"). One stepped back is taken as is:
 * that only keeps rows longer. */
static int64_t purge_clock(struct purge *pg)
{
	int64_t wall = now_ms(), steady = pg->started_ms + (mono_us() - pg->started_us) / 1000;

	return wall < steady ? wall : steady;
}

static void on_purge_tick(evutil_socket_t fd, short what, void *arg)
{
	struct purge *pg = arg;
	struct api_error err;
	struct timeval tv = { pg->srv->cfg->purge_interval_s, 0 };
	int n = store_purge_expired(pg->srv->store, PURGE_BATCH, purge_clock(pg),
	                            pg->srv->cfg->purge_grace_s * 1000LL, &err);
	int sessions = store_session_purge(pg->srv->store, PURGE_BATCH, now_ms(), &err);
	int events = store_event_purge(pg->srv->store, PURGE_BATCH,
	                               now_ms() - pg->srv->cfg->audit_retention_days * DAY_MS, &err);

	(void)fd;
	(void)what;
	if (n >= PURGE_BATCH || sessions >= PURGE_BATCH || events >= PURGE_BATCH)
		tv = (struct timeval){ 0, PURGE_AGAIN_MS * 1000 };
	evtimer_add(pg->ev, &tv);
}

/* New users wait for their search keys (schema/012), which are then
 * written into a small table (schema/005) and moved into the search index
 * in key order, all while the server is idle: many users' keys in one
 * transaction, and a run of keys in order, share the pages they touch,
 * where each create on its own dirtied a page per key. A tick that finds
 * no request since the last one takes steps of SUFFIX_MOVE_KEYS keys (or
 * of their users' worth of keys to write) for up to SUFFIX_MOVE_BUDGET_MS and
 * comes straight back (a request that arrives meanwhile waits at most that
 * long); one that finds requests keeps off for SUFFIX_MOVE_BACKOFF_MS, so a
 * busy server's answers never wait for it. With nothing to move, or after a
 * failure, it looks again after a second. Under constant load the users and
 * keys stay where they are, which searches read too; but a search scans the
 * users still pending (~0.5 us each), so past SUFFIX_PENDING_MAX of them a
 * busy server's tick writes keys for SUFFIX_MOVE_BUDGET_MS too (a fifth of
 * the loop, ~1,600 users a second on the bench's machine). */
#define SUFFIX_MOVE_KEYS 2000
#define SUFFIX_MOVE_BUDGET_MS 10
#define SUFFIX_MOVE_BACKOFF_MS 50
#define SUFFIX_PENDING_MAX 10000

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
	bool idle = srv->requests == sm->requests && srv->in_flight == 0 &&
	            !store_batch_open(srv->store);

	if (idle || store_user_suffixes_backlog(srv->store, SUFFIX_PENDING_MAX)) {
		int rc;
		while ((rc = store_user_suffixes_move(srv->store, SUFFIX_MOVE_KEYS, &err)) > 0 &&
		       now_ms() < until)
			;
		if (idle)
			tv = rc > 0 ? (struct timeval){ 0, 0 }   /* more to move: after what is ready */
			            : (struct timeval){ 1, 0 };  /* none left, or failed (logged) */
	}
	sm->requests = srv->requests;
	evtimer_add(sm->ev, &tv);
}

/* The path of default-admin.json in file's directory. Caller frees. */
static char *admin_file_beside(const char *file)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		return xstrdup("default-admin.json");
	return xasprintf("%.*s/default-admin.json", (int)(slash - file), file);
}

/* Writes text to default-admin.json beside file: 0, or -1 (logged). */
static int admin_file_write(const char *file, const char *text)
{
	char *path = admin_file_beside(file), errbuf[512];
	int rc = secret_file_replace(path, "admin client file", text, strlen(text), errbuf,
	                             sizeof errbuf);

	if (rc == 0)
		log_info("the default project's admin client (with its secret) is in %s; "
		         "read it, then delete it", path);
	else
		log_error("%s", errbuf);
	free(path);
	return rc;
}

/* The default project's admin client, the one time its secret exists in
 * the clear (docs/operations.md §"The program"): to default-admin.json
 * (0600) beside the store (on PostgreSQL beside the config file, or, where
 * that is read-only as under the unit's ProtectSystem, beside [store]
 * path, whose lock file the server writes), and to stdout unless stdout is
 * the journal (JOURNAL_STREAM), which must not hold a secret. A file left
 * by an earlier first start is replaced. Returns 0, or -1 (logged) when
 * the secret reached neither. */
static int hand_over_admin(const struct config *cfg, const struct new_project *np)
{
	char *text = cli_new_project_text(np);
	bool journal = getenv("JOURNAL_STREAM") != NULL;
	int rc;

	if (!journal)
		cli_print_new_project(np);
	rc = cfg->store_postgres ? admin_file_write(cfg->source, text) : -1;
	if (rc != 0)
		rc = admin_file_write(cfg->store_path, text);
	if (rc != 0 && journal)
		log_error("the admin client's secret is lost: `edgeauth project admin-client ID` "
		          "makes another");
	crypto_free_wiped(text);
	return rc == 0 || !journal ? 0 : -1;
}

/* A store with no project gets one, so a newcomer can call the API at once. */
static int ensure_default_project(const struct config *cfg, struct store *st)
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
	n = hand_over_admin(cfg, &np);
	store_new_project_release(&np);
	return (int)n;
}

int serve_run(struct config *cfg)
{
	struct server srv = { .cfg = cfg };
	struct reload rl = { .srv = &srv, .cfg = cfg };
	struct shutdown sd = { .srv = &srv };
	struct purge pg = { .srv = &srv, .started_ms = now_ms(), .started_us = mono_us() };
	struct suffix_mover sm = { .srv = &srv };
	struct timeval first_tick = { 1, 0 };
	struct event *sigint = NULL, *sigterm = NULL, *sighup = NULL;
	struct event_config *ecfg;
	char errbuf[512];
	struct notify *notify = NULL;
	int rc = 1, lock = -1;

	signal(SIGPIPE, SIG_IGN);
	log_set_format(cfg->log_format);
	/* held until exit: no restore while the server runs (store_backup.h) */
	lock = store_lock(cfg->store_path, false, errbuf, sizeof errbuf);
	if (lock < 0) {
		log_error("%s", errbuf);
		goto out;
	}
	srv.store = cli_open_store(cfg);
	if (!srv.store)
		goto out;
	if (store_check_after_crash(srv.store, errbuf, sizeof errbuf) < 0) {
		log_error("%s", errbuf);
		goto out;
	}
	srv.keys = keyring_open(cfg, srv.store, errbuf, sizeof errbuf);
	if (!srv.keys) {
		log_error("%s", errbuf);
		goto out;
	}
	/* libevent's changelist folds the epoll_ctl calls one iteration makes
	 * on a socket (evhttp turns reading off and writing on for each
	 * answer): 4 a request -> 2 (docs/BENCHMARKS.md). It is unsafe only
	 * for dup()ed descriptors, and we register none. */
	ecfg = event_config_new();
	if (!ecfg)
		goto out;
	event_config_set_flag(ecfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	srv.base = event_base_new_with_config(ecfg);
	event_config_free(ecfg);
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
	srv.device_guesses = throttle_new((size_t)cfg->signin_tracked_keys,
	                                  cfg->signin_max_failures_per_address, cfg->signin_window_s);
	srv.device_sessions = throttle_new((size_t)cfg->signin_tracked_keys,
	                                   cfg->signin_max_failures, cfg->signin_window_s);
	srv.untold = untold_new();
	srv.session_codes = throttle_new((size_t)cfg->signin_tracked_keys, cfg->max_codes_per_minute,
	                                 THROTTLE_BOUND_WINDOW_S);
	srv.family_rotations = throttle_new((size_t)cfg->signin_tracked_keys,
	                                    cfg->max_rotations_per_minute, THROTTLE_BOUND_WINDOW_S);
	if (start_tls(&srv) < 0 || http_start(&srv, &router_http_dispatch) < 0 ||
	    metrics_http_start(&srv) < 0)
		goto out;
	/* Listening: a start that fails from here on has handed the admin client
	 * over already. Before store_serve, whose PostgreSQL connections stop
	 * blocking (and only the first node on an empty database creates it). */
	if (ensure_default_project(cfg, srv.store) < 0)
		goto out;
	if (cfg->audit_file) {
		srv.audit = audit_file_open(cfg->audit_file);
		store_events_sink(srv.store, audit_file_write, srv.audit);
	}
	store_serve(srv.store, srv.base);
	group_commit_start(&srv);
	srv.backchannel = backchannel_new(&srv, NULL, errbuf, sizeof errbuf);
	if (!srv.backchannel) {
		log_error("%s", errbuf);
		goto out;
	}
	if (fit_descriptor_limit(&srv) < 0)
		goto out;
	sigint = evsignal_new(srv.base, SIGINT, on_signal, &sd);
	sigterm = evsignal_new(srv.base, SIGTERM, on_signal, &sd);
	event_add(sigint, NULL);
	event_add(sigterm, NULL);
	sighup = evsignal_new(srv.base, SIGHUP, on_sighup, &rl);
	event_add(sighup, NULL);
	pg.ev = evtimer_new(srv.base, on_purge_tick, &pg);
	evtimer_add(pg.ev, &first_tick);
	sm.ev = evtimer_new(srv.base, on_suffix_move_tick, &sm);
	evtimer_add(sm.ev, &first_tick);
	log_info("listening on %s:%d, issuer %s", cfg->listen_host,
	        cfg->listen_port, cfg->issuer);
	notify = notify_ready(srv.base);
	event_base_dispatch(srv.base);
	rc = 0;
out:
	notify_free(notify);
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
	 * the deletes of finished ones join the batch group_commit_free commits */
	backchannel_free(srv.backchannel);
	srv.backchannel = NULL;
	group_commit_free(&srv);
	http_free(&srv);
	metrics_http_free(&srv);
	tls_free(srv.tls);   /* after every connection is gone */
	auth_cache_free(srv.auth_cache);
	throttle_free(srv.signin_account_addresses);
	throttle_free(srv.signin_accounts);
	throttle_free(srv.signin_addresses);
	throttle_free(srv.device_guesses);
	throttle_free(srv.device_sessions);
	untold_free(srv.untold);
	throttle_free(srv.session_codes);
	throttle_free(srv.family_rotations);
	if (srv.base)
		event_base_free(srv.base);
	store_close(srv.store);
	audit_file_free(srv.audit);   /* after the store's last commit */
	keyring_free(srv.keys);
	if (lock >= 0)
		close(lock);
	if (rc == 0)
		log_info("stopped");
	return rc;
}
