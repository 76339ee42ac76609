/*
 * The fair queue of back-channel logouts (backchannel_queue.h): a lane per
 * user of a client and a record per client, each found by a hash of its
 * key, and a ring of the lanes that have some waiting. A lane lives while
 * it holds an item in any state, a client while it has a lane, so an idle
 * client costs nothing and the lanes are at most the items.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backchannel_queue.h"
#include "util.h"

TAILQ_HEAD(item_line, backchannel_queue_item);

struct backchannel_client {
	struct backchannel_queue_named name;   /* first: the table's entry */
	size_t lanes, in_flight;
};

struct backchannel_lane {
	struct backchannel_queue_named name;   /* first: the table's entry */
	struct backchannel_client *client;
	struct item_line line;         /* BQ_WAITING, oldest first */
	size_t waiting, in_flight, held;
	bool in_ring;
	TAILQ_ENTRY(backchannel_lane) ring;
};

void backchannel_queue_init(struct backchannel_queue *q, size_t max_in_flight,
                            size_t max_per_client, size_t max_queued)
{
	memset(q, 0, sizeof *q);
	q->max_in_flight = max_in_flight;
	q->max_per_client = max_per_client;
	q->max_queued = max_queued;
	TAILQ_INIT(&q->ready);
}

/* ---- the tables: lanes by client and user, clients by ID ---- */

/* The entry of key in table, or NULL. */
static struct backchannel_queue_named *named_find(struct backchannel_queue_named **table,
                                                  const char *key)
{
	struct backchannel_queue_named *n = table[str_hash(key) % BACKCHANNEL_QUEUE_BUCKETS];

	while (n && strcmp(n->key, key) != 0)
		n = n->next_same_bucket;
	return n;
}

/* Enters n, a new entry of size bytes (zeroed but its key, which it now
 * owns), into table. */
static void *named_add(struct backchannel_queue_named **table, char *key, size_t size)
{
	struct backchannel_queue_named *n = xcalloc(1, size);
	struct backchannel_queue_named **b = &table[str_hash(key) % BACKCHANNEL_QUEUE_BUCKETS];

	n->key = key;
	n->next_same_bucket = *b;
	*b = n;
	return n;
}

/* Takes n out of table and frees it. */
static void named_free(struct backchannel_queue_named **table, struct backchannel_queue_named *n)
{
	struct backchannel_queue_named **p = &table[str_hash(n->key) % BACKCHANNEL_QUEUE_BUCKETS];

	while (*p != n)
		p = &(*p)->next_same_bucket;
	*p = n->next_same_bucket;
	free(n->key);
	free(n);
}

static void table_free(struct backchannel_queue_named **table)
{
	struct backchannel_queue_named *n;

	for (size_t i = 0; i < BACKCHANNEL_QUEUE_BUCKETS; i++)
		while ((n = table[i])) {
			table[i] = n->next_same_bucket;
			free(n->key);
			free(n);
		}
}

static struct backchannel_lane *lane_get(struct backchannel_queue *q, const char *client,
                                         const char *user)
{
	char *key = xasprintf("%s\x1f%s", client, user);   /* no ID holds a unit separator */
	struct backchannel_lane *l = (struct backchannel_lane *)named_find(q->lanes, key);
	struct backchannel_client *c;

	if (l) {
		free(key);
		return l;
	}
	l = named_add(q->lanes, key, sizeof *l);
	TAILQ_INIT(&l->line);
	c = (struct backchannel_client *)named_find(q->clients, client);
	if (!c)
		c = named_add(q->clients, xstrdup(client), sizeof *c);
	c->lanes++;
	l->client = c;
	return l;
}

/* Frees l once it holds nothing, and its client with its last lane. */
static void lane_put(struct backchannel_queue *q, struct backchannel_lane *l)
{
	struct backchannel_client *c = l->client;

	if (l->waiting || l->in_flight || l->held)
		return;
	assert(!l->in_ring);
	named_free(q->lanes, &l->name);
	if (--c->lanes == 0)
		named_free(q->clients, &c->name);
}

/* The ring holds exactly the lanes with some waiting. A lane that comes
 * in goes first: it has had no turn lately, and a lane that one user keeps
 * full has. */
static void ring_update(struct backchannel_queue *q, struct backchannel_lane *l)
{
	if (l->waiting && !l->in_ring)
		TAILQ_INSERT_HEAD(&q->ready, l, ring);
	else if (!l->waiting && l->in_ring)
		TAILQ_REMOVE(&q->ready, l, ring);
	l->in_ring = l->waiting > 0;
}

/* ---- items ---- */

static void line_add(struct backchannel_queue *q, struct backchannel_queue_item *it,
                     bool first)
{
	struct backchannel_lane *l = it->lane;

	it->state = BQ_WAITING;
	if (first)
		TAILQ_INSERT_HEAD(&l->line, it, link);
	else
		TAILQ_INSERT_TAIL(&l->line, it, link);
	l->waiting++;
	q->waiting++;
	ring_update(q, l);
}

/* Takes it (BQ_WAITING) out of its lane's line; it stays in the lane. */
static void line_remove(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	struct backchannel_lane *l = it->lane;

	assert(it->state == BQ_WAITING);
	TAILQ_REMOVE(&l->line, it, link);
	l->waiting--;
	q->waiting--;
	ring_update(q, l);
}

/* Frees the slot of it (BQ_IN_FLIGHT). */
static void slot_free(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	assert(it->state == BQ_IN_FLIGHT);
	it->lane->in_flight--;
	it->lane->client->in_flight--;
	q->in_flight--;
}

void backchannel_queue_remove(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	struct backchannel_lane *l = it->lane;

	switch (it->state) {
	case BQ_OUT:
		return;
	case BQ_WAITING:
		line_remove(q, it);
		break;
	case BQ_IN_FLIGHT:
		slot_free(q, it);
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
                                                     const char *client, const char *user,
                                                     size_t *lane_waiting)
{
	struct backchannel_lane *l = lane_get(q, client, user), *max;
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
	it->lane = l;
	line_add(q, it, false);
	return dropped;
}

struct backchannel_queue_item *backchannel_queue_next(struct backchannel_queue *q)
{
	struct backchannel_lane *l;
	struct backchannel_queue_item *it;

	if (q->in_flight >= q->max_in_flight)
		return NULL;
	TAILQ_FOREACH(l, &q->ready, ring)
		if (l->client->in_flight < q->max_per_client)
			break;
	if (!l)
		return NULL;
	it = TAILQ_FIRST(&l->line);
	line_remove(q, it);
	it->state = BQ_IN_FLIGHT;
	l->in_flight++;
	l->client->in_flight++;
	q->in_flight++;
	if (l->in_ring) {   /* its turn is over: last in the ring */
		TAILQ_REMOVE(&q->ready, l, ring);
		TAILQ_INSERT_TAIL(&q->ready, l, ring);
	}
	return it;
}

void backchannel_queue_hold(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	slot_free(q, it);
	it->state = BQ_HELD;
	it->lane->held++;
	q->held++;
}

void backchannel_queue_retry(struct backchannel_queue *q, struct backchannel_queue_item *it)
{
	assert(it->state == BQ_HELD);
	it->lane->held--;
	q->held--;
	line_add(q, it, true);
}

void backchannel_queue_release(struct backchannel_queue *q)
{
	table_free(q->lanes);
	table_free(q->clients);
	memset(q, 0, sizeof *q);
}

size_t backchannel_queue_in_flight(const struct backchannel_queue *q)
{
	return q->in_flight;
}

size_t backchannel_queue_queued(const struct backchannel_queue *q)
{
	return q->waiting + q->held;
}
