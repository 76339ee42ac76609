/*
 * edgeauth: the command line (docs/operations.md §"The program"): `serve` (serve.c) or one of
 * the other commands (cli.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <jansson.h>

#include "cli.h"
#include "cli_store.h"
#include "config.h"
#include "crypto.h"
#include "serve.h"
#include "util.h"
#include "version.h"

/* The source's commit, and the config file when neither -c nor
 * $EDGEAUTH_CONFIG names one: the Makefile passes both (COMMIT, CONFIG_PATH). */
#ifndef EDGEAUTH_COMMIT
#define EDGEAUTH_COMMIT "unknown"
#endif
#ifndef EDGEAUTH_DEFAULT_CONFIG
#define EDGEAUTH_DEFAULT_CONFIG "etc/edgeauth.conf"
#endif

/* The config file when no -c names one (docs/operations.md §"The program"):
 * $EDGEAUTH_CONFIG, else the path compiled in; *from says which. */
static const char *default_config(const char **from)
{
	const char *env = getenv("EDGEAUTH_CONFIG");

	if (env && *env) {
		*from = "$EDGEAUTH_CONFIG";
		return env;
	}
	*from = "compiled in";
	return EDGEAUTH_DEFAULT_CONFIG;
}

int main(int argc, char **argv)
{
	const char *from, *conf = default_config(&from);
	const struct cli_group *cmd;
	struct config cfg;
	int i = 1, rc;

	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("edgeauth %s (commit %s)\n", EDGEAUTH_VERSION, EDGEAUTH_COMMIT);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "-c")) {
		if (i + 1 >= argc) {
			fputs("edgeauth: -c needs a file\n", stderr);
			return cli_usage();
		}
		conf = argv[i + 1];
		from = "-c";
		i += 2;
	}
	/* `serve --help` too: every command takes --help (docs/commands.md) */
	if (i + 2 == argc && !strcmp(argv[i], "serve") && !strcmp(argv[i + 1], "--help"))
		i++;
	if (i < argc && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
		fputs(cli_usage_text, stdout);
		printf("config in force: %s (%s)\n", conf, from);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "help"))
		return cli_help(argc - i - 1, argv + i + 1);
	/* check-config also takes its file after its name */
	if (argc == i + 3 && !strcmp(argv[i], "check-config") && !strcmp(argv[i + 1], "-c")) {
		conf = argv[i + 2];
		argc = i + 1;
	}
	cmd = i < argc && strcmp(argv[i], "serve") ? cli_find(argv[i]) : NULL;
	if (i < argc && strcmp(argv[i], "serve") && !cmd) {
		fprintf(stderr, "edgeauth: no command %s\n", argv[i]);
		return cli_usage();
	}
	if (!cmd && i + 1 < argc) {
		fputs("edgeauth: serve takes no argument\n", stderr);
		return cli_usage();
	}
	/* before libevent allocates anything (the secrets rule of docs/operations.md §"The program"; crypto.h) */
	event_set_mem_functions(xmalloc, crypto_realloc_wiped, crypto_free_wiped);
	json_set_alloc_funcs(xmalloc, crypto_free_wiped);
	if (cmd) {
		/* it reads the config once its arguments are read */
		rc = cli_group_run(cmd, conf, argc - i - 1, argv + i + 1);
		cli_release();
		return rc;
	}
	if (cli_config_load(&cfg, conf))
		return EXIT_USAGE;
	rc = serve_run(&cfg);
	cli_release();
	config_release(&cfg);
	return rc;
}
