/*
 * Connection accounting around evhttp. We create each connection's
 * bufferevent (evhttp_set_bevcb) and hold a reference to it, so that after
 * evhttp frees it we can still see that it did (its callbacks are cleared)
 * and drop our reference, which closes the socket. A sweep timer does the
 * bookkeeping: drops released connections, ends those past their deadline,
 * and resumes the listener once there is room again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "addr_counts.h"
#include "conn_guard.h"
#include "header_scan.h"
#include "log.h"
#include "tls.h"
#include "util.h"

#define SWEEP_INTERVAL_US 250000
#define READ_MAX 16384             /* bytes one read from a socket takes, at most */
#define ACCEPT_LOG_INTERVAL_US 60000000   /* accept() failures: a line a minute at most */

struct conn_entry {
	struct conn_guard *g;
	struct bufferevent *bev;   /* we hold a reference */
	int64_t deadline_us;       /* when the next request must be in, if idle */
	int busy;                  /* requests being handled */
	bool read_capped;          /* its read watermark is set */
	bool tls;                  /* an OpenSSL bufferevent: its evbuffers hold plaintext */
	bool admitted;             /* on_admit has seen it */
	int fd;                    /* its slot in by_fd, or -1 */
	struct addr_count *addr;   /* its client address, NULL if not counted */
	/* libevent's own answer in the output, waiting for on_answer */
	bool answer_pending;
	bool closing;              /* ends once its answer is written; reads nothing more */
	bool lingering;            /* evhttp let it go: its input is read and dropped */
	bool linger_done;          /* the client closed: the sweep ends it */
	bool answer_stale;         /* the output changed otherwise since */
	struct header_scan scan;   /* the raw header section of its next request */
	bool request_folded;       /* the request being handled had a folded line */
	size_t answer_from;
	SLIST_ENTRY(conn_entry) answer_link;
	LIST_ENTRY(conn_entry) link;
};

struct conn_guard {
	struct server *srv;
	struct conn_policy p;
	struct evconnlistener *listener;
	struct event *sweep;
	struct event *admit;       /* new connections, once evhttp gave them their socket */
	struct event *answers;     /* libevent's answers, before they are sent */
	bool own_write;            /* our reply is being written */
	size_t input_high;         /* from here on, reads are capped (on_input) */
	LIST_HEAD(, conn_entry) conns;   /* newest first; the not yet admitted lead */
	SLIST_HEAD(, conn_entry) answer_queue;   /* answers for on_answers, newest first */
	/* Entries by socket, so that a request finds its connection without a
	 * walk of the list. The socket stays ours until entry_remove closes it,
	 * so its number is not reused first. */
	struct conn_entry **by_fd;
	int by_fd_cap;
	struct addr_counts addrs;   /* connections by client address */
	int count;
	bool paused;
	int64_t accept_logged_us;  /* when an accept() failure was last logged; 0: never */
	unsigned long accept_failures;   /* since */
	LIST_ENTRY(conn_guard) link;   /* in guards */
};

/* Every guard, so that a listener's error finds its own (on_listener_error). */
static LIST_HEAD(, conn_guard) guards = LIST_HEAD_INITIALIZER(guards);

static int64_t timeout_us(const struct conn_guard *g)
{
	return (int64_t)g->p.request_timeout_s * 1000000;
}

static void pause_listener(struct conn_guard *g)
{
	if (!g->paused && g->listener) {
		evconnlistener_disable(g->listener);
		g->paused = true;
	}
}

static void resume_listener(struct conn_guard *g)
{
	if (g->paused && g->listener && !g->srv->stopping) {
		evconnlistener_enable(g->listener);
		g->paused = false;
	}
}

static void count_changed(const struct conn_guard *g)
{
	if (g->p.on_count)
		g->p.on_count(g->count);
}

/* The connection's output changed. Bytes added while no reply of ours is
 * being written are libevent's own answer: note where it starts, and have
 * on_answers show it to the hook before the loop sends it (bufferevents
 * write only when the loop next polls the socket). A closing connection
 * whose answer is all written is ended by the sweep, at once (then lingers:
 * what it writes then, TLS's close_notify, ends nothing). */
static void on_output(struct evbuffer *out, const struct evbuffer_cb_info *info, void *arg)
{
	struct conn_entry *e = arg;
	struct conn_guard *g = e->g;

	if (e->closing && !e->lingering && info->n_deleted && evbuffer_get_length(out) == 0) {
		e->deadline_us = 0;   /* the sweep ends it now */
		event_active(g->sweep, EV_TIMEOUT, 0);
	}
	if (e->answer_pending) {
		/* bytes sent, or a reply of ours behind it: leave it alone */
		if (info->n_deleted || g->own_write)
			e->answer_stale = true;
		return;
	}
	if (!info->n_added || g->own_write || !g->p.on_answer)
		return;
	e->answer_pending = true;
	e->answer_stale = false;
	e->answer_from = info->orig_size;
	SLIST_INSERT_HEAD(&g->answer_queue, e, answer_link);
	event_active(g->answers, EV_TIMEOUT, 0);
}

/* The input read ahead of a connection's requests is bounded by
 * input_max: while an answer waits to be written, evhttp keeps reading "to
 * detect a close", and a client that pipelines and never reads would
 * otherwise grow the input without end. A read watermark bounds it, but
 * libevent re-arms the read event on every change of a watermarked input,
 * several times a request; so the watermark is set only while the input
 * holds input_high or more, below which one read cannot pass input_max. */
/* Feeds the scan of the next request's header section from offset from of
 * in to its end, before evhttp reads it (and hides a folded line). */
static void scan_input(struct conn_entry *e, struct evbuffer *in, size_t from)
{
	struct evbuffer_ptr pos;
	struct evbuffer_iovec v[4];
	int n;

	while (!header_scan_done(&e->scan) && from < evbuffer_get_length(in) &&
	       evbuffer_ptr_set(in, &pos, from, EVBUFFER_PTR_SET) == 0 &&
	       (n = evbuffer_peek(in, -1, &pos, v, 4)) > 0) {
		for (int i = 0; i < n && i < 4; i++) {
			header_scan_feed(&e->scan, v[i].iov_base, v[i].iov_len);
			from += v[i].iov_len;
		}
	}
}

static void on_input(struct evbuffer *in, const struct evbuffer_cb_info *info, void *arg)
{
	struct conn_entry *e = arg;
	bool high;

	if (e->closing)
		evbuffer_drain(in, evbuffer_get_length(in));
	else if (info->n_added && !header_scan_done(&e->scan))
		scan_input(e, in, evbuffer_get_length(in) - info->n_added);
	high = evbuffer_get_length(in) >= e->g->input_high;
	if (high != e->read_capped) {
		bufferevent_setwatermark(e->bev, EV_READ, 0, high ? e->g->p.input_max : 0);
		e->read_capped = high;
	}
	/* evhttp took bytes: reading may go on, also of what OpenSSL holds */
	if (e->tls && info->n_deleted)
		tls_bufferevent_read_resumed(e->bev);
}

/* evhttp asks for each accepted connection's bufferevent. It gives it the
 * socket only after this returns, so the rest waits for on_admit, which
 * runs in the same loop iteration, before anything is read. With TLS the
 * bufferevent is OpenSSL's: its input and output are the plaintext evhttp
 * reads and writes, so every callback below sees what it sees on a plain
 * connection, and the deadline runs from the accept, handshake included. */
static struct bufferevent *on_accept(struct event_base *base, void *arg)
{
	struct conn_guard *g = arg;
	struct conn_entry *e = xcalloc(1, sizeof *e);

	e->g = g;
	e->fd = -1;
	e->tls = g->p.tls != NULL;
	e->bev = e->tls ? tls_bufferevent_new(g->p.tls, base)
	                : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_incref(e->bev);
	bufferevent_set_max_single_read(e->bev, READ_MAX);
	if (g->input_high == 0) {   /* limits under one read: capped from the start */
		bufferevent_setwatermark(e->bev, EV_READ, 0, g->p.input_max);
		e->read_capped = true;
	}
	header_scan_reset(&e->scan);
	evbuffer_add_cb(bufferevent_get_input(e->bev), on_input, e);
	evbuffer_add_cb(bufferevent_get_output(e->bev), on_output, e);
	e->deadline_us = mono_us() + timeout_us(g);
	LIST_INSERT_HEAD(&g->conns, e, link);
	if (++g->count >= g->p.max_connections)
		pause_listener(g);
	count_changed(g);
	event_active(g->admit, EV_TIMEOUT, 0);
	return e->bev;
}

/* evhttp_free and bufferevent_free clear every callback; evhttp itself
 * always keeps its error callback set on a connection it still owns. */
static bool released(struct bufferevent *bev)
{
	bufferevent_data_cb r, w;
	bufferevent_event_cb ev;
	void *arg;

	bufferevent_getcb(bev, &r, &w, &ev, &arg);
	return !r && !w && !ev;
}


static void unqueue_answer(struct conn_guard *g, struct conn_entry *e)
{
	SLIST_REMOVE(&g->answer_queue, e, conn_entry, answer_link);
	e->answer_pending = false;
}

static void entry_remove(struct conn_guard *g, struct conn_entry *e)
{
	LIST_REMOVE(e, link);
	if (e->fd >= 0 && g->by_fd[e->fd] == e)
		g->by_fd[e->fd] = NULL;
	if (e->addr)
		addr_counts_drop(&g->addrs, e->addr);
	if (e->answer_pending)
		unqueue_answer(g, e);
	evbuffer_remove_cb(bufferevent_get_input(e->bev), on_input, e);
	evbuffer_remove_cb(bufferevent_get_output(e->bev), on_output, e);
	if (e->tls)
		tls_bufferevent_close_notify(e->bev);
	bufferevent_decref(e->bev);   /* the last reference: closes the socket */
	free(e);
	g->count--;
	count_changed(g);
}

static void index_by_fd(struct conn_guard *g, struct conn_entry *e, int fd)
{
	if (fd >= g->by_fd_cap) {
		int cap = g->by_fd_cap ? g->by_fd_cap : 64;
		while (cap <= fd)
			cap *= 2;
		g->by_fd = xrealloc(g->by_fd, (size_t)cap * sizeof *g->by_fd);
		memset(g->by_fd + g->by_fd_cap, 0, (size_t)(cap - g->by_fd_cap) * sizeof *g->by_fd);
		g->by_fd_cap = cap;
	}
	g->by_fd[fd] = e;
	e->fd = fd;
}

/* ---- lingering close (RFC 9112 §9.6) ----
 * A connection that libevent's own answer ends (a body over max_body_bytes)
 * may still have the rest of its request under way. Closed with unread
 * input, the socket would send a reset, and the client, still writing,
 * could lose the answer before reading it. So once evhttp lets it go, we
 * stop writing (a FIN after the answer, or TLS's close_notify) and read
 * and drop its input until the client closes, request_timeout_s at most. */
static void linger_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void linger_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn_entry *e = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		e->linger_done = true;   /* ended by the sweep: never freed in its own callback */
		event_active(e->g->sweep, EV_TIMEOUT, 0);
	}
}

static void linger_start(struct conn_entry *e)
{
	int fd = bufferevent_getfd(e->bev);

	e->lingering = true;
	e->deadline_us = mono_us() + timeout_us(e->g);
	if (e->tls)
		tls_bufferevent_close_notify(e->bev);
	else if (fd >= 0)
		shutdown(fd, SHUT_WR);
	bufferevent_setwatermark(e->bev, EV_READ, 0, 0);
	bufferevent_setcb(e->bev, linger_read, NULL, linger_event, e);
	bufferevent_enable(e->bev, EV_READ | (e->tls ? EV_WRITE : 0));
}

/* As if the client had ended the stream: evhttp frees the connection at
 * once, whatever it was waiting for, and reads nothing more. A shutdown of
 * the socket would let it first read (and serve) what the kernel holds, and
 * go unnoticed while its reading is suspended at the watermark. Never for a
 * connection whose request is being handled. */
static void end_connection(struct conn_entry *e)
{
	bufferevent_trigger_event(e->bev, BEV_EVENT_EOF | BEV_EVENT_READING, 0);
}

/* A connection evhttp has freed stays listed until the next sweep: when its
 * address seems to be at its limit, those of its connections stop counting
 * at once (a client that closes and reconnects is not refused). */
static void uncount_released(struct conn_guard *g, struct addr_count *a)
{
	struct conn_entry *e;

	LIST_FOREACH(e, &g->conns, link)
		if (e->addr == a && released(e->bev)) {
			addr_counts_drop(&g->addrs, a);
			e->addr = NULL;
		}
}

/* A new connection has its socket: index it, count it under its client
 * address, and end it at once (evhttp has read nothing yet) when that
 * address has too many open. */
static void admit(struct conn_guard *g, struct conn_entry *e)
{
	int fd = bufferevent_getfd(e->bev);
	unsigned char addr[16];

	e->admitted = true;
	if (fd < 0 || released(e->bev))
		return;
	index_by_fd(g, e, fd);
	if (addr_counts_peer(fd, addr) < 0)
		return;
	e->addr = addr_counts_find(&g->addrs, addr);
	e->addr->count++;
	if (e->addr->count > g->p.max_per_address)
		uncount_released(g, e->addr);
	if (e->addr->count > g->p.max_per_address)
		end_connection(e);
}

static void on_admit(evutil_socket_t fd, short what, void *arg)
{
	struct conn_guard *g = arg;
	struct conn_entry *e = LIST_FIRST(&g->conns), *next;

	(void)fd;
	(void)what;
	/* New entries go to the head and are admitted in the iteration that
	 * made them, so those waiting are the first ones. */
	for (; e && !e->admitted; e = next) {
		next = LIST_NEXT(e, link);
		admit(g, e);
		if (released(e->bev))
			entry_remove(g, e);
	}
	if (g->count < g->p.max_connections)
		resume_listener(g);
}

/* Shows libevent's answers to the hook. One left stale (its bytes partly
 * sent meanwhile, as the socket was already writable in this iteration, or
 * a reply of ours written behind it; both rare) is left as it is; so is one
 * on a connection evhttp has freed. When the hook says the answer ends the
 * connection, nothing after it is read as a request, and the connection
 * ends once it is written: evhttp would keep a CONNECT's open and go on
 * reading requests, whatever the answer says. */
static void on_answers(evutil_socket_t fd, short what, void *arg)
{
	struct conn_guard *g = arg;
	struct conn_entry *e;
	struct evbuffer *out, *in;

	(void)fd;
	(void)what;
	while ((e = SLIST_FIRST(&g->answer_queue))) {
		SLIST_REMOVE_HEAD(&g->answer_queue, answer_link);
		e->answer_pending = false;
		if (e->answer_stale || released(e->bev))
			continue;
		/* a socket bufferevent keeps its output's start frozen between
		 * its writes, which keeps the hook from reading it too; an
		 * OpenSSL one never freezes it, and could not write if we did */
		out = bufferevent_get_output(e->bev);
		if (!e->tls)
			evbuffer_unfreeze(out, 1);
		g->own_write = true;
		e->closing = g->p.on_answer(out, e->answer_from, g->p.on_answer_arg);
		g->own_write = false;
		if (!e->tls)
			evbuffer_freeze(out, 1);
		if (e->closing) {
			in = bufferevent_get_input(e->bev);
			evbuffer_drain(in, evbuffer_get_length(in));
		}
	}
}

static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct conn_guard *g = arg;
	int64_t now = mono_us();
	struct conn_entry *e = LIST_FIRST(&g->conns), *next;

	(void)fd;
	(void)what;
	for (; e; e = next) {
		next = LIST_NEXT(e, link);
		if (e->busy > 0)
			continue;
		if (e->lingering) {
			if (e->linger_done || now > e->deadline_us)
				entry_remove(g, e);
			continue;
		}
		if (!released(e->bev) && now > e->deadline_us)
			end_connection(e);
		if (released(e->bev) && e->closing && !g->srv->stopping)
			linger_start(e);
		else if (released(e->bev))
			entry_remove(g, e);
	}
	if (g->count < g->p.max_connections)
		resume_listener(g);
}

/* accept() failed (EMFILE and the like): pause until a sweep finds room,
 * rather than spin on a listener that cannot accept (the sweep tries it
 * again every SWEEP_INTERVAL_US), and say so, once a minute at most.
 * libevent 2.1 hands an error callback the listener's user data, which
 * evhttp set to its struct evhttp, not ours: the guard is found by its
 * listener. */
static void on_listener_error(struct evconnlistener *l, void *arg)
{
	int err = errno;
	struct conn_guard *g;

	(void)arg;
	LIST_FOREACH(g, &guards, link)
		if (g->listener == l)
			break;
	if (!g) {
		evconnlistener_disable(l);   /* not ours to resume: never spin */
		return;
	}
	pause_listener(g);
	g->accept_failures++;
	if (g->accept_logged_us && mono_us() - g->accept_logged_us < ACCEPT_LOG_INTERVAL_US)
		return;
	log_error("%s listener cannot accept (%s): paused, tried again every %d ms; %lu "
	          "failures since the last such line (see LimitNOFILE in docs/operations.md)", g->p.name,
	          strerror(err), SWEEP_INTERVAL_US / 1000, g->accept_failures);
	g->accept_logged_us = mono_us();
	g->accept_failures = 0;
}

struct conn_guard *conn_guard_new(struct server *srv, const struct conn_policy *p)
{
	struct conn_guard *g = xcalloc(1, sizeof *g);
	struct timeval tv = { 0, SWEEP_INTERVAL_US };

	g->srv = srv;
	g->p = *p;
	g->input_high = p->input_max > READ_MAX ? p->input_max - READ_MAX : 0;
	addr_counts_init(&g->addrs);
	g->listener = p->bound ? evhttp_bound_socket_get_listener(p->bound) : NULL;
	if (g->listener)
		evconnlistener_set_error_cb(g->listener, on_listener_error);
	evhttp_set_bevcb(p->http, on_accept, g);
	g->sweep = event_new(srv->base, -1, EV_PERSIST, on_sweep, g);
	g->admit = event_new(srv->base, -1, 0, on_admit, g);
	g->answers = event_new(srv->base, -1, 0, on_answers, g);
	event_add(g->sweep, &tv);
	LIST_INSERT_HEAD(&guards, g, link);
	return g;
}

void conn_guard_set_max_connections(struct conn_guard *g, int n)
{
	g->p.max_connections = n;
	if (g->count >= n)
		pause_listener(g);
}

void conn_guard_stop_listening(struct conn_guard *g)
{
	if (g)
		g->listener = NULL;
}

void conn_guard_free(struct conn_guard *g)
{
	if (!g)
		return;
	LIST_REMOVE(g, link);
	event_free(g->sweep);
	event_free(g->admit);
	event_free(g->answers);
	while (!LIST_EMPTY(&g->conns))
		entry_remove(g, LIST_FIRST(&g->conns));
	free(g->by_fd);
	addr_counts_release(&g->addrs);
	free(g);
}

struct conn_entry *conn_guard_request_started(struct conn_guard *g, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	int fd = bev ? bufferevent_getfd(bev) : -1;
	struct conn_entry *e = fd >= 0 && fd < g->by_fd_cap ? g->by_fd[fd] : NULL;

	/* on_admit indexed every connection before evhttp read from it */
	if (!e || e->bev != bev)
		return NULL;
	e->busy++;
	/* evhttp has read this request whole: what its input holds now is the
	 * next one's, from its first byte */
	e->request_folded = e->scan.folded;
	header_scan_reset(&e->scan);
	scan_input(e, bufferevent_get_input(bev), 0);
	return e;
}

bool conn_guard_request_folded(const struct conn_entry *e)
{
	return e && e->request_folded;
}

void conn_guard_request_done(struct conn_guard *g, struct conn_entry *e)
{
	if (!e)
		return;
	e->busy--;
	e->deadline_us = mono_us() + timeout_us(g);
	/* OpenSSL's bufferevent writes each chain of its output as a record of
	 * its own, one system call each: the status line and headers, then the
	 * body. In one piece the answer goes as one (a copy, of one answer). */
	if (e->tls)
		evbuffer_pullup(bufferevent_get_output(e->bev), -1);
}

void conn_guard_own_write(struct conn_guard *g, bool on)
{
	g->own_write = on;
}

size_t conn_guard_unsent(const struct conn_guard *g)
{
	const struct conn_entry *e;
	size_t n = 0;

	if (!g)
		return 0;
	LIST_FOREACH(e, &g->conns, link)
		if (evbuffer_get_length(bufferevent_get_output(e->bev)) > 0)
			n++;
	return n;
}
