#ifndef EDGEAUTH_CLI_USERS_H
#define EDGEAUTH_CLI_USERS_H
/* `edgeauth user ...` (docs/commands.md §"Users"): a project's users from
 * the command line, with the API's rules (api_users.h). */
#include "cli_args.h"

extern const struct cli_group cli_users;

#endif
