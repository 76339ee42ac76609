#ifndef EDGEAUTH_BACKCHANNEL_H
#define EDGEAUTH_BACKCHANNEL_H
/*
 * Back-channel logout delivery (OIDC Back-Channel Logout 1.0, docs/signin.md
 * §"Back-channel logout"). The rows of the outbox (store_outbox.h) become logout tokens POSTed
 * to the clients' back-channel URIs from the loop, and the loop never waits
 * for one: names are resolved with evdns, the POST is libevent's HTTP
 * client (over TLS for https), and each attempt is bounded in time and in
 * what it reads. No answer to a browser waits for a delivery either: the
 * outbox is read after the commit that filled it.
 *
 * Deliveries wait in a queue fair between clients and between users
 * (backchannel_queue.h), so that a client that answers slowly, or one
 * user's many logouts, delay and crowd out no one else's. A delivery is tried up to
 * BACKCHANNEL_ATTEMPTS times; its row is deleted once it was delivered,
 * given up or dropped, so a delivery cut short by a stop is made again,
 * with the same jti, at the next start. Loop thread only.
 */
#include <stddef.h>
#include <stdint.h>

#include "backchannel_limits.h"

struct config;
struct server;
struct evdns_base;

/* Outcomes since start (for the log's reader and the metrics). */
struct backchannel_stats {
	uint64_t delivered;   /* a 2xx answer */
	uint64_t rejected;    /* another answer (3xx: no redirect is followed; 4xx): final */
	uint64_t retried;     /* failed attempts (no connection, timeout, 5xx) tried again */
	uint64_t given_up;    /* deliveries whose every attempt failed */
	uint64_t refused;     /* not sent: address not allowed, URI unusable, nothing signs */
	uint64_t dropped;     /* not sent: the queue was full (logged as a warning) */
};

struct backchannel;

/* Starts delivering for srv (its loop, store, keys and config): the outbox
 * is read at once and every [oidc] backchannel_poll_ms. dns is the resolver to
 * use, NULL for the system's (resolv.conf, /etc/hosts; made at the first
 * name), which the caller keeps until backchannel_free. NULL with a reason
 * in errbuf (the listen address cannot be resolved). */
struct backchannel *backchannel_new(struct server *srv, struct evdns_base *dns, char *errbuf,
                                    size_t errlen);
/* The store may hold new rows (a commit happened): read them soon. Cheap;
 * a burst of calls reads once. */
void backchannel_poke(struct backchannel *bc);
/* Stops: rows of finished deliveries are deleted; attempts under way are
 * cut, and their rows stay for the next start. NULL is a no-op. */
void backchannel_free(struct backchannel *bc);
/* [oidc] backchannel_allow as cfg now holds it (a SIGHUP reload replaced
 * the list): the next attempt checks by it. */
void backchannel_allow_reloaded(struct backchannel *bc, const struct config *cfg);

const struct backchannel_stats *backchannel_stats(const struct backchannel *bc);
/* Attempts under way; deliveries waiting (for a slot or a retry). */
size_t backchannel_in_flight(const struct backchannel *bc);
size_t backchannel_queued(const struct backchannel *bc);

#endif
