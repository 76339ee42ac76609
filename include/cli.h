#ifndef EDGEAUTH_CLI_H
#define EDGEAUTH_CLI_H
/*
 * The command line's commands beside `serve` (docs/operations.md §"The program"): a table of
 * names, each run with the loaded config and the arguments after its name.
 * They work beside a running server (same store, WAL) and exit.
 */
#include "cli_args.h"
#include "cli_store.h"
#include "config.h"
#include "store.h"
#include "store_projects.h"

struct cli_command {
	const char *name;
	/* argv[0..argc) are the arguments after the name; returns the exit status */
	int (*run)(const struct config *cfg, int argc, char **argv);
};

/* The command called name, or NULL. */
const struct cli_command *cli_find(const char *name);

/* edgeauth help [COMMAND [SUB]]: on stdout, 0; an unknown one is a usage
 * error (EXIT_USAGE). argv: what follows "help". Needs no config. */
int cli_help(int argc, char **argv);
/* The usage text (--help prints it on stdout). */
extern const char cli_usage_text[];
/* Prints the usage on stderr; returns EXIT_USAGE. */
int cli_usage(void);

/* Prints {"project_id","client_id","client_secret"} on stdout: the one
 * time a new admin client's secret is shown. */
void cli_print_new_project(const struct new_project *np);
/* The same JSON as text, without the newline; caller wipes and frees it. */
char *cli_new_project_text(const struct new_project *np);

#endif
