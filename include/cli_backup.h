#ifndef EDGEAUTH_CLI_BACKUP_H
#define EDGEAUTH_CLI_BACKUP_H
/* `edgeauth backup FILE`, `restore FILE` and `invalidate-all`
 * (docs/operations.md §"Backup and restore"). */
#include "cli_args.h"

extern const struct cli_group cli_backup, cli_restore, cli_invalidate_all;

#endif
