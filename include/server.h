#ifndef EDGEAUTH_SERVER_H
#define EDGEAUTH_SERVER_H
/* What every handler may reach: the read-only config, the store, the signing
 * keys and the loop. One per process, owned by main. */
#include <stdint.h>

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
struct backchannel;
struct tls;
struct audit_file;

struct server {
	const struct config *cfg;
	struct store *store;
	struct keyring *keys;          /* signing keys; fresh once a request refreshed it */
	struct passwords *passwords;   /* argon2 work, off the loop */
	struct event_base *base;
	struct evhttp *http;
	struct evhttp_bound_socket *bound;
	struct evhttp *metrics_http;    /* [metrics] listen, or NULL */
	struct conn_guard *guard;       /* connection limits and deadlines */
	struct tls *tls;                /* NULL: plain HTTP (config_tls_enabled) */
	/* Sign-in attempts not (yet) known to succeed: per account and client
	 * address, per account, per address. */
	struct throttle *signin_account_addresses;
	struct throttle *signin_accounts;
	struct throttle *signin_addresses;
	struct auth_cache *auth_cache;      /* verified bearer tokens */
	struct backchannel *backchannel;    /* back-channel logout delivery */
	struct audit_file *audit;           /* [audit] file; NULL: none */
	/* Group commit: answers wait here until the batch they saw is durable. */
	struct event *commit_ev;
	struct deferred_reply *deferred_head, *deferred_tail;
	struct event *log_ev;   /* writes the iteration's request lines (log_flush) */
	int in_flight;          /* requests accepted and not yet answered */
	uint64_t requests;      /* requests accepted since start */
	int stopping;
};

#endif
