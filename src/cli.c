/*
 * The commands beside `serve` (docs/operations.md §"The program",
 * docs/commands.md): a table of command groups, each parsed and run by
 * cli_args; the usage text and `edgeauth help`. Each command opens the store
 * a running server uses, does one thing, prints JSON or a message, and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_backup.h"
#include "cli_cert.h"
#include "cli_clients.h"
#include "cli_events.h"
#include "cli_keys.h"
#include "cli_project.h"
#include "cli_roles.h"
#include "cli_users.h"

const char cli_usage_text[] =
	"usage: edgeauth [-c FILE] [serve]                      run the server (default)\n"
	"       edgeauth [-c FILE] project create --name NAME   create a project, print its admin client\n"
	"       edgeauth [-c FILE] project list                 print the projects as JSON\n"
	"       edgeauth [-c FILE] project activate ID\n"
	"       edgeauth [-c FILE] project deactivate ID\n"
	"       edgeauth [-c FILE] project admin-client ID      a new admin client for it, printed\n"
	"       edgeauth [-c FILE] key list                     print the signing keys as JSON\n"
	"       edgeauth [-c FILE] key rotate [--alg ES256|RS256]\n"
	"                                                       add a key of each (or of one) algorithm\n"
	"       edgeauth [-c FILE] key retire KID               stop a key signing and verifying at once\n"
	"       edgeauth [-c FILE] events [--project ID] [--since RFC3339] [--action A]\n"
	"                                                       print the audit trail as JSON lines\n"
	"       edgeauth [-c FILE] cert self-signed --host NAME [--cert FILE] [--key FILE]\n"
	"                                                       write a self-signed TLS pair\n"
	"       edgeauth [-c FILE] backup FILE                  copy the store, live, into a new FILE\n"
	"       edgeauth [-c FILE] restore FILE                 put a backup back (no server running)\n"
	"       edgeauth [-c FILE] invalidate-all               end every token, code and session\n"
	"       edgeauth [-c FILE] check-config                 check the config, print the values in effect\n"
	"       edgeauth [-c FILE] user add --project P (--email E | --external-id X) --name N\n"
	"                                   [--role R] [--password-stdin]\n"
	"       edgeauth [-c FILE] user list --project P [--search S]\n"
	"       edgeauth [-c FILE] user show|enable|disable|delete|set-password --project P USER\n"
	"       edgeauth [-c FILE] role add --project P --code C --name N [--permission NAMED]...\n"
	"       edgeauth [-c FILE] role list --project P\n"
	"       edgeauth [-c FILE] client add --project P --name N [--redirect-uri U]...\n"
	"                                   [--permission NAMED]... [--auth-method METHOD]\n"
	"       edgeauth [-c FILE] client list --project P\n"
	"       edgeauth [-c FILE] client rotate-secret|enable|disable|delete --project P CLIENT\n"
	"                                                       users, roles, clients: a table, or JSON (--json)\n"
	"       edgeauth help COMMAND [SUB]                     explain one command\n"
	"       edgeauth [-c FILE] COMMAND [SUB] --help         the same\n"
	"       edgeauth check-config -c FILE\n"
	"       edgeauth --version | [-c FILE] --help\n"
	"FILE defaults to $EDGEAUTH_CONFIG, else the path compiled in (--help shows the one in force).\n";

int cli_usage(void)
{
	fputs(cli_usage_text, stderr);
	return EXIT_USAGE;
}

/* docs/operations.md §"The program": the file was loaded and checked (any
 * error there exits 2); this shows what took effect. */
static int check_config(struct cli_call *c)
{
	char *text = config_dump(c->cfg);

	fputs(text, stdout);
	free(text);
	return 0;
}

static const struct cli_sub check_config_sub[] = {
	{ .run = check_config, .store = CLI_STORE_NONE, .usage = "check-config",
	  .help = "  Checks the config file and prints every value in effect (also as\n"
	          "  `edgeauth check-config -c FILE`)." },
};

static const struct cli_group cli_check_config = {
	.name = "check-config", .subs = check_config_sub, .n_subs = 1,
};

static const struct cli_group *const groups[] = {
	&cli_users, &cli_roles, &cli_clients, &cli_projects, &cli_keys, &cli_cert, &cli_backup,
	&cli_restore, &cli_invalidate_all, &cli_check_config, &cli_events,
};

const struct cli_group *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (!strcmp(groups[i]->name, name))
			return groups[i];
	return NULL;
}

int cli_help(int argc, char **argv)
{
	const struct cli_group *g = argc > 0 ? cli_find(argv[0]) : NULL;

	if (argc == 0) {
		fputs(cli_usage_text, stdout);
		return 0;
	}
	if (g)
		return cli_group_help(g, argc - 1, argv + 1);
	fprintf(stderr, "edgeauth: help: no command %s\n", argv[0]);
	return cli_usage();
}
