/*
 * The audit trail's list (docs/api.md §"Audit trail"): a page of the
 * project's events, newest first, with the other lists' paging and
 * envelope. The router has checked the token, the project and the four
 * :read permissions; this file reads the filters (invalid_params) and
 * leaves the rest to store_events.h. Only the project of the path is read.
 */
#include "api_events.h"
#include "form.h"
#include "list_params.h"
#include "request.h"
#include "validate.h"

/* sort_by: events are ordered by time alone (ties by ID). */
static const char *const sort_keys[] = { "time" };

const char *const events_list_query[] = {
	"page_num", "page_size", LIST_SORT_NAMES, "action", "actor", "target", "outcome", "since",
	"until", NULL,
};

/* An exact-match filter: an ID (an actor, a target) or a code (an
 * outcome); no value we record is longer than an ID. Empty: none. */
static int read_word(const struct evkeyvalq *query, const char *key, const char **out,
                     struct api_error *err)
{
	if (form_get(query, key, out, err) < 0)
		return -1;
	if (*out && !**out)
		*out = NULL;
	if (*out && utf8_chars(*out) > ID_MAX_CHARS)
		return api_fail(err, E_INVALID_PARAMS, "%s must be at most %d characters", key,
		                ID_MAX_CHARS);
	return 0;
}

/* One of the fixed vocabulary (store_events.h); empty: none. */
static int read_action(const struct evkeyvalq *query, const char **out, struct api_error *err)
{
	const char *a = NULL;
	size_t i;

	if (form_get(query, "action", &a, err) < 0)
		return -1;
	if (!a || !*a)
		return 0;
	if (form_read_enum(query, "action", event_actions, EVENT_ACTION_COUNT, 0, &i, err) < 0)
		return -1;
	*out = event_actions[i];
	return 0;
}

int events_read_query(const struct evkeyvalq *query, struct list_query *q,
                      struct event_page_filter *f, struct api_error *err)
{
	*q = (struct list_query)LIST_QUERY_INIT;
	*f = (struct event_page_filter)EVENT_PAGE_FILTER_INIT;
	if (list_read_query(query, sort_keys, 1, q, err) < 0 ||
	    read_action(query, &f->action, err) < 0 ||
	    read_word(query, "actor", &f->actor, err) < 0 ||
	    read_word(query, "target", &f->target, err) < 0 ||
	    read_word(query, "outcome", &f->outcome, err) < 0 ||
	    form_read_time(query, "since", &f->since, err) < 0 ||
	    form_read_time(query, "until", &f->until, err) < 0)
		return -1;
	return 0;
}

/* The list's request state: list_answer reads its first member. */
struct events_state {
	struct list_state l;
	struct event_page_filter f;
};

static enum step_result list(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct events_state *e = request_state(ctx, sizeof *e, list_state_release);
	struct api_error err;

	if (events_read_query(&ctx->query, &e->l.q, &e->f, &err) < 0)
		return flow_error(f, &err);
	store_event_page(ctx->http.srv->store, request_param(ctx, "project_id"), &e->f, &e->l.q,
	                 &e->l.page, flow_completion(f));
	return STEP_WAIT;
}

flow_step *const events_list_steps[] = { list, list_answer, NULL };
