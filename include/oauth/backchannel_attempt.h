#ifndef EDGEAUTH_BACKCHANNEL_ATTEMPT_H
#define EDGEAUTH_BACKCHANNEL_ATTEMPT_H
/*
 * One back-channel logout delivery, and its attempts (backchannel.c drives
 * them: the outbox, the queue, the retries, the timer). An attempt resolves
 * the URI's host, checks every address against [oidc] backchannel_allow,
 * connects (TLS for https), POSTs the logout token and reads the status
 * line; its outcome is recorded and the delivery's timer fires at once, so
 * the attempt ends outside libevent's callbacks. Loop thread only.
 */
#include <stdbool.h>
#include <sys/queue.h>
#include <openssl/ssl.h>

#include "backchannel_policy.h"
#include "backchannel_queue.h"
#include "store_outbox.h"

struct backchannel;
struct server;
struct evdns_base;
struct evdns_getaddrinfo_request;
struct evhttp_connection;
struct event;

/* What every attempt shares, made at the first need. */
struct backchannel_net {
	struct server *srv;
	struct evdns_base *dns;        /* NULL until the first name, when ours */
	bool own_dns;
	SSL_CTX *tls;                  /* NULL until the first https URI */
	struct backchannel_policy policy;
};
/* Frees the resolver (when ours), the TLS context and the policy. */
void backchannel_net_release(struct backchannel_net *net);

enum delivery_state {
	D_QUEUED,       /* waiting for an attempt slot (its lane of bc->queue) */
	D_RESOLVING,    /* an attempt: looking the host's name up */
	D_SENDING,      /* an attempt: connecting, writing, reading the answer */
	D_ENDING,       /* the attempt's outcome is known; its end runs next */
	D_RETRY_WAIT,   /* waiting to try again (held in bc->queue) */
	D_FINISHED,     /* delivered, given up or dropped: its row is to go (bc->finished) */
};

enum outcome {
	OUT_DELIVERED,  /* a 2xx */
	OUT_REJECTED,   /* another answer: final */
	OUT_FAILED,     /* no connection, a timeout, a 5xx: tried again */
	OUT_REFUSED,    /* not sent, final */
};

/* Where an attempt goes, from the row's URI. */
struct target {
	bool tls;
	char *host;          /* as in the URI (an IPv6 address in brackets), for Host */
	char *name;          /* without brackets: what is resolved and verified */
	char *host_header;   /* host, and :port when the URI has one */
	unsigned port;
	char *path;          /* path and query; "/" at least */
};

struct delivery {
	struct backchannel *bc;  /* the driver (backchannel.c) */
	struct backchannel_net *net;   /* bc's, for the attempt */
	struct outbox_row row;   /* owned */
	int attempts;            /* made so far, the one under way included */
	enum delivery_state state;
	struct event *timer;     /* by state: the deadline, the end, the retry's wait */
	struct evdns_getaddrinfo_request *lookup;
	struct evhttp_connection *conn;
	struct target target;    /* of the attempt under way */
	enum outcome outcome;
	char why[160];           /* the outcome in words, for the log */
	struct backchannel_queue_item in_queue;   /* from admitted to finished */
	TAILQ_ENTRY(delivery) link;       /* bc->finished */
	struct delivery *next_same_bucket;
};

TAILQ_HEAD(delivery_list, delivery);

/* Starts an attempt of d (queued, given a slot): d->attempts counts it, and
 * the timer is its deadline. */
void backchannel_attempt_start(struct delivery *d);
/* One log line of d's outcome: jti, client, host, and fmt. */
void backchannel_attempt_log(const struct delivery *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Forgets the attempt's target (after its outcome is logged). */
void backchannel_attempt_clear(struct delivery *d);

#endif
