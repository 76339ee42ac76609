#ifndef EDGEAUTH_CLI_ARGS_H
#define EDGEAUTH_CLI_ARGS_H
/*
 * The commands' one argument parser (docs/commands.md): a command group
 * (user, key, project, ...) is a table of subcommands, each naming its
 * options, operand and store as data; cli_group_run parses, loads the
 * config, opens the store, checks --project and runs the subcommand. A
 * usage error says what was wrong, then the subcommand's own usage, and
 * exits EXIT_USAGE; --help prints the usage on stdout, needing no config.
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

/* The store a subcommand runs with, opened after its arguments are read. */
enum cli_store_use {
	CLI_STORE_WRITE,   /* cli_command_store; a --project must name a project */
	CLI_STORE_READ,    /* cli_open_store; a --project only filters (events) */
	CLI_STORE_NONE,    /* none: cert, backup, restore, check-config */
};

struct cli_sub {
	const char *name;                 /* "add"; NULL: the group's one, bare command */
	const char *usage;                /* after "edgeauth [-c FILE] " */
	const char *help;                 /* what `edgeauth help` says of it */
	const char *operand;              /* "USER": one operand, required; NULL: none */
	struct cli_option options[CLI_OPTIONS_MAX];   /* up to the first without a name */
	enum cli_store_use store;
	/* The values' own rules, checked before the config is read: 0, or
	 * EXIT_USAGE (cli_usage_error). NULL: none. */
	int (*check)(struct cli_call *c);
	/* Returns the exit status: 0, 1 (cli_fail), EXIT_USAGE (cli_usage_error). */
	int (*run)(struct cli_call *c);
};

struct cli_group {
	const char *name;                 /* "user" */
	const struct cli_sub *subs;       /* one, without a name, for a bare command (backup) */
	size_t n_subs;
	bool records;                     /* prints records: a table, or JSON (--json) */
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

/* Runs `edgeauth [-c conf] GROUP SUB ARGS...`: argv[0] is SUB (for a bare
 * command, the first of ARGS). The config file conf is read once the
 * arguments are; a config error exits EXIT_USAGE. */
int cli_group_run(const struct cli_group *g, const char *conf, int argc, char **argv);

/* Reads the config file conf into cfg (config_init first): 0, or
 * EXIT_USAGE with the reason on stderr (cfg released). */
int cli_config_load(struct config *cfg, const char *conf);

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
/* A check (struct cli_sub) of the subcommands whose values may not be
 * empty: "--name needs a value", or 0. */
int cli_check_nonempty(struct cli_call *c);

/* `edgeauth help GROUP [SUB]` for a group: its usage and help on stdout,
 * 0; an unknown SUB is a usage error. */
int cli_group_help(const struct cli_group *g, int argc, char **argv);
/* The usage lines of every subcommand of g, into f. */
void cli_group_usage(const struct cli_group *g, FILE *f);

#endif
