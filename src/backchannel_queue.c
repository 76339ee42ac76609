/*
 * The fair queue of back-channel logouts (backchannel_queue.h): a lane per
 * client, found by a hash of its key, and a ring of the lanes that have
 * some waiting. A lane lives while it holds an item in any state, so an
 * idle client costs nothing and the lanes are at most the items.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backchannel_queue.h"
#include "util.h"

TAILQ_HEAD(item_line, backchannel_queue_item);

struct backchannel_lane {
	char *key;
	struct item_line line;         /* BQ_WAITING, oldest first */
	size_t waiting, in_flight, held;
	bool in_ring;
	TAILQ_ENTRY(backchannel_lane) ring;
	struct backchannel_lane *next_same_bucket;
};

void backchannel_queue_init(struct backchannel_queue *q, size_t max_in_flight,
                            size_t max_per_lane, size_t max_queued)
{
	memset(q, 0, sizeof *q);
	q->max_in_flight = max_in_flight;
	q->max_per_lane = max_per_lane;
	q->max_queued = max_queued;
	TAILQ_INIT(&q->ready);
}

/* ---- lanes by key ---- */

static struct backchannel_lane **bucket_of(struct backchannel_queue *q, const char *key)
{
	return &q->by_key[str_hash(key) % BACKCHANNEL_QUEUE_BUCKETS];
}

static struct backchannel_lane *lane_get(struct backchannel_queue *q, const char *key)
{
	struct backchannel_lane **b = bucket_of(q, key), *l;

	for (l = *b; l; l = l->next_same_bucket)
		if (!strcmp(l->key, key))
			return l;
	l = xcalloc(1, sizeof *l);
	l->key = xstrdup(key);
	TAILQ_INIT(&l->line);
	l->next_same_bucket = *b;
	*b = l;
	return l;
}

/* Frees l once it holds nothing. */
static void lane_put(struct backchannel_queue *q, struct backchannel_lane *l)
{
	struct backchannel_lane **p;

	if (l->waiting || l->in_flight || l->held)
		return;
	assert(!l->in_ring);
	for (p = bucket_of(q, l->key); *p != l; p = &(*p)->next_same_bucket)
		assert(*p);
	*p = l->next_same_bucket;
	free(l->key);
	free(l);
}

/* The ring holds exactly the lanes with some waiting. */
static void ring_update(struct backchannel_queue *q, struct backchannel_lane *l)
{
	if (l->waiting && !l->in_ring)
		TAILQ_INSERT_TAIL(&q->ready, l, ring);
	else if (!l->waiting && l->in_ring)
		TAILQ_REMOVE(&q->ready, l, ring);
	l->in_ring = l->waiting > 0;
}

/* ---- items ---- */

/* Takes it (BQ_WAITING) out of its lane's line; it stays in the lane. */
static void unline(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	struct backchannel_lane *l = it->lane;

	assert(it->state == BQ_WAITING);
	TAILQ_REMOVE(&l->line, it, link);
	l->waiting--;
	q->waiting--;
	ring_update(q, l);
}

void backchannel_queue_remove(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	struct backchannel_lane *l = it->lane;

	switch (it->state) {
	case BQ_OUT:
		return;
	case BQ_WAITING:
		unline(q, it);
		break;
	case BQ_IN_FLIGHT:
		l->in_flight--;
		q->in_flight--;
		break;
	case BQ_HELD:
		l->held--;
		q->held--;
		break;
	}
	it->state = BQ_OUT;
	it->lane = NULL;
	lane_put(q, l);
}

/* The lane with the most waiting (the first in the ring of those). */
static struct backchannel_lane *longest(struct backchannel_queue *q)
{
	struct backchannel_lane *l, *max = NULL;

	TAILQ_FOREACH(l, &q->ready, ring)
		if (!max || l->waiting > max->waiting)
			max = l;
	return max;
}

struct backchannel_queue_item *backchannel_queue_add(struct backchannel_queue *q,
                                                     struct backchannel_queue_item *it,
                                                     const char *key, size_t *lane_waiting)
{
	struct backchannel_lane *l = lane_get(q, key), *max;
	struct backchannel_queue_item *dropped = NULL;

	assert(it->state == BQ_OUT);
	if (q->waiting + q->held >= q->max_queued) {
		max = longest(q);
		if (!max || max->waiting <= l->waiting + 1) {
			if (lane_waiting)
				*lane_waiting = l->waiting;
			lane_put(q, l);   /* a lane made for it alone goes again */
			return it;
		}
		dropped = TAILQ_LAST(&max->line, item_line);
		if (lane_waiting)
			*lane_waiting = max->waiting;
		backchannel_queue_remove(q, dropped);
	}
	it->state = BQ_WAITING;
	it->lane = l;
	TAILQ_INSERT_TAIL(&l->line, it, link);
	l->waiting++;
	q->waiting++;
	ring_update(q, l);
	return dropped;
}

struct backchannel_queue_item *backchannel_queue_next(struct backchannel_queue *q)
{
	struct backchannel_lane *l;
	struct backchannel_queue_item *it;

	if (q->in_flight >= q->max_in_flight)
		return NULL;
	TAILQ_FOREACH(l, &q->ready, ring)
		if (l->in_flight < q->max_per_lane)
			break;
	if (!l)
		return NULL;
	it = TAILQ_FIRST(&l->line);
	unline(q, it);
	it->state = BQ_IN_FLIGHT;
	l->in_flight++;
	q->in_flight++;
	if (l->in_ring) {   /* its turn is over: last in the ring */
		TAILQ_REMOVE(&q->ready, l, ring);
		TAILQ_INSERT_TAIL(&q->ready, l, ring);
	}
	return it;
}

void backchannel_queue_hold(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	assert(it->state == BQ_IN_FLIGHT);
	it->lane->in_flight--;
	q->in_flight--;
	it->state = BQ_HELD;
	it->lane->held++;
	q->held++;
}

void backchannel_queue_retry(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	struct backchannel_lane *l = it->lane;

	assert(it->state == BQ_HELD);
	l->held--;
	q->held--;
	it->state = BQ_WAITING;
	TAILQ_INSERT_HEAD(&l->line, it, link);
	l->waiting++;
	q->waiting++;
	ring_update(q, l);
}

void backchannel_queue_release(struct backchannel_queue *q)
{
	struct backchannel_lane *l;

	for (size_t i = 0; i < BACKCHANNEL_QUEUE_BUCKETS; i++)
		while ((l = q->by_key[i])) {
			q->by_key[i] = l->next_same_bucket;
			free(l->key);
			free(l);
		}
	memset(q, 0, sizeof *q);
}

const char *backchannel_queue_key(const struct backchannel_queue_item *it)
{
	return it->lane ? it->lane->key : NULL;
}

size_t backchannel_queue_in_flight(const struct backchannel_queue *q)
{
	return q->in_flight;
}

size_t backchannel_queue_queued(const struct backchannel_queue *q)
{
	return q->waiting + q->held;
}
