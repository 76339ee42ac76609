/*
 * Group commit of the answers (docs/operations.md "Durability"): an answer that reports
 * what the store's open batch wrote leaves once that batch has committed,
 * and, with synchronous=full, once its sync has run. The transport hands
 * every answer here first (server's hold_answer); this never writes HTTP.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "backchannel.h"
#include "group_commit.h"
#include "log.h"
#include "metrics.h"
#include "request.h"
#include "store.h"
#include "util.h"
#include "workers.h"

/* Group commit (store_batch_enable): while a batch transaction is open, no
 * answer leaves, since what it reports is not durable yet. The commit event
 * runs once the loop has handled everything that was ready together, commits
 * the batch, then sends the answers that waited; if the commit fails they all
 * become system_error. With synchronous=full the batch's sync runs on a
 * thread of its own (store_batch_needs_sync) while the loop goes on: its
 * answers, and those of requests that may have read what it wrote, wait for
 * that sync. */
struct deferred_reply {
	struct request_ctx *ctx;
	int status;
	struct evbuffer *buf;
	STAILQ_ENTRY(deferred_reply) next;
};

static void on_batch_opened(void *arg)
{
	struct server *srv = arg;
	event_active(srv->commit_ev, EV_TIMEOUT, 0);
}

/* A write begins in the open batch: the request running now owns it. */
static void on_batch_writing(void *arg)
{
	struct server *srv = arg;
	struct request_ctx *ctx = flow_current_owner();   /* request_run's */

	if (ctx)
		ctx->http.wrote_batch = srv->batch_seq;
	else
		srv->batch_unattributed = true;
}

/* Whether the answer d waits for must fail with a batch whose commit
 * failed: its request wrote in that batch, or a write no request owns did
 * (then nothing says whose answer it shaped). A request that only read
 * keeps its answer: it reports what committed batches hold, or the writes
 * of requests whose answers (their IDs) have not left yet, which only a
 * listing can show. */
static bool failed_with_batch(const struct server *srv, const struct deferred_reply *d)
{
	return srv->batch_unattributed || d->ctx->http.wrote_batch == srv->batch_seq;
}

/* Sends every answer of q, or, when the store failed the batch (err), the
 * error in place of each answer of a request that wrote in it; q is left
 * empty. */
static void queue_send(struct server *srv, struct reply_queue *q, const struct api_error *err)
{
	struct deferred_reply *d;

	while ((d = STAILQ_FIRST(q))) {
		STAILQ_REMOVE_HEAD(q, next);
		http_send_held(d->ctx, d->status, d->buf,
		               err && failed_with_batch(srv, d) ? err : NULL);
		free(d);
	}
}

static void sync_start(struct server *srv);

static void sync_work(void *arg)
{
	struct sync_job *job = arg;

	job->check = store_files_sync(job->files, job->why, sizeof job->why);
}

/* Loop thread: the answers the sync made durable go; the next sync starts
 * if a batch committed meanwhile. A sync that failed leaves its batches
 * committed, and others have seen them: their answers go as they are (an
 * error would be a lie, and a retried rotation would be taken as reuse),
 * and the store refuses writes from now on, saying why. */
static void sync_done(void *arg)
{
	struct sync_job *job = arg;
	struct server *srv = job->srv;
	struct reply_queue done = STAILQ_HEAD_INITIALIZER(done);

	STAILQ_CONCAT(&done, &srv->syncing);
	srv->sync_running = false;
	if (job->check < 0) {
		log_error("store: %s: the writes just answered may not survive a crash", job->why);
		metrics_store_sync_failed();
		store_fail_writes(srv->store, job->check, job->why);
	}
	queue_send(srv, &done, NULL);
	sync_start(srv);
}

/* Starts a sync of what the batches committed since the last one began,
 * unless one runs (sync_done starts the next). */
static void sync_start(struct server *srv)
{
	if (srv->sync_running || !srv->sync_wanted)
		return;
	srv->sync_wanted = false;
	srv->sync_running = true;
	STAILQ_CONCAT(&srv->syncing, &srv->unsynced);
	if (workers_submit(srv->syncer, sync_work, sync_done, &srv->sync) < 0) {
		/* stopping: the pool takes no job, so the sync runs here */
		sync_work(&srv->sync);
		sync_done(&srv->sync);
	}
}

/* Commits the open batch and sends every answer that waited for it, or
 * hands them to the sync that makes the batch durable. */
void group_commit_run(struct server *srv)
{
	struct api_error err;
	bool was_open = store_batch_open(srv->store);
	bool ok = store_batch_commit(srv->store, &err) == 0;
	struct reply_queue batch = STAILQ_HEAD_INITIALIZER(batch);

	/* the batch may have ended sessions: their back-channel logouts are
	 * read once the answers below are on their way; a batch that ran no
	 * statement that can queue one is not worth the read (~19,000
	 * instructions and a read transaction; docs/BENCHMARKS.md) */
	if (ok && was_open && srv->backchannel && store_batch_queued_logouts(srv->store))
		backchannel_poke(srv->backchannel);
	STAILQ_CONCAT(&batch, &srv->deferred);
	if (!ok) {
		queue_send(srv, &batch, &err);
	} else if (srv->syncer && store_batch_needs_sync(srv->store)) {
		STAILQ_CONCAT(&srv->unsynced, &batch);
		srv->sync_wanted = true;
		sync_start(srv);
	} else {
		queue_send(srv, &batch, NULL);
	}
	srv->batch_seq++;
	srv->batch_unattributed = false;
}

static void on_commit(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	group_commit_run(arg);
}

/* The server's hold_answer: keeps an answer that must wait for a commit or
 * a sync, in order. */
static bool hold_answer(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	struct server *srv = ctx->http.srv;
	struct reply_queue *wait = NULL;
	struct deferred_reply *d;

	if (srv->store && store_batch_open(srv->store))
		wait = &srv->deferred;
	else if (srv->sync_wanted)
		wait = &srv->unsynced;   /* it may have read a batch no sync covers yet */
	else if (srv->sync_running)
		wait = &srv->syncing;    /* it can have read only what that sync covers */
	if (!wait)
		return false;
	d = xcalloc(1, sizeof *d);
	d->ctx = ctx;
	d->status = status;
	d->buf = buf;
	STAILQ_INSERT_TAIL(wait, d, next);
	return true;
}

void group_commit_start(struct server *srv)
{
	/* a zeroed STAILQ is no empty queue: made one before any answer waits */
	STAILQ_INIT(&srv->deferred);
	STAILQ_INIT(&srv->unsynced);
	STAILQ_INIT(&srv->syncing);
	srv->hold_answer = hold_answer;
	srv->commit_ev = event_new(srv->base, -1, 0, on_commit, srv);
	store_batch_enable(srv->store, on_batch_opened, srv);
	store_batch_on_write(srv->store, on_batch_writing);
	srv->batch_seq = 1;
	/* the WAL is fixed once batches are on, for as long as the store */
	srv->sync.srv = srv;
	srv->sync.files = store_sync_target(srv->store);
	if (srv->sync.files)
		srv->syncer = workers_new(srv->base, 1, 1, WORKERS_NORMAL, NULL);
}

void group_commit_free(struct server *srv)
{
	if (srv->commit_ev) {
		group_commit_run(srv);   /* answers still waiting go out (or fail) */
		event_free(srv->commit_ev);
		srv->commit_ev = NULL;
	}
	/* the sync under way ends, its answers go, and any after it is run here */
	workers_free(srv->syncer);
	srv->syncer = NULL;
}
