/*
 * The step runner (flow.h). It alone moves a flow on: steps return, and the
 * runner calls the next one, parks the flow while it waits, or finishes it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flow.h"
#include "log.h"

void complete(struct completion c, int rc, const struct api_error *err)
{
	c.fn(c.arg, rc < 0 ? err : NULL);
}

static void sync_done(void *arg, const struct api_error *err)
{
	struct sync_result *r = arg;

	r->done = true;
	r->failed = err != NULL;
	if (err)
		r->err = *err;
}

struct completion sync_completion(struct sync_result *r)
{
	memset(r, 0, sizeof *r);
	return (struct completion){ sync_done, r };
}

int sync_wait(const struct sync_result *r, struct api_error *err)
{
	if (!r->done)
		return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	if (r->failed)
		*err = r->err;
	return r->failed ? -1 : 0;
}

/* The flow whose step runs now (flow_current_root). */
static struct flow *current;

void *flow_current_owner(void)
{
	return current ? current->root->owner : NULL;
}

static void advance(struct flow *f)
{
	if (f->branched)
		f->branched = false;
	else
		f->step++;
}

/* finish runs as part of the flow (running stays set: a request's answers
 * written there are recorded, not sent), and may free f. */
static void finish(struct flow *f, enum step_result r)
{
	struct flow *outer = current;

	f->running = true;
	current = f;
	f->finish(f, r);   /* may free f */
	current = outer;
}

static void run(struct flow *f)
{
	struct flow *outer = current;

	f->running = true;
	current = f;
	for (;;) {
		flow_step *step = f->steps[f->step];
		enum step_result r;

		if (!step) {   /* a list that ends without a result: our bug */
			log_error("bug: a flow ran out of steps");
			r = flow_fail(f, E_SYSTEM_ERROR, "The request was not answered.");
		} else {
			r = step(f);
		}
		switch (r) {
		case STEP_NEXT:
			advance(f);
			continue;
		case STEP_WAIT:
			if (!f->resumed) {
				f->running = false;
				current = outer;
				return;
			}
			f->resumed = false;
			if (f->wait_failed) {
				current = outer;
				finish(f, STEP_FAIL);
				return;
			}
			advance(f);
			continue;
		case STEP_DONE:
		case STEP_FAIL:
			current = outer;
			finish(f, r);
			return;
		}
	}
}

void flow_run(struct flow *f, flow_step *const *steps,
              void (*finish_fn)(struct flow *f, enum step_result result))
{
	flow_run_owned(f, steps, finish_fn, NULL);
}

void flow_run_owned(struct flow *f, flow_step *const *steps,
                    void (*finish_fn)(struct flow *f, enum step_result result), void *owner)
{
	f->steps = steps;
	f->step = 0;
	f->finish = finish_fn;
	f->running = f->resumed = f->wait_failed = f->branched = false;
	f->root = current ? current->root : f;
	f->owner = owner;
	run(f);
}

enum step_result flow_branch(struct flow *f, flow_step *const *steps)
{
	f->steps = steps;
	f->step = 0;
	f->branched = true;
	return STEP_NEXT;
}

void flow_resume(struct flow *f, const struct api_error *err)
{
	if (err) {
		f->err = *err;
		f->wait_failed = true;
	}
	if (f->running) {   /* the step that waits has not returned yet */
		f->resumed = true;
		return;
	}
	if (f->wait_failed) {
		finish(f, STEP_FAIL);
		return;
	}
	advance(f);
	run(f);
}

static void on_completion(void *arg, const struct api_error *err)
{
	flow_resume(arg, err);
}

struct completion flow_completion(struct flow *f)
{
	return (struct completion){ on_completion, f };
}

enum step_result flow_fail(struct flow *f, enum api_code code, const char *fmt, ...)
{
	va_list ap;

	api_fail(&f->err, code, "%s", "");
	va_start(ap, fmt);
	vsnprintf(f->err.description, sizeof f->err.description, fmt, ap);
	va_end(ap);
	return STEP_FAIL;
}

enum step_result flow_error(struct flow *f, const struct api_error *err)
{
	f->err = *err;
	return STEP_FAIL;
}
