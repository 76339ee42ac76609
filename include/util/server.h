#ifndef EDGEAUTH_SERVER_H
#define EDGEAUTH_SERVER_H
/* What every handler may reach: the read-only config, the store, the signing
 * keys and the loop. One per process, owned by main. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

struct config;
struct store;
struct keyring;
struct event_base;
struct evhttp;
struct evhttp_bound_socket;
struct passwords;
struct conn_guard;
struct throttle;
struct auth_cache;
struct event;
struct deferred_reply;
struct http_dispatch;
struct request_ctx;
struct evbuffer;
struct backchannel;
struct tls;
struct audit_file;
struct workers;
struct untold;

/* Answers that wait for the store (group_commit.c), in the order they were made. */
STAILQ_HEAD(reply_queue, deferred_reply);

/* The one sync of committed batches under way (store_sync_target); srv and
 * files are set once, by group_commit_start. */
struct sync_job {
	struct server *srv;
	struct store_files *files;
	int check;   /* store_files_sync's */
	char why[320];   /* why it failed, for the log */
};

struct server {
	const struct config *cfg;
	struct store *store;
	struct keyring *keys;          /* signing keys; fresh once a request refreshed it */
	struct passwords *passwords;   /* argon2 work, off the loop */
	struct event_base *base;
	struct evhttp *http;
	const struct http_dispatch *dispatch;   /* where http.c hands each request */
	/* Asked before an answer leaves: true when it keeps the answer to send
	 * later (http_send_held); NULL: every answer leaves at once. */
	bool (*hold_answer)(struct request_ctx *ctx, int status, struct evbuffer *buf);
	struct evhttp_bound_socket *bound;
	struct evhttp *metrics_http;    /* [metrics] listen, or NULL */
	struct conn_guard *metrics_guard;   /* its limits */
	struct conn_guard *guard;       /* connection limits and deadlines */
	struct tls *tls;                /* NULL: plain HTTP (config_tls_enabled) */
	/* Sign-in attempts not (yet) known to succeed: per account and client
	 * address, per account, per address. */
	struct throttle *signin_account_addresses;
	struct throttle *signin_accounts;
	struct throttle *signin_addresses;
	/* The bounds of docs/tokens.md "Limits": codes per session, refresh tokens per
	 * sign-in (family), each per minute; NULL: none (a unit test's). */
	struct throttle *session_codes;
	struct throttle *family_rotations;
	/* wrong codes typed on /device (docs/device.md), by address and by session */
	struct throttle *device_guesses;
	struct throttle *device_sessions;
	struct auth_cache *auth_cache;      /* verified bearer tokens */
	struct untold *untold;              /* rotations answered with an error */
	struct backchannel *backchannel;    /* back-channel logout delivery */
	struct audit_file *audit;           /* [audit] file; NULL: none */
	/* Group commit: answers wait until the batch they saw is durable: the
	 * open batch's answers, then, with synchronous=full, those of batches
	 * committed since the running sync began (unsynced) and those the
	 * running sync makes durable (syncing). */
	struct event *commit_ev;
	struct reply_queue deferred, unsynced, syncing;
	struct workers *syncer;   /* the sync's thread; NULL: commits sync themselves */
	struct sync_job sync;
	bool sync_running;
	bool sync_wanted;         /* a batch committed since the running sync began */
	/* The open batch's number (from 1), and whether a write began in it
	 * that no request owns: its failure then fails every answer. */
	uint64_t batch_seq;
	bool batch_unattributed;
	struct event *log_ev;   /* writes the iteration's request lines (log_flush) */
	int in_flight;          /* requests accepted and not yet answered */
	uint64_t requests;      /* requests accepted since start */
	int stopping;
};

#endif
