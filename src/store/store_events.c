/*
 * The audit trail: the front (store_events.h). Each operation is the
 * backend's (st->be->events: sqlite_events.c, pg_events.c); the origin,
 * the sink and the records that wait for their commit are here, once for
 * both backends.
 */
#include <stdlib.h>
#include <string.h>

#include "store_backend.h"
#include "store_events.h"
#include "util.h"

const struct event_origin event_origin_cli = { EVENT_ACTOR_CLI, NULL };

const char *const event_actions[EVENT_ACTION_COUNT] = {
	EVENT_RESOURCE_CREATE, EVENT_RESOURCE_UPDATE, EVENT_RESOURCE_DELETE,
	EVENT_ROLE_CREATE, EVENT_ROLE_UPDATE, EVENT_ROLE_DELETE,
	EVENT_USER_CREATE, EVENT_USER_UPDATE, EVENT_USER_DELETE, EVENT_USER_RESET_FACTORS,
	EVENT_FACTOR_ENROLL, EVENT_FACTOR_REMOVE, EVENT_FACTOR_USE, EVENT_FACTOR_FAILURE,
	EVENT_FACTOR_RECOVERY_CODES, EVENT_FACTOR_RECOVERY_USE,
	EVENT_CLIENT_CREATE, EVENT_CLIENT_UPDATE, EVENT_CLIENT_DELETE, EVENT_CLIENT_ROTATE_SECRET,
	EVENT_SIGNIN_SUCCESS, EVENT_SIGNIN_FAILURE, EVENT_SIGNIN_THROTTLED, EVENT_SESSION_END,
	EVENT_TOKEN_REVOKE, EVENT_CODE_REUSE_DETECTED, EVENT_REFRESH_REUSE_DETECTED,
	EVENT_KEY_ROTATE, EVENT_KEY_RETIRE,
	EVENT_PROJECT_CREATE, EVENT_PROJECT_ACTIVATE, EVENT_PROJECT_DEACTIVATE,
	EVENT_PROJECT_ADMIN_CLIENT, EVENT_STORE_INVALIDATE_ALL,
	EVENT_DEVICE_APPROVE, EVENT_DEVICE_DENY, EVENT_DEVICE_REQUEST, EVENT_DEVICE_POLL,
	EVENT_ACCESS_RULE_DENIED, EVENT_CONSENT_GRANT, EVENT_CONSENT_REVOKE, EVENT_CONSENT_DENY,
};

void store_events_keep(struct store *st, const char *record)
{
	size_t n = strlen(record) + 1;

	if (st->events_len + n + 1 > st->events_cap) {
		st->events_cap = (st->events_len + n + 1) * 2;
		st->events_pending = xrealloc(st->events_pending, st->events_cap);
	}
	memcpy(st->events_pending + st->events_len, record, n - 1);
	st->events_len += n;
	st->events_pending[st->events_len - 1] = '\n';
	st->events_pending[st->events_len] = '\0';
}

void store_event_record(struct store *st, const struct event *evs, size_t n,
                        struct completion done)
{
	st->be->events->record(st, evs, n, done);
}

void store_events_origin(struct store *st, const struct event_origin *by)
{
	st->events_origin = by;
}

void store_events_sink(struct store *st, void (*sink)(void *arg, const char *lines, size_t len),
                       void *arg)
{
	st->events_sink = sink;
	st->events_sink_arg = arg;
}

int store_event_list(struct store *st, const struct event_filter *f,
                     void (*each)(void *arg, const char *record), void *arg,
                     struct api_error *err)
{
	struct sync_result r;

	st->be->events->list(st, f, each, arg, sync_completion(&r));
	return sync_wait(&r, err);
}

void store_event_page(struct store *st, const char *project_id,
                      const struct event_page_filter *f, const struct list_query *q,
                      struct page *out, struct completion done)
{
	st->be->events->page(st, project_id, f, q, out, done);
}

/* A target or an actor names one thing, an action one of a few dozen. */
enum event_page_index store_event_page_index(const struct event_page_filter *f)
{
	if (f->target)
		return EVENT_PAGE_BY_TARGET;
	if (f->actor)
		return EVENT_PAGE_BY_ACTOR;
	return f->action ? EVENT_PAGE_BY_ACTION : EVENT_PAGE_BY_PROJECT;
}

/* On PostgreSQL the purge completes at once, with the count of its last
 * run that ended (pg_purge_run). */
int store_event_purge(struct store *st, int batch, int64_t before, struct api_error *err)
{
	struct sync_result r;
	int deleted = -1;

	st->be->events->purge(st, batch, before, &deleted, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : deleted;
}

/* ---- the records waiting for their commit ---- */

void store_events_mark(struct store *st)
{
	st->events_mark = st->events_len;
}

void store_events_rolled_back(struct store *st)
{
	st->events_len = st->events_mark;
}

void store_events_drop(struct store *st)
{
	st->events_len = st->events_mark = 0;
}

/* The batch's records are kept as the lines the sink takes: one call. */
void store_events_committed(struct store *st)
{
	if (st->events_sink && st->events_len > 0)
		st->events_sink(st->events_sink_arg, st->events_pending, st->events_len);
	store_events_drop(st);
}
