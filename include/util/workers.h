#ifndef EDGEAUTH_WORKERS_H
#define EDGEAUTH_WORKERS_H
/*
 * A fixed pool of threads for slow work (argon2). A job's work() runs on a
 * worker thread and must touch nothing but its own argument; its done() runs
 * afterwards on the loop thread, woken through a pipe, never by polling.
 */
#include <stddef.h>

struct event_base;
struct workers;

typedef void worker_fn(void *arg);

/* How a pool's threads are scheduled against the loop thread. */
enum workers_priority {
	WORKERS_BATCH,    /* below everything else on a shared core (argon2) */
	WORKERS_NORMAL,   /* as the loop (a sync the answers wait for) */
};

/* Starts `threads` threads; at most max_pending jobs may wait or run at
 * once. depth (may be NULL) is told the number of jobs pending at each
 * change, under the pool's lock (it must not call back into the pool), on
 * the thread that submitted or drained (the loop's, as the server uses it).
 * With one thread, jobs run, and their done() run, in the order they were
 * submitted. */
struct workers *workers_new(struct event_base *base, int threads, int max_pending,
                            enum workers_priority priority, void (*depth)(int pending));
/* Lets queued jobs finish, runs their done() on the calling thread, joins
 * the threads and frees. NULL is a no-op. */
void workers_free(struct workers *w);
/* Queues a job. Returns 0, or -1 when max_pending jobs are already queued or
 * running, or once workers_free has begun (then neither function is ever
 * called). A job's place is free again by the time its done() runs, so
 * done() may submit the next. */
int workers_submit(struct workers *w, worker_fn *work, worker_fn *done, void *arg);
/* Jobs queued or running, for tests and metrics. */
int workers_pending(struct workers *w);

#endif
