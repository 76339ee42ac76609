#ifndef EDGEAUTH_CONSOLE_EVENTS_H
#define EDGEAUTH_CONSOLE_EVENTS_H
/* The console's audit trail page (docs/console.md "The pages"): the
 * project's events, newest first, with the events API's filters (action,
 * actor, target, outcome, since, until) and paging; shown only with the
 * four :read permissions the API asks for. */
#include "console_page.h"
#include "flow.h"

/* The permissions that reading the audit trail needs: an event names
 * users, clients, roles and resources (docs/api.md §"Audit trail"). */
#define CONSOLE_EVENTS_READ "users:read clients:read roles:read resources:read"

extern flow_step *const console_events_steps[];

/* The table (caption) of the events of a store's page (data, a JSON array
 * of event records; NULL: none). -1 when data cannot be read. */
int console_event_rows(struct console_page *p, const char *caption, const char *data);

#endif
