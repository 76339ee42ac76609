/* The worker pool: jobs run off the calling thread, done() runs on the
 * loop, the pending limit holds, and freeing drains what is left. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <event2/event.h>

#include "check_suite.h"
#include "workers.h"

struct counter {
	pthread_t loop_thread;
	int worked;
	int done;
	int done_on_loop;
	int done_off_loop;
	struct event_base *base;
	int stop_after;
	int sleep_ms;
};

static void work(void *arg)
{
	struct counter *c = arg;
	if (c->sleep_ms)
		usleep((useconds_t)c->sleep_ms * 1000);
	__atomic_add_fetch(&c->worked, 1, __ATOMIC_SEQ_CST);
}

static void done(void *arg)
{
	struct counter *c = arg;
	c->done++;
	if (pthread_equal(pthread_self(), c->loop_thread))
		c->done_on_loop++;
	else
		c->done_off_loop++;
	if (c->base && c->done == c->stop_after)
		event_base_loopbreak(c->base);
}

START_TEST(test_jobs_complete_on_loop)
{
	struct event_base *base = event_base_new();
	struct workers *w = workers_new(base, 2, 100, WORKERS_BATCH, NULL);
	struct counter c = { .loop_thread = pthread_self(), .base = base, .stop_after = 50 };

	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	event_base_dispatch(base);
	ck_assert_int_eq(c.worked, 50);
	ck_assert_int_eq(c.done, 50);
	ck_assert_int_eq(c.done_on_loop, 50);
	ck_assert_int_eq(workers_pending(w), 0);
	workers_free(w);
	event_base_free(base);
}
END_TEST

START_TEST(test_pending_limit)
{
	struct event_base *base = event_base_new();
	struct workers *w = workers_new(base, 1, 3, WORKERS_BATCH, NULL);
	struct counter c = { .loop_thread = pthread_self(), .sleep_ms = 50 };

	ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	ck_assert_int_eq(workers_submit(w, work, done, &c), -1);
	ck_assert_int_eq(workers_pending(w), 3);
	/* Freeing waits for the three and runs their done() here. */
	workers_free(w);
	ck_assert_int_eq(c.worked, 3);
	ck_assert_int_eq(c.done, 3);
	event_base_free(base);
}
END_TEST

START_TEST(test_loop_not_blocked)
{
	/* While a slow job runs, a timer on the loop still fires. */
	struct event_base *base = event_base_new();
	struct workers *w = workers_new(base, 1, 10, WORKERS_BATCH, NULL);
	struct counter c = { .loop_thread = pthread_self(), .base = base, .stop_after = 1,
	                     .sleep_ms = 200 };
	struct timeval start, now;

	gettimeofday(&start, NULL);
	ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	/* The submit returned at once: the job sleeps 200 ms on another thread. */
	gettimeofday(&now, NULL);
	ck_assert_int_lt((now.tv_sec - start.tv_sec) * 1000000 + (now.tv_usec - start.tv_usec), 100000);
	event_base_dispatch(base);
	ck_assert_int_eq(c.done_on_loop, 1);
	workers_free(w);
	event_base_free(base);
}
END_TEST

static Suite *workers_suite(void)
{
	Suite *s = suite_create("workers");
	TCase *tc = tcase_create("pool");
	tcase_add_test(tc, test_jobs_complete_on_loop);
	tcase_add_test(tc, test_pending_limit);
	tcase_add_test(tc, test_loop_not_blocked);
	tcase_set_timeout(tc, 10);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(workers_suite()));
}
