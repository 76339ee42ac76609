#ifndef EDGEAUTH_CONN_GUARD_H
#define EDGEAUTH_CONN_GUARD_H
/*
 * Connection limits that evhttp 2.1 does not have: at most max_connections
 * open at once (the listener pauses, so the surplus waits in the kernel's
 * backlog), at most max_connections_per_address from one client (an IPv4
 * address or IPv6 /64, cidr_client_group; beyond, a new connection is
 * closed at once), a total deadline of
 * request_timeout_s for each request to arrive whole, however slowly its
 * bytes trickle (slowloris), since evhttp's own timeout only measures silence
 * between bytes, and a bound on the bytes read ahead of a connection's
 * requests (a client that pipelines without reading the answers). When
 * accept() fails (out of descriptors) the listener pauses too, and is tried
 * again at the next sweep, rather than spin. One guard per listener: the
 * API's and the metrics listener's.
 *
 * It also tells libevent's own answers (error pages evhttp writes before a
 * request reaches edgeauth) from ours: see conn_guard_own_write. A
 * connection such an answer ends closes lingering (RFC 9112 §9.6): writing
 * ends, and its input is read and dropped until the client closes,
 * request_timeout_s at most, so that a client still sending its body reads
 * the answer rather than a reset.
 */
#include <stdbool.h>
#include <stddef.h>

#include "server.h"

struct conn_guard;
struct conn_entry;
struct evbuffer;
struct evhttp_request;
struct evhttp;
struct evhttp_bound_socket;
struct tls;

/* Called on the loop when bytes reached a connection's output outside
 * conn_guard_own_write: libevent's own answer, which starts at offset
 * `from` of out and has not been sent yet. The hook may rewrite it there.
 * It returns true when the answer ends the connection. */
typedef bool conn_guard_answer_fn(struct evbuffer *out, size_t from, void *arg);

/* What one listener allows, and how it is told of things. */
struct conn_policy {
	const char *name;          /* the listener, in log lines: "API", "metrics" */
	struct evhttp *http;
	struct evhttp_bound_socket *bound;   /* NULL: not listening */
	struct tls *tls;           /* NULL: plain HTTP */
	int max_connections;       /* open at once; beyond, the listener pauses */
	int max_per_address;       /* open at once from one client (cidr_client_group) */
	int request_timeout_s;     /* for each request to arrive whole */
	size_t input_max;          /* bytes read ahead of the request being handled */
	conn_guard_answer_fn *on_answer;   /* NULL: libevent's answers go as they are */
	void *on_answer_arg;
	void (*on_count)(int open);        /* told the connections open; NULL: none */
};

/* Installs itself on p->http (after its socket is bound); p is copied. */
struct conn_guard *conn_guard_new(struct server *srv, const struct conn_policy *p);
/* Lowers (or raises) max_connections from now on: the descriptors the
 * process may open leave room for fewer (serve.c). */
void conn_guard_set_max_connections(struct conn_guard *g, int n);
/* The listener is gone (shutdown): never touch it again. */
void conn_guard_stop_listening(struct conn_guard *g);
/* Call after evhttp_free. NULL is a no-op. */
void conn_guard_free(struct conn_guard *g);
/* A request of the connection is being handled: no deadline while it is.
 * Returns the entry to hand back to conn_guard_request_done (may be NULL). */
struct conn_entry *conn_guard_request_started(struct conn_guard *g, struct evhttp_request *req);
/* Whether the request just started had a header line folded onto the one
 * above (obs-fold, RFC 9112 §5.2), which evhttp reads as part of that value. */
bool conn_guard_request_folded(const struct conn_entry *e);
/* Its reply went out: the next request has request_timeout_s to arrive. */
void conn_guard_request_done(struct conn_guard *g, struct conn_entry *e);
/* Between (g, true) and (g, false) what reaches a connection's output is our
 * own reply; anything else is libevent's answer. */
void conn_guard_own_write(struct conn_guard *g, bool on);
/* Connections whose output still holds bytes not handed to the kernel: a
 * stopping server waits for them, since evhttp_free drops what is left. */
size_t conn_guard_unsent(const struct conn_guard *g);

#endif
