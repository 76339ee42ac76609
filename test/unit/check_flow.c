/* The step runner: steps in order, waits that end at once or later, a
 * failed wait, branches, a list that runs out, and a flow nested in another
 * step's wait. */
#include <check.h>
#include "check_suite.h"
#include <stdlib.h>
#include <string.h>

#include "flow.h"

struct fixture {
	struct flow flow;
	char trace[64];             /* one letter per step run */
	enum step_result finished;  /* what finish got */
	int finishes;
	struct completion later;    /* a wait still open */
	bool instant;               /* waits end inside their step */
	struct api_error wait_err;
	bool fail_wait;
};

static struct fixture *fx_of(struct flow *f)
{
	return container_of(f, struct fixture, flow);
}

static void mark(struct flow *f, char c)
{
	char *t = fx_of(f)->trace;
	size_t n = strlen(t);
	t[n] = c;
	t[n + 1] = '\0';
}

static void on_finish(struct flow *f, enum step_result r)
{
	fx_of(f)->finished = r;
	fx_of(f)->finishes++;
}

static enum step_result a_next(struct flow *f) { mark(f, 'a'); return STEP_NEXT; }
static enum step_result d_done(struct flow *f) { mark(f, 'd'); return STEP_DONE; }
static enum step_result x_fail(struct flow *f)
{
	mark(f, 'x');
	return flow_fail(f, E_USER_NOT_FOUND, "no user %d", 7);
}
static enum step_result w_wait(struct flow *f)
{
	struct fixture *fx = fx_of(f);

	mark(f, 'w');
	fx->later = flow_completion(f);
	if (fx->instant)
		complete(fx->later, fx->fail_wait ? -1 : 0, &fx->wait_err);
	return STEP_WAIT;
}

static flow_step *const tail[] = { a_next, d_done, NULL };
static enum step_result b_branch(struct flow *f) { mark(f, 'b'); return flow_branch(f, tail); }

static struct fixture fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	api_fail(&fx.wait_err, E_SYSTEM_ERROR, "the store failed");
}

START_TEST(test_steps_in_order)
{
	static flow_step *const steps[] = { a_next, a_next, d_done, a_next, NULL };

	flow_run(&fx.flow, steps, on_finish);
	ck_assert_str_eq(fx.trace, "aad");
	ck_assert_int_eq(fx.finished, STEP_DONE);
	ck_assert_int_eq(fx.finishes, 1);
}
END_TEST

START_TEST(test_fail)
{
	static flow_step *const steps[] = { a_next, x_fail, d_done, NULL };

	flow_run(&fx.flow, steps, on_finish);
	ck_assert_str_eq(fx.trace, "ax");
	ck_assert_int_eq(fx.finished, STEP_FAIL);
	ck_assert_str_eq(fx.flow.err.code, "user_not_found");
	ck_assert_str_eq(fx.flow.err.description, "no user 7");
}
END_TEST

START_TEST(test_wait_ends_at_once)
{
	static flow_step *const steps[] = { w_wait, w_wait, d_done, NULL };

	fx.instant = true;
	flow_run(&fx.flow, steps, on_finish);
	ck_assert_str_eq(fx.trace, "wwd");
	ck_assert_int_eq(fx.finishes, 1);
}
END_TEST

START_TEST(test_wait_ends_later)
{
	static flow_step *const steps[] = { a_next, w_wait, d_done, NULL };

	flow_run(&fx.flow, steps, on_finish);
	ck_assert_str_eq(fx.trace, "aw");
	ck_assert_int_eq(fx.finishes, 0);
	ck_assert(!fx.flow.running);
	complete(fx.later, 0, NULL);
	ck_assert_str_eq(fx.trace, "awd");
	ck_assert_int_eq(fx.finished, STEP_DONE);
	ck_assert_int_eq(fx.finishes, 1);
}
END_TEST

START_TEST(test_wait_fails)
{
	static flow_step *const steps[] = { w_wait, d_done, NULL };

	fx.fail_wait = true;
	fx.instant = _i == 0;
	flow_run(&fx.flow, steps, on_finish);
	if (!fx.instant)
		complete(fx.later, -1, &fx.wait_err);
	ck_assert_str_eq(fx.trace, "w");
	ck_assert_int_eq(fx.finished, STEP_FAIL);
	ck_assert_int_eq(fx.finishes, 1);
	ck_assert_str_eq(fx.flow.err.description, "the store failed");
}
END_TEST

START_TEST(test_branch)
{
	static flow_step *const steps[] = { a_next, b_branch, x_fail, NULL };

	flow_run(&fx.flow, steps, on_finish);
	ck_assert_str_eq(fx.trace, "abad");
	ck_assert_int_eq(fx.finished, STEP_DONE);
}
END_TEST

START_TEST(test_steps_run_out)
{
	static flow_step *const steps[] = { a_next, NULL };

	flow_run(&fx.flow, steps, on_finish);
	ck_assert_int_eq(fx.finished, STEP_FAIL);
	ck_assert_str_eq(fx.flow.err.code, "system_error");
}
END_TEST

/* A flow that waits on another: the inner one's finish resumes the outer. */
static struct fixture inner;

static void inner_finish(struct flow *f, enum step_result r)
{
	on_finish(f, r);
	complete(fx.later, r == STEP_DONE ? 0 : -1, &f->err);
}

static enum step_result n_nested(struct flow *f)
{
	static flow_step *const inner_steps[] = { w_wait, d_done, NULL };

	mark(f, 'n');
	fx.later = flow_completion(f);
	flow_run(&inner.flow, inner_steps, inner_finish);
	return STEP_WAIT;
}

START_TEST(test_nested)
{
	static flow_step *const steps[] = { n_nested, d_done, NULL };

	memset(&inner, 0, sizeof inner);
	inner.instant = _i == 0;
	flow_run(&fx.flow, steps, on_finish);
	if (!inner.instant) {
		ck_assert_int_eq(fx.finishes, 0);
		complete(inner.later, 0, NULL);
	}
	ck_assert_str_eq(inner.trace, "wd");
	ck_assert_str_eq(fx.trace, "nd");
	ck_assert_int_eq(fx.finished, STEP_DONE);
	ck_assert_int_eq(fx.finishes, 1);
	ck_assert_int_eq(inner.finishes, 1);
}
END_TEST

/* issue24.14: the owner of the outermost flow (a request) is what a step
 * of a flow nested in it sees, whether it runs inside the outer step or
 * is resumed later from the loop; outside every flow there is none. */
static void *seen_owner;

static enum step_result o_owner(struct flow *f)
{
	mark(f, 'o');
	seen_owner = flow_current_owner();
	return STEP_NEXT;
}

static enum step_result n_nested_owned(struct flow *f)
{
	static flow_step *const inner_steps[] = { w_wait, o_owner, d_done, NULL };

	mark(f, 'n');
	fx.later = flow_completion(f);
	flow_run(&inner.flow, inner_steps, inner_finish);
	return STEP_WAIT;
}

START_TEST(test_owner_of_nested)
{
	static flow_step *const steps[] = { n_nested_owned, o_owner, d_done, NULL };
	int owner;

	memset(&inner, 0, sizeof inner);
	inner.instant = _i == 0;
	seen_owner = NULL;
	flow_run_owned(&fx.flow, steps, on_finish, &owner);
	if (!inner.instant) {
		ck_assert_ptr_null(flow_current_owner());   /* between loop callbacks */
		ck_assert_ptr_null(seen_owner);
		complete(inner.later, 0, NULL);
	}
	ck_assert_str_eq(inner.trace, "wod");
	ck_assert_str_eq(fx.trace, "nod");
	ck_assert_ptr_eq(seen_owner, &owner);
	ck_assert_ptr_null(flow_current_owner());
	memset(&inner, 0, sizeof inner);
	inner.instant = true;
	flow_run(&fx.flow, steps, on_finish);   /* a flow of no owner */
	ck_assert_ptr_null(seen_owner);
}
END_TEST

START_TEST(test_sync_completion)
{
	struct sync_result r;
	struct completion c = sync_completion(&r);

	ck_assert(!r.done);
	complete(c, -1, &fx.wait_err);
	ck_assert(r.done && r.failed);
	ck_assert_str_eq(r.err.code, "system_error");
	c = sync_completion(&r);
	complete(c, 0, &fx.wait_err);
	ck_assert(r.done && !r.failed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flow");
	TCase *tc = tcase_create("steps");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_steps_in_order);
	tcase_add_test(tc, test_fail);
	tcase_add_test(tc, test_wait_ends_at_once);
	tcase_add_test(tc, test_wait_ends_later);
	tcase_add_loop_test(tc, test_wait_fails, 0, 2);
	tcase_add_test(tc, test_branch);
	tcase_add_test(tc, test_steps_run_out);
	tcase_add_loop_test(tc, test_nested, 0, 2);
	tcase_add_loop_test(tc, test_owner_of_nested, 0, 2);
	tcase_add_test(tc, test_sync_completion);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
