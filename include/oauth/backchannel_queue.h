#ifndef EDGEAUTH_BACKCHANNEL_QUEUE_H
#define EDGEAUTH_BACKCHANNEL_QUEUE_H
/*
 * The back-channel logouts waiting for an attempt, fair between clients
 * and between users (docs/signin.md "Back-channel logout"): a relying party that
 * answers slowly, or one user who signs in and out in a loop, must neither
 * delay nor push out the logouts of the others.
 *
 * Each user of each client has a lane: their logouts to it waiting,
 * oldest first (one waiting for its retry goes first when its time comes).
 * Attempt slots go round robin among the lanes, and the lanes of one
 * client hold at most max_per_client of them, so a client whose every
 * attempt hangs leaves the other slots to the others, and another user's
 * logout to it waits for one turn, not for the noisy user's backlog. When
 * max_queued are waiting, the newest of the longest lane makes room: a
 * lane with fewer logouts waiting never loses one to it.
 *
 * A data structure only: no I/O, no clock; backchannel.c drives it. Items
 * are embedded in the caller's structs, which own them; the queue owns
 * its lanes. Loop thread only.
 */
#include <stddef.h>
#include <sys/queue.h>

struct backchannel_lane;
struct backchannel_client;

enum backchannel_queue_state {
	BQ_OUT,         /* in no lane: new, finished, or dropped */
	BQ_WAITING,     /* in its lane, for a slot */
	BQ_IN_FLIGHT,   /* holds a slot */
	BQ_HELD,        /* waits for its retry's time: counts as queued, in no line */
};

/* Embedded in what is queued; zeroed, it is BQ_OUT. */
struct backchannel_queue_item {
	enum backchannel_queue_state state;
	struct backchannel_lane *lane;   /* when not BQ_OUT */
	TAILQ_ENTRY(backchannel_queue_item) link;   /* the lane's line when BQ_WAITING */
};

TAILQ_HEAD(backchannel_lane_ring, backchannel_lane);

#define BACKCHANNEL_QUEUE_BUCKETS 256

/* A key's entry in one of the queue's tables (a lane, a client). */
struct backchannel_queue_named {
	char *key;
	struct backchannel_queue_named *next_same_bucket;
};

struct backchannel_queue {
	size_t max_in_flight;    /* slots in all */
	size_t max_per_client;   /* slots the lanes of one client may hold */
	size_t max_queued;       /* waiting and held, in all */
	size_t in_flight, waiting, held;
	struct backchannel_lane_ring ready;   /* lanes with some waiting, next to serve first */
	struct backchannel_queue_named *lanes[BACKCHANNEL_QUEUE_BUCKETS];
	struct backchannel_queue_named *clients[BACKCHANNEL_QUEUE_BUCKETS];
};

void backchannel_queue_init(struct backchannel_queue *q, size_t max_in_flight,
                            size_t max_per_client, size_t max_queued);
/* Frees the lanes; the items still in one are the caller's to forget. */
void backchannel_queue_release(struct backchannel_queue *q);

/*
 * Puts it (BQ_OUT) last in the lane of user at client (both copied).
 * When max_queued are queued already, one is dropped to make room: the
 * newest waiting in the longest lane, or it itself when its own lane is as
 * long (or no lane has one waiting). Returns the dropped item (now
 * BQ_OUT), for the caller to count, log and finish; NULL when none was.
 * lane_waiting, when not NULL, gets how many the dropped one's lane held
 * waiting, for the log.
 */
struct backchannel_queue_item *backchannel_queue_add(struct backchannel_queue *q,
                                                     struct backchannel_queue_item *it,
                                                     const char *client, const char *user,
                                                     size_t *lane_waiting);
/* The next to attempt, now BQ_IN_FLIGHT: the first waiting of the next
 * lane in turn whose client may take a slot. NULL when none may start. */
struct backchannel_queue_item *backchannel_queue_next(struct backchannel_queue *q);
/* An attempt of it (BQ_IN_FLIGHT) failed and is tried again later: its
 * slot is free, and it stays queued (BQ_HELD). */
void backchannel_queue_hold(struct backchannel_queue *q, struct backchannel_queue_item *it);
/* Its retry's time came (BQ_HELD): first in its lane's line. */
void backchannel_queue_retry(struct backchannel_queue *q, struct backchannel_queue_item *it);
/* It leaves the queue, whatever its state (delivered, given up, freed at
 * a stop); its slot, if any, is free. BQ_OUT is a no-op. */
void backchannel_queue_remove(struct backchannel_queue *q, struct backchannel_queue_item *it);

/* Slots taken; waiting and held. */
size_t backchannel_queue_in_flight(const struct backchannel_queue *q);
size_t backchannel_queue_queued(const struct backchannel_queue *q);

#endif
