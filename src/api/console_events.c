/*
 * The console's audit trail (console_events.h). The query is the events
 * API's, read by its own reader (events_read_query), so a filter means the
 * same on the page and in the API; the store's page is shown as a table.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>

#include "api_events.h"
#include "console.h"
#include "console_events.h"
#include "form.h"
#include "json_rows.h"
#include "util.h"

struct events_view {
	struct list_query q;
	struct event_page_filter filter;
	struct page page;
};

static void events_view_release(void *state)
{
	page_release(&((struct events_view *)state)->page);
}

static struct events_view *view_of(struct request_ctx *ctx)
{
	return console_view_state(ctx, sizeof (struct events_view), events_view_release);
}

/* docs/api.md §"Audit trail": an event names users, clients, roles and
 * resources, so reading them needs the four reads. */
static enum step_result need_reads(struct flow *f)
{
	return console_need(f, CONSOLE_EVENTS_READ,
	                    "The audit trail names users, clients, roles and resources: reading it "
	                    "needs the four :read permissions.");
}

static enum step_result events_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct events_view *v = view_of(ctx);
	struct api_error err;

	if (events_read_query(&ctx->query, &v->q, &v->filter, &err) < 0)
		return flow_error(f, &err);
	store_event_page(ctx->http.srv->store, console_of(ctx)->project_id, &v->filter, &v->q,
	                 &v->page, flow_completion(f));
	return STEP_WAIT;
}

/* The filters' form, as the request has them. */
static void filter_form(struct request_ctx *ctx, struct console_page *p)
{
	static const char *const words[] = { "actor", "target", "outcome", "since", "until" };
	static const char *const labels[] = { "Actor (a user or client ID, or cli)", "Target (an ID)",
	                                      "Outcome (success or an error code)",
	                                      "Since (RFC 3339, e.g. 2026-11-22T12:00:00Z)",
	                                      "Until (RFC 3339)" };
	const char *actions[EVENT_ACTION_COUNT + 1], *action_labels[EVENT_ACTION_COUNT + 1];
	char *action = console_path(ctx, "events");

	actions[0] = "";
	action_labels[0] = "any";
	for (size_t i = 0; i < EVENT_ACTION_COUNT; i++)
		actions[i + 1] = action_labels[i + 1] = event_actions[i];
	console_page_form_begin(p, action, "get", NULL);
	console_page_select(p, "action", "Action", actions, action_labels, EVENT_ACTION_COUNT + 1,
	                    evhttp_find_header(&ctx->query, "action"));
	for (size_t i = 0; i < 5; i++)
		console_page_field(p, &(struct console_field){ .name = words[i], .label = labels[i],
			.type = "text", .value = evhttp_find_header(&ctx->query, words[i]) });
	console_page_submit(p, "Show");
	console_page_form_end(p);
	free(action);
}

int console_event_rows(struct console_page *p, const char *caption, const char *data)
{
	static const char *const heads[] = { "Time", "Action", "Actor", "Target", "Outcome",
	                                     "Address" };
	static const char *const keys[] = { "time", "action", "actor", "target", "outcome",
	                                    "address" };
	const char *cells[6];
	struct json_rows rows;
	int rc;

	json_rows_open(&rows, data);
	console_page_table_begin(p, caption, heads, 6);
	while ((rc = json_rows_next(&rows, keys, 6, cells)) == 1)
		console_page_table_row(p, cells, 6);
	console_page_table_end(p);
	json_rows_close(&rows);
	return rc;
}

static enum step_result events_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct events_view *v = view_of(ctx);
	struct console_page p;

	console_begin(ctx, &p, "Audit trail");
	filter_form(ctx, &p);
	if (console_event_rows(&p, "Events, newest first", v->page.data) < 0) {
		evbuffer_free(p.buf);   /* never sent */
		return flow_fail(f, E_SYSTEM_ERROR, "The audit trail could not be read.");
	}
	console_list_pager(ctx, &p, "events", &v->q, v->page.total, "events");
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_events_steps[] = {
	CONSOLE_SIGNED_IN, need_reads, events_get, events_show, NULL,
};
