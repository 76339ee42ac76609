/*
 * backchannel_queue.c, the fair queue of back-channel logouts (issue24.5):
 * order within a lane (a user at a client), slots round robin between
 * lanes, the per-client and total slot caps, a retry first in its lane,
 * and which logout a full queue drops (the newest of the longest lane,
 * never one of a shorter lane). Small limits: 4 slots, 2 per client, 6
 * queued. A lane's key here is "client/user".
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "backchannel_queue.h"
#include "check_suite.h"

#define ITEMS 32

struct entry {
	struct backchannel_queue_item it;   /* first: an item is its entry */
	char name[16];
};

static struct {
	struct backchannel_queue q;
	struct entry e[ITEMS];
	size_t lane_waiting;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	backchannel_queue_init(&fx.q, 4, 2, 6);
	for (int i = 0; i < ITEMS; i++)
		snprintf(fx.e[i].name, sizeof fx.e[i].name, "e%d", i);
}

static void teardown(void)
{
	for (int i = 0; i < ITEMS; i++)
		backchannel_queue_remove(&fx.q, &fx.e[i].it);
	backchannel_queue_release(&fx.q);
}

/* Adds entry i to the lane "client/user" (a bare client: user u); the
 * dropped entry's index, or -1. */
static int add(int i, const char *lane)
{
	char client[16], user[16] = "u";
	struct backchannel_queue_item *d;

	if (sscanf(lane, "%15[^/]/%15s", client, user) < 1)
		ck_abort_msg("bad lane %s", lane);
	d = backchannel_queue_add(&fx.q, &fx.e[i].it, client, user, &fx.lane_waiting);

	return d ? (int)((struct entry *)d - fx.e) : -1;
}

/* The next entry to start, or -1. */
static int next(void)
{
	struct backchannel_queue_item *it = backchannel_queue_next(&fx.q);

	return it ? (int)((struct entry *)it - fx.e) : -1;
}

/* One lane: oldest first, two slots at most (its client's), then nothing. */
START_TEST(test_lane_order_and_cap)
{
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(add(i, "a"), -1);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), 1);
	ck_assert_int_eq(next(), -1);   /* a holds its 2 slots; 2 of 4 are free */
	ck_assert_uint_eq(backchannel_queue_in_flight(&fx.q), 2);
	ck_assert_uint_eq(backchannel_queue_queued(&fx.q), 2);
	backchannel_queue_remove(&fx.q, &fx.e[0].it);   /* delivered */
	ck_assert_int_eq(next(), 2);
}
END_TEST

/* issue24.5: a lane whose slots hang does not hold back another lane,
 * and slots alternate between lanes that wait. */
START_TEST(test_round_robin)
{
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(add(i, "slow"), -1);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), 1);
	ck_assert_int_eq(next(), -1);
	ck_assert_int_eq(add(10, "b"), -1);
	ck_assert_int_eq(add(11, "b"), -1);
	ck_assert_int_eq(add(12, "c"), -1);
	ck_assert_int_eq(next(), 12);   /* c, the newest in the ring, first */
	ck_assert_int_eq(next(), 10);   /* then b, before slow's backlog */
	ck_assert_int_eq(next(), -1);   /* 4 slots in all */
	backchannel_queue_remove(&fx.q, &fx.e[12].it);
	ck_assert_int_eq(next(), 11);   /* slow holds its 2 slots still */
	backchannel_queue_remove(&fx.q, &fx.e[0].it);
	ck_assert_int_eq(next(), 2);
}
END_TEST

/* A failed attempt frees its slot and stays queued; its retry goes first
 * in its lane. */
START_TEST(test_retry_first_in_lane)
{
	ck_assert_int_eq(add(0, "a"), -1);
	ck_assert_int_eq(add(1, "a"), -1);
	ck_assert_int_eq(add(2, "a"), -1);
	ck_assert_int_eq(next(), 0);
	backchannel_queue_hold(&fx.q, &fx.e[0].it);
	ck_assert_uint_eq(backchannel_queue_in_flight(&fx.q), 0);
	ck_assert_uint_eq(backchannel_queue_queued(&fx.q), 3);
	ck_assert_int_eq(next(), 1);
	backchannel_queue_retry(&fx.q, &fx.e[0].it);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), -1);
}
END_TEST

/* issue24.5: a full queue drops the newest of the longest lane, never a
 * logout of a shorter one, and a lane's own newest when it is the longest. */
START_TEST(test_full_queue_drops_from_the_longest_lane)
{
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(add(i, "noisy"), -1);
	ck_assert_int_eq(add(6, "noisy"), 6);   /* its own lane is the longest */
	ck_assert_uint_eq(fx.lane_waiting, 6);
	ck_assert_int_eq(add(10, "victim"), 5);   /* the newest of noisy makes room */
	ck_assert_uint_eq(fx.lane_waiting, 6);
	ck_assert(fx.e[5].it.state == BQ_OUT);
	ck_assert(fx.e[10].it.state == BQ_WAITING);
	ck_assert_uint_eq(backchannel_queue_queued(&fx.q), 6);
	ck_assert_int_eq(add(11, "victim"), 4);
	ck_assert_int_eq(add(12, "victim"), 3);   /* noisy 4, victim 2: noisy still */
	ck_assert_int_eq(add(13, "victim"), 13);  /* 3 and 3: the newcomer's own */
	ck_assert_int_eq(add(14, "third"), 12);   /* victim and noisy 3: the first in turn */
	ck_assert_uint_eq(backchannel_queue_queued(&fx.q), 6);
	ck_assert_int_eq(next(), 14);   /* lanes that came in go first */
	ck_assert_int_eq(next(), 10);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), 11);
}
END_TEST

/* Items held for their retry count as queued, but cannot be dropped: with
 * nothing waiting to drop, the newcomer goes. */
START_TEST(test_held_are_not_dropped)
{
	backchannel_queue_init(&fx.q, 8, 8, 2);
	ck_assert_int_eq(add(0, "a"), -1);
	ck_assert_int_eq(add(1, "a"), -1);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), 1);
	backchannel_queue_hold(&fx.q, &fx.e[0].it);
	backchannel_queue_hold(&fx.q, &fx.e[1].it);
	ck_assert_int_eq(add(2, "b"), 2);
	ck_assert_uint_eq(fx.lane_waiting, 0);
	ck_assert(fx.e[2].it.state == BQ_OUT);
	ck_assert_ptr_null(fx.e[2].it.lane);
}
END_TEST

/* A lane goes when it holds nothing, and comes back fresh. */
START_TEST(test_lanes_come_and_go)
{
	ck_assert_int_eq(add(0, "a"), -1);
	ck_assert_int_eq(next(), 0);
	backchannel_queue_remove(&fx.q, &fx.e[0].it);
	for (int i = 0; i < BACKCHANNEL_QUEUE_BUCKETS; i++) {
		ck_assert_ptr_null(fx.q.lanes[i]);
		ck_assert_ptr_null(fx.q.clients[i]);
	}
	ck_assert(TAILQ_EMPTY(&fx.q.ready));
	ck_assert_int_eq(add(1, "a"), -1);
	ck_assert_int_eq(next(), 1);
	ck_assert_uint_eq(backchannel_queue_in_flight(&fx.q), 1);
}
END_TEST

/* issue24.5: another user's logout to a client that one user floods waits
 * for one turn of that client's slots, not for the flood; the client's
 * users share its 2 slots. */
START_TEST(test_users_of_one_client)
{
	ck_assert_int_eq(add(0, "a/noisy"), -1);
	ck_assert_int_eq(add(1, "a/noisy"), -1);
	ck_assert_int_eq(add(2, "a/noisy"), -1);
	ck_assert_int_eq(add(3, "a/noisy"), -1);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(next(), 1);
	ck_assert_int_eq(add(10, "a/victim"), -1);
	ck_assert_int_eq(next(), -1);   /* a holds its 2 slots, whoever's */
	backchannel_queue_hold(&fx.q, &fx.e[0].it);   /* a slot of a frees */
	ck_assert_int_eq(next(), 10);   /* the victim's turn, before noisy's 2 and 3 */
	backchannel_queue_remove(&fx.q, &fx.e[10].it);
	backchannel_queue_retry(&fx.q, &fx.e[0].it);
	ck_assert_int_eq(next(), 0);
	ck_assert_int_eq(add(11, "a/victim"), -1);
	ck_assert_int_eq(add(12, "b/victim"), -1);   /* another client: its own slots */
	ck_assert_int_eq(next(), 12);
	ck_assert_int_eq(next(), -1);
}
END_TEST

static Suite *queue_suite(void)
{
	Suite *s = suite_create("backchannel_queue");
	TCase *tc = check_tcase("queue", setup, teardown);

	tcase_add_test(tc, test_lane_order_and_cap);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_retry_first_in_lane);
	tcase_add_test(tc, test_full_queue_drops_from_the_longest_lane);
	tcase_add_test(tc, test_held_are_not_dropped);
	tcase_add_test(tc, test_lanes_come_and_go);
	tcase_add_test(tc, test_users_of_one_client);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(queue_suite()));
}
