/*
 * The commands' argument parser and runner (cli_args.h, docs/commands.md).
 * Options are read by the subcommand's table; whatever is wrong with them
 * is a usage error, said before the config is read or the store opened.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_store.h"
#include "crypto.h"
#include "flow.h"
#include "store_projects.h"

/* parse's answer when --help was given */
#define HELP_ASKED (-1)

/* A bare command (backup FILE) has no subcommand word. */
static bool is_bare(const struct cli_group *g)
{
	return g->n_subs == 1 && !g->subs[0].name;
}

static const struct cli_sub *find_sub(const struct cli_group *g, const char *name)
{
	for (size_t i = 0; i < g->n_subs; i++)
		if (g->subs[i].name && !strcmp(g->subs[i].name, name))
			return &g->subs[i];
	return NULL;
}

static int find_option(const struct cli_sub *sub, const char *name, size_t len)
{
	for (int i = 0; i < CLI_OPTIONS_MAX && sub->options[i].name; i++)
		if (strlen(sub->options[i].name) == len && !strncmp(sub->options[i].name, name, len))
			return i;
	return -1;
}

void cli_group_usage(const struct cli_group *g, FILE *f)
{
	for (size_t i = 0; i < g->n_subs; i++)
		fprintf(f, "%s edgeauth [-c FILE] %s\n", i ? "      " : "usage:", g->subs[i].usage);
}

/* "user add", or "backup" for a bare command. */
static void print_name(const struct cli_call *c, FILE *f)
{
	fputs(c->group->name, f);
	if (c->sub->name)
		fprintf(f, " %s", c->sub->name);
}

/* A group's usage error, before a subcommand is known. */
static int group_usage_error(const struct cli_group *g, const char *what, const char *arg)
{
	fprintf(stderr, "edgeauth: %s: %s%s\n", g->name, what, arg ? arg : "");
	cli_group_usage(g, stderr);
	return EXIT_USAGE;
}

int cli_usage_error(const struct cli_call *c, const char *fmt, ...)
{
	va_list ap;

	fputs("edgeauth: ", stderr);
	print_name(c, stderr);
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: edgeauth [-c FILE] %s\n", c->sub->usage);
	return EXIT_USAGE;
}

int cli_fail(const struct api_error *err)
{
	fprintf(stderr, "edgeauth: %s: %s\n", err->code, err->description);
	return 1;
}

int cli_check_nonempty(struct cli_call *c)
{
	for (int k = 0; k < CLI_OPTIONS_MAX && c->sub->options[k].name; k++) {
		bool empty = c->values[k] && !*c->values[k];

		for (size_t j = 0; j < c->counts[k]; j++)
			empty = empty || !*c->lists[k][j];
		if (empty)
			return cli_usage_error(c, "%s needs a value", c->sub->options[k].name);
	}
	return 0;
}

/* An ID edgeauth makes (22 base64url characters; a key's, 43) may begin
 * with "--" (one in 4096): where the operand is still missing, such a word
 * is the operand, so that `project activate ID` pasted from a list works
 * without "--" before it (no option's name has that length). */
static bool operand_id(const struct cli_call *c, const char *arg)
{
	size_t len = strlen(arg);

	return c->sub->operand && !c->operand && (len == ID_CHARS || len == SECRET_HASH_LEN) &&
	       strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == len;
}

/* One option at argv[*i] (--name VALUE or --name=VALUE); *i moves past
 * what it took. 0, or EXIT_USAGE said. */
static int read_option(struct cli_call *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	int k = find_option(c->sub, arg, len);
	const struct cli_option *o = k >= 0 ? &c->sub->options[k] : NULL;
	const char *value = eq ? eq + 1 : NULL;

	if (!o && operand_id(c, arg)) {
		c->operand = arg;
		return 0;
	}
	if (!o)
		return cli_usage_error(c, "unknown option %.*s", (int)len, arg);
	if (o->kind == CLI_FLAG) {
		if (value)
			return cli_usage_error(c, "%s takes no value", o->name);
		c->values[k] = o->name;
		return 0;
	}
	if (!value) {
		if (*i + 1 >= argc)
			return cli_usage_error(c, "%s needs a value", o->name);
		value = argv[++*i];
	}
	if (o->kind == CLI_VALUE) {
		if (c->values[k])
			return cli_usage_error(c, "%s is given twice", o->name);
		c->values[k] = value;
	} else {
		if (c->counts[k] == CLI_LIST_MAX)
			return cli_usage_error(c, "%s is given more than %d times", o->name,
			                       CLI_LIST_MAX);
		c->lists[k][c->counts[k]++] = value;
	}
	return 0;
}

/* --help, or -h as before a command (docs/commands.md). */
static bool asks_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/* argv: the arguments after the subcommand's name. 0, EXIT_USAGE said, or
 * HELP_ASKED. */
static int parse(struct cli_call *c, int argc, char **argv)
{
	bool options_end = false;

	c->json = !isatty(STDOUT_FILENO);
	for (int i = 0; i < argc; i++) {
		int rc = 0;

		if (!options_end && !strcmp(argv[i], "--"))
			options_end = true;
		else if (!options_end && asks_help(argv[i]))
			return HELP_ASKED;
		else if (!options_end && c->group->records && !strcmp(argv[i], "--json"))
			c->json = true;
		/* "--" only: an ID may begin with one dash (base64url); one that
		 * begins with two comes after "--" */
		else if (!options_end && !strncmp(argv[i], "--", 2))
			rc = read_option(c, argc, argv, &i);
		else if (c->sub->operand && !c->operand)
			c->operand = argv[i];
		else   /* not echoed: it may be a password typed where it does not belong */
			rc = cli_usage_error(c, "argument %d is one too many", i + 1);
		if (rc)
			return rc;
	}
	for (int k = 0; k < CLI_OPTIONS_MAX && c->sub->options[k].name; k++)
		if (c->sub->options[k].required && !c->values[k])
			return cli_usage_error(c, "%s is required", c->sub->options[k].name);
	if (c->sub->operand && !c->operand)
		return cli_usage_error(c, "%s is required", c->sub->operand);
	return 0;
}

const char *cli_arg(const struct cli_call *c, const char *name)
{
	int k = find_option(c->sub, name, strlen(name));

	return k >= 0 ? c->values[k] : NULL;
}

const char *const *cli_arg_list(const struct cli_call *c, const char *name, size_t *n)
{
	int k = find_option(c->sub, name, strlen(name));

	*n = k >= 0 ? c->counts[k] : 0;
	return k >= 0 ? c->lists[k] : NULL;
}

/* The API's project_not_found (docs/api.md §"Which error wins"); an
 * inactive project is still the operator's to manage. */
static int project_check(struct cli_call *c)
{
	struct project_state ps = { 0 };
	struct sync_result r;
	struct api_error err;

	store_project_get(c->st, c->project_id, &ps, sync_completion(&r));
	if (sync_wait(&r, &err) < 0)
		return cli_fail(&err);
	if (!ps.found) {
		api_fail(&err, E_PROJECT_NOT_FOUND, "The project does not exist.");
		return cli_fail(&err);
	}
	return 0;
}

int cli_config_load(struct config *cfg, const char *conf)
{
	char errbuf[512];

	config_init(cfg);
	if (config_load(cfg, conf, errbuf, sizeof errbuf) == 0)
		return 0;
	fprintf(stderr, "edgeauth: %s\n", errbuf);
	config_release(cfg);
	return EXIT_USAGE;
}

/* Runs c->sub with the store it names. */
static int run_sub(struct cli_call *c)
{
	int rc;

	if (c->sub->store == CLI_STORE_NONE)
		return c->sub->run(c);
	c->st = c->sub->store == CLI_STORE_READ ? cli_open_store(c->cfg) : cli_command_store(c->cfg);
	if (!c->st)
		return 1;
	c->project_id = cli_arg(c, "--project");
	rc = c->project_id && c->sub->store == CLI_STORE_WRITE ? project_check(c) : 0;
	if (rc == 0)
		rc = c->sub->run(c);
	store_close(c->st);
	return rc;
}

/* The usage and help of g's subcommands (only one when only is not NULL). */
static void print_help(const struct cli_group *g, const struct cli_sub *only)
{
	for (size_t i = 0; i < g->n_subs; i++) {
		const struct cli_sub *s = &g->subs[i];

		if (only && s != only)
			continue;
		printf("edgeauth [-c FILE] %s\n%s\n", s->usage, s->help);
	}
	if (g->records)
		printf("\nOutput: a table on a terminal, JSON when stdout is not a terminal or with --json.\n"
		       "A failure prints \"edgeauth: <code>: <sentence>\" on stderr and exits 1;"
		       " a usage error exits 2.\n");
	else
		printf("\nA failure prints a sentence on stderr and exits 1; a usage error exits 2.\n");
}

int cli_group_run(const struct cli_group *g, const char *conf, int argc, char **argv)
{
	struct cli_call c = { .group = g };
	struct config cfg;
	int rc;

	if (is_bare(g)) {
		c.sub = &g->subs[0];
	} else {
		if (argc < 1)
			return group_usage_error(g, "which command?", NULL);
		if (asks_help(argv[0]))
			return cli_group_help(g, 0, NULL);
		c.sub = find_sub(g, argv[0]);
		if (!c.sub)
			return group_usage_error(g, "no command ", argv[0]);
		argc--;
		argv++;
	}
	rc = parse(&c, argc, argv);
	if (rc == HELP_ASKED) {
		print_help(g, c.sub);
		return 0;
	}
	if (rc == 0 && c.sub->check)
		rc = c.sub->check(&c);
	if (rc == 0)
		rc = cli_config_load(&cfg, conf);
	if (rc)
		return rc;
	c.cfg = &cfg;
	rc = run_sub(&c);
	config_release(&cfg);
	return rc;
}

int cli_group_help(const struct cli_group *g, int argc, char **argv)
{
	const struct cli_sub *only = argc > 0 ? find_sub(g, argv[0]) : NULL;

	if (argc > 1 || (argc == 1 && !only))
		return group_usage_error(g, "help: no command ", argv[argc - 1]);
	print_help(g, only);
	return 0;
}
