/*
 * Back-channel logout delivery (backchannel.h): the outbox and the queue.
 * Each outbox row becomes a struct delivery that lives until its row is
 * deleted: queued, then one attempt after another (backchannel_attempt.c),
 * then finished. An attempt ends in the delivery's own timer callback, here,
 * outside libevent's HTTP and DNS code, where its connection may be freed;
 * a failed one is retried, a finished one's row deleted at the next drain.
 * Nothing here blocks the loop.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>

#include "backchannel.h"
#include "backchannel_attempt.h"
#include "backchannel_policy.h"
#include "backchannel_queue.h"
#include "config.h"
#include "flow.h"
#include "keyring.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "store.h"
#include "store_outbox.h"
#include "util.h"

#define POKE_DELAY_MS 10   /* a commit's read waits this long: a burst of commits reads once */
#define DRAIN_ROWS 256     /* new rows taken from the outbox per read */
#define ID_BUCKETS 2048    /* deliveries alive are at most in flight + queued + one read */

/* The wait before the second and the third attempt. */
static const int retry_delay_s[BACKCHANNEL_ATTEMPTS - 1] = { 1, 5 };

struct backchannel {
	struct server *srv;
	struct backchannel_net net;    /* what every attempt shares */
	struct event *drain_ev;        /* reads the outbox: poked, or every POLL_MS */
	bool poked;
	struct drain *drain;           /* the drain in progress, one at a time */
	bool drain_again;              /* poked meanwhile: another drain follows */
	bool stopping;                 /* backchannel_free: deletes, reads nothing */
	struct backchannel_queue queue;   /* fair between clients and users */
	struct delivery_list finished;
	size_t finished_count, alive;
	struct backchannel_stats stats;
	struct delivery *by_id[ID_BUCKETS];   /* every delivery alive, by row ID */
};

#define DELIVERY_OF(item) \
	((struct delivery *)(void *)((char *)(item) - offsetof(struct delivery, in_queue)))

/* ---- deliveries by row ID: an outbox row is taken once ---- */

static struct delivery **bucket_of(struct backchannel *bc, const char *id)
{
	return &bc->by_id[str_hash(id) % ID_BUCKETS];
}

static bool taken(struct backchannel *bc, const char *id)
{
	for (struct delivery *d = *bucket_of(bc, id); d; d = d->next_same_bucket)
		if (!strcmp(d->row.id, id))
			return true;
	return false;
}

static void take(struct backchannel *bc, struct delivery *d)
{
	struct delivery **b = bucket_of(bc, d->row.id);

	d->next_same_bucket = *b;
	*b = d;
	bc->alive++;
}

static void untake(struct backchannel *bc, struct delivery *d)
{
	for (struct delivery **p = bucket_of(bc, d->row.id); *p; p = &(*p)->next_same_bucket)
		if (*p == d) {
			*p = d->next_same_bucket;
			bc->alive--;
			return;
		}
}

/* Starts queued deliveries while the queue gives slots. */
static void pump(struct backchannel *bc)
{
	struct backchannel_queue_item *it;

	while ((it = backchannel_queue_next(&bc->queue)))
		backchannel_attempt_start(DELIVERY_OF(it));
}

/* Delivered, given up or dropped: its row is deleted at the next read. */
static void finish(struct delivery *d)
{
	struct backchannel *bc = d->bc;

	backchannel_queue_remove(&bc->queue, &d->in_queue);
	d->state = D_FINISHED;
	TAILQ_INSERT_TAIL(&bc->finished, d, link);
	bc->finished_count++;
	backchannel_poke(bc);
}

/* The attempt is over (d->outcome): count, log, and retry or finish. */
static void attempt_done(struct delivery *d)
{
	struct backchannel *bc = d->bc;
	struct timeval wait = { 0, 0 };

	if (d->conn)
		evhttp_connection_free(d->conn);   /* a request still on it goes without callbacks */
	d->conn = NULL;
	switch (d->outcome) {
	case OUT_DELIVERED:
		bc->stats.delivered++;
		metrics_backchannel(METRICS_BACKCHANNEL_DELIVERED);
		backchannel_attempt_log(d, "%s", d->why);
		finish(d);
		break;
	case OUT_REJECTED:
		bc->stats.rejected++;
		metrics_backchannel(METRICS_BACKCHANNEL_REJECTED);
		backchannel_attempt_log(d, "%s, not retried", d->why);
		finish(d);
		break;
	case OUT_REFUSED:
		bc->stats.refused++;
		metrics_backchannel(METRICS_BACKCHANNEL_REFUSED);
		backchannel_attempt_log(d, "not sent: %s", d->why);
		finish(d);
		break;
	case OUT_FAILED:
		if (d->attempts < BACKCHANNEL_ATTEMPTS) {
			wait.tv_sec = retry_delay_s[d->attempts - 1];
			bc->stats.retried++;
			backchannel_attempt_log(d, "%s; tried again in %ld s", d->why, (long)wait.tv_sec);
			d->state = D_RETRY_WAIT;
			backchannel_queue_hold(&bc->queue, &d->in_queue);
			evtimer_add(d->timer, &wait);
		} else {
			bc->stats.given_up++;
			metrics_backchannel(METRICS_BACKCHANNEL_FAILED);
			backchannel_attempt_log(d, "%s; given up after %d attempts", d->why, d->attempts);
			finish(d);
		}
		break;
	}
	backchannel_attempt_clear(d);
	pump(bc);
}

/* The delivery's one timer: what it means depends on the state. */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct delivery *d = arg;

	(void)fd;
	(void)what;
	switch (d->state) {
	case D_RESOLVING:
	case D_SENDING:   /* the attempt's deadline */
		d->outcome = OUT_FAILED;
		snprintf(d->why, sizeof d->why, "no answer within %d s", BACKCHANNEL_TIMEOUT_S);
		d->state = D_ENDING;
		if (d->lookup)
			evdns_getaddrinfo_cancel(d->lookup);   /* its callback comes later, ignored */
		d->lookup = NULL;
		attempt_done(d);
		break;
	case D_ENDING:
		attempt_done(d);
		break;
	case D_RETRY_WAIT:   /* first in its lane: its time has come */
		d->state = D_QUEUED;
		backchannel_queue_retry(&d->bc->queue, &d->in_queue);
		pump(d->bc);
		break;
	case D_QUEUED:
	case D_FINISHED:
		break;
	}
}

/* ---- the outbox ---- */

static void delivery_free(struct delivery *d)
{
	if (d->lookup)
		evdns_getaddrinfo_cancel(d->lookup);
	if (d->conn)
		evhttp_connection_free(d->conn);
	event_free(d->timer);
	backchannel_attempt_clear(d);
	backchannel_queue_remove(&d->bc->queue, &d->in_queue);
	untake(d->bc, d);
	outbox_row_release(&d->row);
	free(d);
}

/* d made room in a full queue, or found none: not sent, and never in
 * silence (a warning and the dropped counter). lane_waiting: how many its
 * user had waiting for its client, the most of any. */
static void drop(struct delivery *d, size_t lane_waiting)
{
	struct backchannel *bc = d->bc;

	bc->stats.dropped++;
	metrics_backchannel(METRICS_BACKCHANNEL_DROPPED);
	log_warn("back-channel logout %s to client %s: dropped: %d logouts are queued already, "
	         "%zu of them of this user to this client, the most of any", d->row.id,
	         d->row.client_id, BACKCHANNEL_MAX_QUEUED, lane_waiting);
	finish(d);
}

/* A new row: queued in the lane of its user at its client, and started
 * when the queue gives it a slot; when the queue is full, it or the newest
 * of the longest lane is dropped. Takes the row's strings. */
static void admit(struct backchannel *bc, struct outbox_row *row)
{
	struct delivery *d = xcalloc(1, sizeof *d);
	struct backchannel_queue_item *dropped;
	size_t lane_waiting = 0;

	d->bc = bc;
	d->net = &bc->net;
	d->row = *row;
	memset(row, 0, sizeof *row);
	d->timer = evtimer_new(bc->srv->base, on_timer, d);
	take(bc, d);
	d->state = D_QUEUED;
	dropped = backchannel_queue_add(&bc->queue, &d->in_queue,
	                                d->row.client_id ? d->row.client_id : "",
	                                d->row.subject ? d->row.subject : "", &lane_waiting);
	if (dropped)
		drop(DELIVERY_OF(dropped), lane_waiting);
	pump(bc);
}

/* ---- a drain: delete what finished, read, refresh the keys, admit ---- */

/* The store completes a drain's steps at once on SQLite, later on
 * PostgreSQL; what they fill lives here, apart from bc, so that a stop
 * during a drain leaves it an orphan (bc NULL) that its last completion
 * frees. */
struct drain {
	struct backchannel *bc;
	size_t deleting;               /* the first of bc->finished, whose rows go */
	size_t limit;                  /* what the read asked for */
	struct outbox_rows rows;       /* what it got */
	struct keyring_refresh keys;
};

static void drain_next(struct drain *dr);

/* The end of a drain, whatever happened (a failure was logged by the store;
 * what it did not do is done by the next). */
static void drain_end(struct drain *dr)
{
	struct backchannel *bc = dr->bc;

	outbox_rows_release(&dr->rows);
	keyring_refresh_release(&dr->keys);
	free(dr);
	if (!bc)
		return;
	bc->drain = NULL;
	if (bc->drain_again) {
		bc->drain_again = false;
		backchannel_poke(bc);
	}
}

/* The rows of the deliveries that finished before the delete went. */
static void finished_deleted(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;
	struct delivery *d;

	if (err || !bc) {
		drain_end(dr);   /* the deliveries are kept for the next try */
		return;
	}
	for (; dr->deleting > 0 && (d = TAILQ_FIRST(&bc->finished)); dr->deleting--) {
		TAILQ_REMOVE(&bc->finished, d, link);
		bc->finished_count--;
		delivery_free(d);
	}
	drain_next(dr);
}

/* Admits the rows not yet taken (the keys are fresh). */
static void rows_admit(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;

	(void)err;   /* a failed refresh keeps the ring as it was */
	for (size_t i = 0; bc && i < dr->rows.count; i++)
		if (!taken(bc, dr->rows.rows[i].id))
			admit(bc, &dr->rows.rows[i]);
	if (bc && dr->rows.count == dr->limit)
		bc->drain_again = true;   /* more may wait */
	drain_end(dr);
}

/* Brings the key ring up to the store before the first new row's token is
 * signed (a rotation by the CLI); after the read, as keyring_refresh asks. */
static void rows_read(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;

	if (err || !bc) {
		drain_end(dr);
		return;
	}
	for (size_t i = 0; i < dr->rows.count; i++)
		if (!taken(bc, dr->rows.rows[i].id)) {
			keyring_refresh(&dr->keys, bc->srv->keys, bc->srv->store, false,
			                (struct completion){ rows_admit, dr });
			return;
		}
	rows_admit(dr, NULL);
}

/* Rows are read only outside a batch transaction, so that a logout of a
 * change that may still roll back is never sent; the batch's commit pokes
 * again. (On PostgreSQL no batch is open here: a read answers only once its
 * batch committed.) */
static void drain_next(struct drain *dr)
{
	struct backchannel *bc = dr->bc;

	if (bc->stopping || store_batch_open(bc->srv->store)) {
		drain_end(dr);
		return;
	}
	/* the rows taken come first in the worst case: read past them */
	dr->limit = bc->alive + DRAIN_ROWS;
	store_outbox_read(bc->srv->store, dr->limit, &dr->rows, (struct completion){ rows_read, dr });
}

/* The rows of the deliveries finished, as the delete takes them (the
 * array is the caller's to free). */
static const char **finished_ids(struct backchannel *bc)
{
	const char **ids = xcalloc(bc->finished_count, sizeof *ids);
	struct delivery *d;
	size_t i = 0;

	TAILQ_FOREACH(d, &bc->finished, link)
		ids[i++] = d->row.id;
	return ids;
}

/* Deletes the rows of finished deliveries, in one transaction, then takes
 * the rows not yet taken. */
static void drain(struct backchannel *bc)
{
	struct drain *dr;
	const char **ids;

	if (bc->drain) {
		bc->drain_again = true;
		return;
	}
	dr = xcalloc(1, sizeof *dr);
	dr->bc = bc;
	bc->drain = dr;
	if (bc->finished_count == 0) {
		drain_next(dr);
		return;
	}
	ids = finished_ids(bc);
	dr->deleting = bc->finished_count;
	store_outbox_delete(bc->srv->store, ids, dr->deleting,
	                    (struct completion){ finished_deleted, dr });
	free(ids);
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
	struct backchannel *bc = arg;
	long ms = bc->srv->cfg->backchannel_poll_ms;
	struct timeval poll = { ms / 1000, (ms % 1000) * 1000 };

	(void)fd;
	(void)what;
	bc->poked = false;
	drain(bc);
	if (!bc->poked)
		evtimer_add(bc->drain_ev, &poll);
}

void backchannel_poke(struct backchannel *bc)
{
	static const struct timeval soon = { 0, POKE_DELAY_MS * 1000 };

	if (bc->poked)
		return;
	bc->poked = true;
	evtimer_add(bc->drain_ev, &soon);
}

/* Another node (or the CLI) queued a logout. */
static void on_queued(void *arg)
{
	backchannel_poke(arg);
}

struct backchannel *backchannel_new(struct server *srv, struct evdns_base *dns, char *errbuf,
                                    size_t errlen)
{
	struct backchannel *bc = xcalloc(1, sizeof *bc);

	bc->srv = srv;
	bc->net.srv = srv;
	bc->net.dns = dns;
	backchannel_queue_init(&bc->queue, BACKCHANNEL_MAX_IN_FLIGHT,
	                       BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT, BACKCHANNEL_MAX_QUEUED);
	TAILQ_INIT(&bc->finished);
	if (backchannel_policy_init(&bc->net.policy, srv->cfg, errbuf, errlen) < 0) {
		free(bc);
		return NULL;
	}
	bc->drain_ev = evtimer_new(srv->base, on_drain, bc);
	store_outbox_on_queued(srv->store, on_queued, bc);
	backchannel_poke(bc);   /* rows left by the last run, or by another process */
	return bc;
}

void backchannel_free(struct backchannel *bc)
{
	size_t pending, lookups = 0;

	if (!bc)
		return;
	bc->stopping = true;
	store_outbox_on_queued(bc->srv->store, NULL, NULL);
	if (!bc->drain && bc->finished_count > 0)
		drain(bc);   /* their rows go (on PostgreSQL, if the pool still sends) */
	if (bc->drain)
		bc->drain->bc = NULL;   /* its completions end it alone */
	pending = bc->alive - bc->finished_count;
	for (size_t i = 0; i < ID_BUCKETS; i++)
		while (bc->by_id[i]) {
			lookups += bc->by_id[i]->lookup != NULL;
			delivery_free(bc->by_id[i]);
		}
	/* a cancelled lookup is released by its callback, which evdns runs from
	 * the loop: one pass lets it, before the resolver goes */
	if (lookups)
		event_base_loop(bc->srv->base, EVLOOP_NONBLOCK);
	if (pending)
		log_info("back-channel: %zu logout(s) not delivered at the stop; "
		         "they are sent at the next start", pending);
	backchannel_net_release(&bc->net);
	event_free(bc->drain_ev);
	backchannel_queue_release(&bc->queue);
	free(bc);
}

const struct backchannel_stats *backchannel_stats(const struct backchannel *bc)
{
	return &bc->stats;
}

size_t backchannel_in_flight(const struct backchannel *bc)
{
	return backchannel_queue_in_flight(&bc->queue);
}

size_t backchannel_queued(const struct backchannel *bc)
{
	return backchannel_queue_queued(&bc->queue);
}

void backchannel_allow_reloaded(struct backchannel *bc, const struct config *cfg)
{
	bc->net.policy.allow = cfg->backchannel_allow;
	bc->net.policy.allow_count = cfg->backchannel_allow_count;
}
