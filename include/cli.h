#ifndef EDGEAUTH_CLI_H
#define EDGEAUTH_CLI_H
/*
 * The command line's commands beside `serve` (docs/operations.md §"The program"): a table of
 * command groups (cli_args.h), each run by cli_group_run with the config
 * file and the arguments after its name. They work beside a running server
 * (same store, WAL) and exit.
 */
#include "cli_args.h"

/* The command called name, or NULL. */
const struct cli_group *cli_find(const char *name);

/* edgeauth help [COMMAND [SUB]]: on stdout, 0; an unknown one is a usage
 * error (EXIT_USAGE). argv: what follows "help". Needs no config. */
int cli_help(int argc, char **argv);
/* The usage text (--help prints it on stdout). */
extern const char cli_usage_text[];
/* Prints the usage on stderr; returns EXIT_USAGE. */
int cli_usage(void);

#endif
