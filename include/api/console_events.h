#ifndef EDGEAUTH_CONSOLE_EVENTS_H
#define EDGEAUTH_CONSOLE_EVENTS_H
/* The console's audit trail page (docs/console.md "The pages"): the
 * project's events, newest first, with the events API's filters (action,
 * actor, target, outcome, since, until) and paging; shown only with the
 * four :read permissions the API asks for. */
#include "flow.h"

extern flow_step *const console_events_steps[];

#endif
