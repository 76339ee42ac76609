#ifndef EDGEAUTH_CLI_KEYS_H
#define EDGEAUTH_CLI_KEYS_H
/* `edgeauth key list | rotate | retire` (docs/tokens.md §"Signing keys"). */
#include "cli_args.h"

extern const struct cli_group cli_keys;

#endif
