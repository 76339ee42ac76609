/*
 * GET /console/projects/{project_id}/ (console_overview.h). The counts are
 * the totals of the API's lists, asked of the same store operations with a
 * page of one; an area the user may not read is not asked for. The recent
 * events are the audit trail's first page of RECENT_EVENTS, with the audit
 * trail's permissions.
 */
#include <stdio.h>
#include <stdlib.h>

#include "console.h"
#include "console_events.h"
#include "console_overview.h"
#include "jwt_key.h"
#include "key_schedule.h"
#include "keyring.h"
#include "listing.h"
#include "store_clients.h"
#include "store_events.h"
#include "store_resources.h"
#include "store_roles.h"
#include "store_users.h"
#include "timestamp.h"

/* The newest events the overview shows. */
#define RECENT_EVENTS 5

typedef void list_op(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done);

enum area { AREA_USERS, AREA_CLIENTS, AREA_ROLES, AREA_RESOURCES, AREA__N };

static const struct {
	const char *label;
	const char *permission;
	list_op *list;
} areas[AREA__N] = {
	[AREA_USERS] = { "Users", "users:read", store_user_list },
	[AREA_CLIENTS] = { "Clients", "clients:read", store_client_list },
	[AREA_ROLES] = { "Roles", "roles:read", store_role_list },
	[AREA_RESOURCES] = { "Resources", "resources:read", store_resource_list },
};

struct overview {
	struct list_query q;
	struct page pages[AREA__N];
	bool asked[AREA__N];
	struct list_query events_q;
	struct event_page_filter events_filter;
	struct page events;
	bool events_asked;
	struct keyring_refresh keys;
};

static void overview_release(void *state)
{
	struct overview *o = state;

	for (size_t i = 0; i < AREA__N; i++)
		page_release(&o->pages[i]);
	page_release(&o->events);
	keyring_refresh_release(&o->keys);
}

static enum step_result count(struct flow *f, enum area a)
{
	struct request_ctx *ctx = request_of(f);
	struct overview *o = console_view_state(ctx, sizeof *o, overview_release);

	if (!console_may(ctx, areas[a].permission))
		return STEP_NEXT;
	o->q = (struct list_query)LIST_QUERY_INIT;
	o->q.page_size = 1;
	o->asked[a] = true;
	areas[a].list(ctx->http.srv->store, console_of(ctx)->project_id, &o->q, &o->pages[a],
	              flow_completion(f));
	return STEP_WAIT;
}

static enum step_result count_users(struct flow *f) { return count(f, AREA_USERS); }
static enum step_result count_clients(struct flow *f) { return count(f, AREA_CLIENTS); }
static enum step_result count_roles(struct flow *f) { return count(f, AREA_ROLES); }
static enum step_result count_resources(struct flow *f) { return count(f, AREA_RESOURCES); }

static enum step_result events_recent(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct overview *o = console_view_state(ctx, sizeof *o, overview_release);

	if (!console_may(ctx, CONSOLE_EVENTS_READ))
		return STEP_NEXT;
	o->events_q = (struct list_query)LIST_QUERY_INIT;
	o->events_q.page_size = RECENT_EVENTS;
	o->events_q.no_total = true;
	o->events_filter = (struct event_page_filter)EVENT_PAGE_FILTER_INIT;
	o->events_asked = true;
	store_event_page(ctx->http.srv->store, console_of(ctx)->project_id, &o->events_filter,
	                 &o->events_q, &o->events, flow_completion(f));
	return STEP_WAIT;
}

/* The ring as the store has it now (a rotation by the CLI included). */
static enum step_result keys_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct overview *o = console_view_state(ctx, sizeof *o, overview_release);

	keyring_refresh(&o->keys, ctx->http.srv->keys, ctx->http.srv->store, true,
	                flow_completion(f));
	return STEP_WAIT;
}

static void time_cell(int64_t ms, bool none, char buf[TIMESTAMP_LEN])
{
	if (none)
		snprintf(buf, TIMESTAMP_LEN, "%s", "-");
	else
		format_timestamp(ms, buf);
}

static void keys_table(struct console_page *p, const struct keyring *ring)
{
	static const char *const heads[] = { "Key ID", "Algorithm", "State", "Signs from",
	                                     "Published until" };
	size_t n;
	const struct key_row *rows = keyring_rows(ring, &n);
	int64_t now = now_ms();

	console_page_heading(p, "Signing keys");
	console_page_text(p, "A key rotates when an operator runs edgeauth key rotate: the new key "
	                  "signs from its activation, and the old one stays published until every "
	                  "token it signed has expired.");
	console_page_table_begin(p, "Signing keys", heads, 5);
	for (size_t i = 0; i < n; i++) {
		char from[TIMESTAMP_LEN], until[TIMESTAMP_LEN];
		time_cell(rows[i].activates_at, false, from);
		time_cell(rows[i].publish_until, rows[i].publish_until == KEY_NO_BOUND, until);
		console_page_table_row(p, (const char *const[]){
			rows[i].kid, jwt_alg_name(rows[i].alg),
			key_state_name(key_schedule_state(rows, n, i, now)), from, until }, 5);
	}
	console_page_table_end(p);
}

static enum step_result show(struct flow *f)
{
	static const char *const heads[] = { "Records", "Count" };
	struct request_ctx *ctx = request_of(f);
	struct overview *o = console_view_state(ctx, sizeof *o, overview_release);
	struct console_page p;
	bool any = false;

	console_begin(ctx, &p, "Overview");
	console_page_table_begin(&p, "What the project holds", heads, 2);
	for (size_t i = 0; i < AREA__N; i++) {
		char total[24];
		if (!o->asked[i])
			continue;
		snprintf(total, sizeof total, "%lld", o->pages[i].total);
		console_page_table_row(&p, (const char *const[]){ areas[i].label, total }, 2);
		any = true;
	}
	console_page_table_end(&p);
	if (!any)
		console_page_text(&p, "Your role may read none of the project's users, clients, roles "
		                  "or resources.");
	if (o->events_asked) {
		char *href = console_path(ctx, "events");
		console_page_heading(&p, "Recent events");
		if (console_event_rows(&p, "The newest events", o->events.data) < 0)
			console_page_error(&p, "The recent events could not be read.");
		console_page_link(&p, href, "The whole audit trail");
		free(href);
	}
	keys_table(&p, ctx->http.srv->keys);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const console_overview_steps[] = {
	CONSOLE_SIGNED_IN, count_users, count_clients, count_roles, count_resources, events_recent,
	keys_read, show,
	NULL,
};
