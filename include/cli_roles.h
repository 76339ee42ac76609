#ifndef EDGEAUTH_CLI_ROLES_H
#define EDGEAUTH_CLI_ROLES_H
/* `edgeauth role ...` (docs/commands.md §"Roles"): a project's roles from
 * the command line, with the API's rules (api_roles.h). */
#include "cli_args.h"

extern const struct cli_group cli_roles;

#endif
