#ifndef EDGEAUTH_CLI_CERT_H
#define EDGEAUTH_CLI_CERT_H
/* `edgeauth cert self-signed` (docs/operations.md §"TLS"). */
#include "cli_args.h"

extern const struct cli_group cli_cert;

#endif
