/*
 * edgeauth project create | list | activate | deactivate | admin-client
 * (docs/commands.md §"Projects"). A new admin client's secret is printed
 * this once, through no stdio buffer, and wiped.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_output.h"
#include "cli_project.h"
#include "crypto.h"
#include "log.h"
#include "secret_file.h"

char *cli_new_project_text(const struct new_project *np)
{
	json_t *v = json_pack("{s:s, s:s, s:s}", "project_id", np->project_id,
	                      "client_id", np->client_id, "client_secret", np->client_secret);
	char *text = json_dumps(v, JSON_COMPACT);

	json_decref(v);
	return text;
}

void cli_print_new_project(const struct new_project *np)
{
	char *text = cli_new_project_text(np);

	/* to the descriptor itself, after what stdio holds: stdio's buffer
	 * would keep the secret for the life of the server */
	fflush(stdout);
	if (secret_file_write_fd(STDOUT_FILENO, text, strlen(text)) != 0 ||
	    secret_file_write_fd(STDOUT_FILENO, "\n", 1) != 0)
		log_error("the new project's line could not be written to stdout");
	crypto_free_wiped(text);
}

/* A write's outcome: 1 done, 0 no such project, -1 err. The exit status. */
static int said(const struct cli_call *c, int r, const struct api_error *err)
{
	if (r == 0)
		fprintf(stderr, "edgeauth: no project %s\n", c->operand);
	else if (r < 0)
		fprintf(stderr, "edgeauth: %s\n", err->description);
	return r == 1 ? 0 : 1;
}

static int project_create(struct cli_call *c)
{
	struct new_project np;
	struct api_error err;
	int r = store_project_create(c->st, cli_arg(c, "--name"), &np, &err) == 0 ? 1 : -1;

	if (r == 1) {
		cli_print_new_project(&np);
		store_new_project_release(&np);
	}
	return said(c, r, &err);
}

static int project_list_print(struct cli_call *c)
{
	struct api_error err;
	json_t *list = store_project_list(c->st, &err);

	return list ? cli_print_json(list) : said(c, -1, &err);
}

static int project_set_active(struct cli_call *c)
{
	struct api_error err;
	bool active = !strcmp(c->sub->name, "activate");

	return said(c, store_project_set_active(c->st, c->operand, active, &err), &err);
}

/* docs/api.md §"Read one and delete": recovers a project whose admin client
 * was deleted. */
static int project_admin_client(struct cli_call *c)
{
	struct new_project np;
	struct api_error err;
	int made = store_project_admin_client(c->st, c->operand, &np, &err);

	if (made == 1) {
		cli_print_new_project(&np);
		store_new_project_release(&np);
	}
	return said(c, made, &err);
}

static const struct cli_sub subs[] = {
	{ .name = "create", .run = project_create, .check = cli_check_nonempty,
	  .usage = "project create --name NAME",
	  .help = "  Creates a project and prints its admin client as JSON, the secret this once.",
	  .options = { { "--name", CLI_VALUE, true } } },
	{ .name = "list", .run = project_list_print, .usage = "project list",
	  .help = "  Prints the projects as a JSON array." },
	{ .name = "activate", .run = project_set_active, .operand = "ID",
	  .usage = "project activate ID",
	  .help = "  Lets a deactivated project issue tokens again." },
	{ .name = "deactivate", .run = project_set_active, .operand = "ID",
	  .usage = "project deactivate ID",
	  .help = "  Stops the project's tokens at the server's next request." },
	{ .name = "admin-client", .run = project_admin_client, .operand = "ID",
	  .usage = "project admin-client ID",
	  .help = "  Makes a new admin client for the project (one whose admin client was deleted,\n"
	          "  or whose secret is lost) and prints it as project create does." },
};

const struct cli_group cli_projects = {
	.name = "project", .subs = subs, .n_subs = sizeof subs / sizeof subs[0],
};
