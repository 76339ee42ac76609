#ifndef EDGEAUTH_FLOW_H
#define EDGEAUTH_FLOW_H
/*
 * Work that waits, as a list of steps (kore's http_state_run is the model).
 * A request is a flow (request.h); so is a service that waits on the store
 * or a hash (grants.c, signin.c), nested inside a request's step. Each step
 * returns what happens next:
 *
 *   STEP_NEXT  go on with the next step;
 *   STEP_WAIT  it started work that ends later (a store operation, a hash,
 *              a nested flow); that work's completion calls flow_resume,
 *              which goes on with the next step, at once or from the loop;
 *   STEP_DONE  the flow has its result;
 *   STEP_FAIL  it failed with f->err (flow_fail).
 *
 * Then the flow's finish function runs, once. The functions steps call
 * return 0 or -1 with a struct api_error; only steps decide what is next.
 * A completion may run inside the call that started the work (SQLite
 * answers at once) or later from the loop (a hash thread, a network store):
 * the steps read the same. A completion that arrives while its step is still
 * running is noted, and the loop takes it up when the step returns, so a
 * chain of instant completions never recurses. Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* What a function that may wait takes, and calls exactly once when done:
 * err NULL on success, else the error. It may run before the function
 * returns. What the work hands back goes to the caller's out-parameters
 * before the call, so they must live until it has run. */
struct completion {
	void (*fn)(void *arg, const struct api_error *err);
	void *arg;
};
/* Calls c with err when rc < 0, else with NULL. */
void complete(struct completion c, int rc, const struct api_error *err);

/* A completion for a caller that may block until it runs (the CLI, unit
 * tests; with the SQLite store it has run when the call returns). */
struct sync_result {
	bool done;
	bool failed;
	struct api_error err;
};
struct completion sync_completion(struct sync_result *r);
/* After the call that took sync_completion(r): 0, or -1 with its error
 * in err; system_error when it has not run (a caller on the loop with a
 * network store: a bug). */
int sync_wait(const struct sync_result *r, struct api_error *err);

enum step_result {
	STEP_NEXT,
	STEP_WAIT,
	STEP_DONE,
	STEP_FAIL,
};

struct flow;
typedef enum step_result flow_step(struct flow *f);

struct flow {
	flow_step *const *steps;
	size_t step;
	struct api_error err;      /* why it failed */
	/* Runs once, after STEP_DONE or STEP_FAIL (result says which). */
	void (*finish)(struct flow *f, enum step_result result);
	bool running;              /* inside the runner's loop */
	bool resumed;              /* a wait ended inside its own step */
	bool wait_failed;          /* ... with err */
	bool branched;             /* flow_branch: the next step is steps[0] */
	/* The flow this one runs inside (started in one of its steps), at any
	 * depth; itself for an outermost flow (a request's). */
	struct flow *root;
	void *owner;   /* what an outermost flow serves (its request); NULL: none */
};

/* Runs steps (a NULL-terminated list) from the first; finish is called
 * when they are done or one failed. */
void flow_run(struct flow *f, flow_step *const *steps,
              void (*finish)(struct flow *f, enum step_result result));
/* The same for an outermost flow that serves owner (flow_current_owner). */
void flow_run_owned(struct flow *f, flow_step *const *steps,
                    void (*finish)(struct flow *f, enum step_result result), void *owner);
/* The owner of the outermost flow whose step (or a nested flow's) runs
 * now; NULL outside every flow (a timer, a completion that resumes none)
 * or when it has none. */
void *flow_current_owner(void);
/* From inside a step: the rest of the flow is steps, from the first.
 * Returns STEP_NEXT for the step to return. */
enum step_result flow_branch(struct flow *f, flow_step *const *steps);
/* The end of the work a step waits for: err NULL on success, else the flow
 * fails with it. Exactly once per STEP_WAIT. */
void flow_resume(struct flow *f, const struct api_error *err);

/* A completion that resumes f. */
struct completion flow_completion(struct flow *f);

/* Sets f->err and returns STEP_FAIL, for `return flow_fail(...)`. */
enum step_result flow_fail(struct flow *f, enum api_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with an error a function filled. */
enum step_result flow_error(struct flow *f, const struct api_error *err);

#endif
