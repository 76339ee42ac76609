/*
 * The worker pool: a queue of jobs under one mutex, N threads that take
 * them, and a completion list the loop drains when the pipe says so. Done
 * callbacks run only on the loop thread, so they may touch evhttp and the
 * store.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <event2/event.h>

#include "util.h"
#include "workers.h"

/* The lowest priority that still gets a share (SCHED_IDLE gets none while
 * anything else runs), so that a woken loop runs before a hash thread's slice
 * ends (measurements: docs/BENCHMARKS.md, "Design notes"). */
#define WORKER_NICE 19

struct job {
	worker_fn *work;
	worker_fn *done;
	void *arg;
	STAILQ_ENTRY(job) next;
};

STAILQ_HEAD(job_list, job);

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job_list queue;      /* waiting for a thread */
	struct job_list finished;   /* waiting for the loop */
	int pending;                /* queued + running + finished, not yet done() */
	int max_pending;
	bool stopping;
	int nthreads;
	pthread_t *threads;
	int pipe_fd[2];             /* a byte per finished job wakes the loop */
	struct event *wake_ev;
	enum workers_priority priority;
	void (*depth)(int pending);
};

static void *worker_main(void *arg)
{
	struct workers *w = arg;

	/* Hashing is batch work: on a shared core the loop thread, which answers
	 * everyone else, goes first. A nice value per thread (Linux); not
	 * SCHED_IDLE, which would starve sign-ins on a busy single core. */
	if (w->priority == WORKERS_BATCH)
		(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE);

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *j;
		while (STAILQ_EMPTY(&w->queue) && !w->stopping)
			pthread_cond_wait(&w->wake, &w->lock);
		j = STAILQ_FIRST(&w->queue);
		if (!j)
			break;   /* stopping and nothing left */
		STAILQ_REMOVE_HEAD(&w->queue, next);
		pthread_mutex_unlock(&w->lock);
		j->work(j->arg);
		pthread_mutex_lock(&w->lock);
		STAILQ_INSERT_TAIL(&w->finished, j, next);
		pthread_mutex_unlock(&w->lock);
		/* One byte per job; a full pipe is fine: the loop drains the whole
		 * list. Written after the unlock, so that the loop it wakes finds
		 * the lock free (docs/BENCHMARKS.md, "Design notes"). */
		ssize_t n = write(w->pipe_fd[1], "x", 1);
		(void)n;
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Runs the done() of every finished job. Loop thread only. */
static void drain_finished(struct workers *w)
{
	struct job_list done = STAILQ_HEAD_INITIALIZER(done);
	struct job *j;

	pthread_mutex_lock(&w->lock);
	STAILQ_CONCAT(&done, &w->finished);
	pthread_mutex_unlock(&w->lock);
	while ((j = STAILQ_FIRST(&done))) {
		STAILQ_REMOVE_HEAD(&done, next);
		pthread_mutex_lock(&w->lock);
		w->pending--;
		if (w->depth)
			w->depth(w->pending);
		pthread_mutex_unlock(&w->lock);
		j->done(j->arg);
		free(j);
	}
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	char buf[256];

	(void)what;
	while (read(fd, buf, sizeof buf) > 0)
		;
	drain_finished(arg);
}

struct workers *workers_new(struct event_base *base, int threads, int max_pending,
                            enum workers_priority priority, void (*depth)(int pending))
{
	struct workers *w = xcalloc(1, sizeof *w);

	w->priority = priority;
	w->depth = depth;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	STAILQ_INIT(&w->queue);
	STAILQ_INIT(&w->finished);
	w->max_pending = max_pending;
	if (pipe2(w->pipe_fd, O_NONBLOCK | O_CLOEXEC) < 0)
		abort();
	w->wake_ev = event_new(base, w->pipe_fd[0], EV_READ | EV_PERSIST, on_wake, w);
	event_add(w->wake_ev, NULL);
	w->threads = xcalloc((size_t)threads, sizeof *w->threads);
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&w->threads[i], NULL, worker_main, w) != 0)
			abort();
		w->nthreads++;
	}
	return w;
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < w->nthreads; i++)
		pthread_join(w->threads[i], NULL);
	drain_finished(w);
	event_free(w->wake_ev);
	close(w->pipe_fd[0]);
	close(w->pipe_fd[1]);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w->threads);
	free(w);
}

int workers_submit(struct workers *w, worker_fn *work, worker_fn *done, void *arg)
{
	struct job *j;

	pthread_mutex_lock(&w->lock);
	if (w->pending >= w->max_pending || w->stopping) {
		pthread_mutex_unlock(&w->lock);
		return -1;
	}
	w->pending++;
	j = xcalloc(1, sizeof *j);
	j->work = work;
	j->done = done;
	j->arg = arg;
	STAILQ_INSERT_TAIL(&w->queue, j, next);
	if (w->depth)
		w->depth(w->pending);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int workers_pending(struct workers *w)
{
	int n;
	pthread_mutex_lock(&w->lock);
	n = w->pending;
	pthread_mutex_unlock(&w->lock);
	return n;
}
