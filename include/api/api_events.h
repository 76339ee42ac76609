#ifndef EDGEAUTH_API_EVENTS_H
#define EDGEAUTH_API_EVENTS_H
/* The audit trail's list of docs/api.md §"Audit trail":
 * GET /api/v1/projects/{project_id}/events. */
#include <event2/keyvalq_struct.h>

#include "error.h"
#include "flow.h"
#include "listing.h"
#include "store_events.h"

extern flow_step *const events_list_steps[];
/* The query parameters the list takes (input_names.h). */
extern const char *const events_list_query[];

/* Reads the list's query (paging, sort_dir, and the filters action,
 * actor, target, outcome, since, until; an empty one is none) into *q and
 * *f, strings borrowed from query. 0, or -1 with invalid_params. */
int events_read_query(const struct evkeyvalq *query, struct list_query *q,
                      struct event_page_filter *f, struct api_error *err);

#endif
