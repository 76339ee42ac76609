#ifndef EDGEAUTH_CLI_EVENTS_H
#define EDGEAUTH_CLI_EVENTS_H
/* `edgeauth events` (docs/operations.md §"Audit trail"): the audit trail,
 * read. */
#include "cli_args.h"

extern const struct cli_group cli_events;

#endif
