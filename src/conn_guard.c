/*
 * Connection accounting around evhttp. We create each connection's
 * bufferevent (evhttp_set_bevcb) and hold a reference to it, so that after
 * evhttp frees it we can still see that it did (its callbacks are cleared)
 * and drop our reference, which closes the socket. A sweep timer does the
 * bookkeeping: drops released connections, shuts down those past their
 * deadline, and resumes the listener once there is room again.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include "config.h"
#include "conn_guard.h"
#include "util.h"

#define SWEEP_INTERVAL_US 250000

struct conn_entry {
	struct bufferevent *bev;   /* we hold a reference */
	int64_t deadline_us;       /* when the next request must be in, if idle */
	int busy;                  /* requests being handled */
	bool shut;                 /* we shut it down already */
	int fd;                    /* its slot in by_fd, or -1 */
	struct conn_entry *prev, *next;
};

struct conn_guard {
	struct server *srv;
	struct evconnlistener *listener;
	struct event *sweep;
	struct conn_entry *head;
	/* Entries by socket, so that a request finds its connection without a
	 * walk of the list; filled at a connection's first request, since evhttp
	 * gives the bufferevent its socket only after on_accept. The socket stays
	 * ours until entry_remove closes it, so its number is not reused first. */
	struct conn_entry **by_fd;
	int by_fd_cap;
	int count;
	bool paused;
};

static int64_t timeout_us(const struct conn_guard *g)
{
	return (int64_t)g->srv->cfg->request_timeout_s * 1000000;
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

/* evhttp asks for each accepted connection's bufferevent. */
static struct bufferevent *on_accept(struct event_base *base, void *arg)
{
	struct conn_guard *g = arg;
	struct conn_entry *e = xcalloc(1, sizeof *e);

	e->fd = -1;
	e->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_incref(e->bev);
	e->deadline_us = mono_us() + timeout_us(g);
	e->next = g->head;
	if (g->head)
		g->head->prev = e;
	g->head = e;
	if (++g->count >= g->srv->cfg->max_connections)
		pause_listener(g);
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

static void entry_remove(struct conn_guard *g, struct conn_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		g->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	if (e->fd >= 0 && g->by_fd[e->fd] == e)
		g->by_fd[e->fd] = NULL;
	bufferevent_decref(e->bev);   /* the last reference: closes the socket */
	free(e);
	g->count--;
}

static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct conn_guard *g = arg;
	int64_t now = mono_us();
	struct conn_entry *e = g->head, *next;

	(void)fd;
	(void)what;
	for (; e; e = next) {
		next = e->next;
		if (e->busy > 0)
			continue;
		if (released(e->bev)) {
			entry_remove(g, e);
		} else if (now > e->deadline_us && !e->shut) {
			/* evhttp sees the end of the stream and frees the connection. */
			shutdown(bufferevent_getfd(e->bev), SHUT_RDWR);
			e->shut = true;
		}
	}
	if (g->count < g->srv->cfg->max_connections)
		resume_listener(g);
}

/* accept() failed (EMFILE and the like): pause until a sweep finds room,
 * rather than spin on a listener that cannot accept. */
static void on_listener_error(struct evconnlistener *l, void *arg)
{
	(void)l;
	pause_listener(arg);
}

struct conn_guard *conn_guard_new(struct server *srv)
{
	struct conn_guard *g = xcalloc(1, sizeof *g);
	struct timeval tv = { 0, SWEEP_INTERVAL_US };

	g->srv = srv;
	g->listener = srv->bound ? evhttp_bound_socket_get_listener(srv->bound) : NULL;
	if (g->listener)
		evconnlistener_set_error_cb(g->listener, on_listener_error);
	evhttp_set_bevcb(srv->http, on_accept, g);
	g->sweep = event_new(srv->base, -1, EV_PERSIST, on_sweep, g);
	event_add(g->sweep, &tv);
	return g;
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
	event_free(g->sweep);
	while (g->head)
		entry_remove(g, g->head);
	free(g->by_fd);
	free(g);
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

struct conn_entry *conn_guard_request_started(struct conn_guard *g, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	int fd = bev ? bufferevent_getfd(bev) : -1;
	struct conn_entry *e = fd >= 0 && fd < g->by_fd_cap ? g->by_fd[fd] : NULL;

	if (!bev)
		return NULL;
	/* A miss is the connection's first request: its socket was not known
	 * at accept. A connection keeps its socket, so one indexing is enough. */
	if (!e || e->bev != bev) {
		for (e = g->head; e && e->bev != bev; e = e->next)
			;
		if (e && fd >= 0)
			index_by_fd(g, e, fd);
	}
	if (e)
		e->busy++;
	return e;
}

void conn_guard_request_done(struct conn_guard *g, struct conn_entry *e)
{
	if (!e)
		return;
	e->busy--;
	e->deadline_us = mono_us() + timeout_us(g);
}
