#ifndef EDGEAUTH_CLI_CLIENTS_H
#define EDGEAUTH_CLI_CLIENTS_H
/* `edgeauth client ...` (docs/commands.md §"Clients"): a project's clients
 * from the command line, with the API's rules (api_clients.h). */
#include "cli_args.h"

extern const struct cli_group cli_clients;

#endif
