#ifndef EDGEAUTH_CLI_ARGS_H
#define EDGEAUTH_CLI_ARGS_H
/*
 * The everyday commands' one argument parser (docs/commands.md): a command
 * group (user, role, client) is a table of subcommands, each naming its
 * options and operand as data; cli_group_run parses, opens the store,
 * checks --project and runs the subcommand. A usage error says what was
 * wrong, then the subcommand's own usage, and exits EXIT_USAGE.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "error.h"
#include "store.h"

/* docs/operations.md §"The program": a usage or configuration error. */
#define EXIT_USAGE 2

#define CLI_OPTIONS_MAX 8
/* The most values one repeatable option takes (--permission, --redirect-uri). */
#define CLI_LIST_MAX 100

enum cli_option_kind {
	CLI_VALUE,   /* --name VALUE, once */
	CLI_FLAG,    /* --password-stdin */
	CLI_LIST,    /* --permission VALUE, any number of times */
};

struct cli_option {
	const char *name;   /* with its dashes: "--project" */
	enum cli_option_kind kind;
	bool required;
};

struct cli_call;

struct cli_sub {
	const char *name;                 /* "add" */
	const char *usage;                /* after "edgeauth [-c FILE] " */
	const char *help;                 /* what `edgeauth help` says of it */
	const char *operand;              /* "USER": one operand, required; NULL: none */
	struct cli_option options[CLI_OPTIONS_MAX];   /* up to the first without a name */
	/* Returns the exit status: 0, 1 (cli_fail), EXIT_USAGE (cli_usage_error). */
	int (*run)(struct cli_call *c);
};

struct cli_group {
	const char *name;                 /* "user" */
	const struct cli_sub *subs;
	size_t n_subs;
};

/* What a subcommand runs with. Strings are borrowed from argv. */
struct cli_call {
	const struct config *cfg;
	const struct cli_group *group;
	const struct cli_sub *sub;
	struct store *st;
	const char *project_id;           /* --project, found in the store */
	const char *operand;              /* NULL when the subcommand takes none */
	bool json;                        /* --json, or stdout is not a terminal */
	const char *values[CLI_OPTIONS_MAX];           /* by option; NULL: not given */
	const char *lists[CLI_OPTIONS_MAX][CLI_LIST_MAX];
	size_t counts[CLI_OPTIONS_MAX];
};

/* Runs `edgeauth GROUP SUB ARGS...`: argv[0] is SUB. */
int cli_group_run(const struct cli_group *g, const struct config *cfg, int argc, char **argv);

/* The value of option name (a CLI_VALUE), or NULL when not given; for a
 * CLI_FLAG, non-NULL when given. */
const char *cli_arg(const struct cli_call *c, const char *name);
/* The values of a CLI_LIST option, *n of them. */
const char *const *cli_arg_list(const struct cli_call *c, const char *name, size_t *n);

/* Prints "edgeauth: GROUP SUB: <what>" and the subcommand's usage on
 * stderr; returns EXIT_USAGE. */
int cli_usage_error(const struct cli_call *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "edgeauth: <code>: <sentence>" on stderr; returns 1. */
int cli_fail(const struct api_error *err);

/* `edgeauth help GROUP [SUB]` for a group: its usage and help on stdout,
 * 0; an unknown SUB is a usage error. */
int cli_group_help(const struct cli_group *g, int argc, char **argv);
/* The usage lines of every subcommand of g, into f. */
void cli_group_usage(const struct cli_group *g, FILE *f);

#endif
