/* The worker pool, in both its modes (WORKERS_BATCH: argon2; WORKERS_NORMAL:
 * http.c's sync): jobs run off the calling thread, done() runs on the loop,
 * one thread keeps the order, the pending limit holds and a job's slot is
 * free again in its done(), freeing drains what is left and takes no more,
 * and only a batch thread is niced below the loop. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <event2/event.h>

#include "check_suite.h"
#include "workers.h"

/* Every test but test_priority runs once per mode. */
static const enum workers_priority modes[] = { WORKERS_BATCH, WORKERS_NORMAL };

struct counter {
	pthread_t loop_thread;
	int worked;
	int worked_off_loop;
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
	if (!pthread_equal(pthread_self(), c->loop_thread))
		__atomic_add_fetch(&c->worked_off_loop, 1, __ATOMIC_SEQ_CST);
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
	struct workers *w = workers_new(base, 2, 100, modes[_i], NULL);
	struct counter c = { .loop_thread = pthread_self(), .base = base, .stop_after = 50 };

	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(workers_submit(w, work, done, &c), 0);
	event_base_dispatch(base);
	ck_assert_int_eq(c.worked, 50);
	ck_assert_int_eq(c.worked_off_loop, 50);
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
	struct workers *w = workers_new(base, 1, 3, modes[_i], NULL);
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

/* A job that runs until the loop lets it go. */
struct gate {
	struct event_base *base;
	int open;                   /* set on the loop, read by the job */
	int timer_fired_while_job_ran;
	int job_finished;
};

static void gated_work(void *arg)
{
	struct gate *gt = arg;

	while (!__atomic_load_n(&gt->open, __ATOMIC_SEQ_CST))
		usleep(1000);
	__atomic_store_n(&gt->job_finished, 1, __ATOMIC_SEQ_CST);
}

static void gated_done(void *arg)
{
	event_base_loopbreak(((struct gate *)arg)->base);
}

static void open_gate(evutil_socket_t fd, short what, void *arg)
{
	struct gate *gt = arg;

	(void)fd;
	(void)what;
	if (!__atomic_load_n(&gt->job_finished, __ATOMIC_SEQ_CST))
		gt->timer_fired_while_job_ran = 1;
	__atomic_store_n(&gt->open, 1, __ATOMIC_SEQ_CST);
}

START_TEST(test_loop_not_blocked)
{
	/* While a job runs, the loop goes on: submit returns and a timer fires
	 * before the job ends, for the job ends only once the timer has fired.
	 * Had submit or the loop waited for the job, it would never end (and
	 * the test's timeout would fail it), however slow the machine. */
	struct event_base *base = event_base_new();
	struct workers *w = workers_new(base, 1, 10, modes[_i], NULL);
	struct gate gt = { .base = base };
	struct timeval soon = { 0, 10000 };

	ck_assert_int_eq(workers_submit(w, gated_work, gated_done, &gt), 0);
	ck_assert_int_eq(event_base_once(base, -1, EV_TIMEOUT, open_gate, &gt, &soon), 0);
	event_base_dispatch(base);   /* ends when the job's done() has run */
	ck_assert_int_eq(gt.timer_fired_while_job_ran, 1);
	ck_assert_int_eq(gt.job_finished, 1);
	ck_assert_int_eq(workers_pending(w), 0);
	workers_free(w);
	event_base_free(base);
}
END_TEST

#define ORDER_JOBS 20

/* The depths a pool told, in order (the callback takes no argument). */
static int depths[2 * ORDER_JOBS + 1];
static int n_depths;

static void record_depth(int pending)
{
	ck_assert_int_lt(n_depths, (int)N_ELEMS(depths));
	depths[n_depths++] = pending;
}

/* Job numbers in the order work() and done() saw them. */
struct order {
	pthread_t loop_thread;
	struct event_base *base;
	int worked[ORDER_JOBS], n_worked;   /* one worker thread writes these */
	int done[ORDER_JOBS], n_done;
	int done_off_loop;
};

struct numbered {
	struct order *o;
	int n;
};

static void work_numbered(void *arg)
{
	struct numbered *j = arg;

	j->o->worked[j->o->n_worked++] = j->n;
}

static void done_numbered(void *arg)
{
	struct numbered *j = arg;
	struct order *o = j->o;

	if (!pthread_equal(pthread_self(), o->loop_thread))
		o->done_off_loop++;
	o->done[o->n_done++] = j->n;
	if (o->n_done == ORDER_JOBS)
		event_base_loopbreak(o->base);
}

/* One thread: the jobs run, and their done() run, in the order submitted,
 * and the depth callback counts up with each submit and down with each
 * done(). */
START_TEST(test_one_thread_keeps_order)
{
	struct event_base *base = event_base_new();
	struct order o = { .loop_thread = pthread_self(), .base = base };
	struct numbered jobs[ORDER_JOBS];
	struct workers *w;

	n_depths = 0;
	w = workers_new(base, 1, ORDER_JOBS, modes[_i], record_depth);
	for (int i = 0; i < ORDER_JOBS; i++) {
		jobs[i] = (struct numbered){ .o = &o, .n = i };
		ck_assert_int_eq(workers_submit(w, work_numbered, done_numbered, &jobs[i]), 0);
	}
	event_base_dispatch(base);
	ck_assert_int_eq(o.n_worked, ORDER_JOBS);
	ck_assert_int_eq(o.n_done, ORDER_JOBS);
	ck_assert_int_eq(o.done_off_loop, 0);
	for (int i = 0; i < ORDER_JOBS; i++) {
		ck_assert_int_eq(o.worked[i], i);
		ck_assert_int_eq(o.done[i], i);
	}
	ck_assert_int_eq(n_depths, 2 * ORDER_JOBS);
	for (int i = 0; i < ORDER_JOBS; i++) {
		ck_assert_int_eq(depths[i], i + 1);
		ck_assert_int_eq(depths[ORDER_JOBS + i], ORDER_JOBS - 1 - i);
	}
	workers_free(w);
	event_base_free(base);
}
END_TEST

#define CHAIN_JOBS 10

/* One job at a time, each done() submitting the next: http.c's syncer. */
struct chain {
	struct workers *w;
	struct event_base *base;
	pthread_t loop_thread;
	int done, done_on_loop, refused;
};

static void chain_work(void *arg)
{
	(void)arg;
}

static void chain_done(void *arg)
{
	struct chain *c = arg;

	c->done++;
	if (pthread_equal(pthread_self(), c->loop_thread))
		c->done_on_loop++;
	if (c->done == CHAIN_JOBS) {
		event_base_loopbreak(c->base);
	} else if (workers_submit(c->w, chain_work, chain_done, c) < 0) {
		c->refused++;
		event_base_loopbreak(c->base);
	}
}

/* max_pending 1: a second job is refused while the first is pending, and
 * the slot is free again by the time its done() runs. */
START_TEST(test_slot_free_in_done)
{
	struct event_base *base = event_base_new();
	struct chain c = { .base = base, .loop_thread = pthread_self() };

	c.w = workers_new(base, 1, 1, modes[_i], NULL);
	ck_assert_int_eq(workers_submit(c.w, chain_work, chain_done, &c), 0);
	ck_assert_int_eq(workers_submit(c.w, chain_work, chain_done, &c), -1);
	ck_assert_int_eq(workers_pending(c.w), 1);
	event_base_dispatch(base);
	ck_assert_int_eq(c.refused, 0);
	ck_assert_int_eq(c.done, CHAIN_JOBS);
	ck_assert_int_eq(c.done_on_loop, CHAIN_JOBS);
	ck_assert_int_eq(workers_pending(c.w), 0);
	workers_free(c.w);
	event_base_free(base);
}
END_TEST

struct refusal {
	struct workers *w;
	pthread_t caller;
	int done, done_on_caller;
	int resubmitted;   /* what workers_submit said from inside done() */
};

static void refusal_work(void *arg)
{
	(void)arg;
	usleep(50 * 1000);   /* likely still running when workers_free begins */
}

static void refusal_done(void *arg)
{
	struct refusal *r = arg;

	r->done++;
	if (pthread_equal(pthread_self(), r->caller))
		r->done_on_caller++;
	r->resubmitted = workers_submit(r->w, refusal_work, refusal_done, r);
}

/* Freeing with a job under way, the loop never run: its done() runs on the
 * freeing thread, and a job it submits then is refused (http.c's syncer
 * then runs the sync itself). */
START_TEST(test_free_refuses_new_jobs)
{
	struct event_base *base = event_base_new();
	struct refusal r = { .caller = pthread_self(), .resubmitted = 1 };

	r.w = workers_new(base, 1, 4, modes[_i], NULL);
	ck_assert_int_eq(workers_submit(r.w, refusal_work, refusal_done, &r), 0);
	workers_free(r.w);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.done_on_caller, 1);
	ck_assert_int_eq(r.resubmitted, -1);
	event_base_free(base);
}
END_TEST

/* This thread's nice value. */
static int thread_nice(void)
{
	int n;

	errno = 0;
	n = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	ck_assert_int_eq(errno, 0);
	return n;
}

static void work_nice(void *arg)
{
	*(int *)arg = thread_nice();
}

static void done_nothing(void *arg)
{
	(void)arg;
}

/* What sets the modes apart: a batch thread runs at the lowest priority
 * (nice 19, workers.c's WORKER_NICE), a normal one at the loop's. */
static const struct {
	enum workers_priority mode;
	bool niced;
} priority_cases[] = {
	{ WORKERS_BATCH, true },
	{ WORKERS_NORMAL, false },
};

START_TEST(test_priority)
{
	struct event_base *base = event_base_new();
	struct workers *w = workers_new(base, 1, 1, priority_cases[_i].mode, NULL);
	int loop_nice = thread_nice();
	int worker_nice = -100;

	ck_assert_int_eq(workers_submit(w, work_nice, done_nothing, &worker_nice), 0);
	workers_free(w);   /* joins: worker_nice is written */
	if (priority_cases[_i].niced)
		ck_assert_int_eq(worker_nice, 19);
	else
		ck_assert_int_eq(worker_nice, loop_nice);
	ck_assert_int_eq(thread_nice(), loop_nice);   /* the caller's own is untouched */
	event_base_free(base);
}
END_TEST

static Suite *workers_suite(void)
{
	Suite *s = suite_create("workers");
	TCase *tc = tcase_create("pool");
	tcase_add_loop_test(tc, test_jobs_complete_on_loop, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_pending_limit, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_loop_not_blocked, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_one_thread_keeps_order, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_slot_free_in_done, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_free_refuses_new_jobs, 0, N_ELEMS(modes));
	tcase_add_loop_test(tc, test_priority, 0, N_ELEMS(priority_cases));
	tcase_set_timeout(tc, 10);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(workers_suite()));
}
