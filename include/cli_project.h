#ifndef EDGEAUTH_CLI_PROJECT_H
#define EDGEAUTH_CLI_PROJECT_H
/* `edgeauth project ...` (docs/commands.md §"Projects"): create, list,
 * (de)activate a project, and give it a new admin client. */
#include "cli_args.h"
#include "store_projects.h"

extern const struct cli_group cli_projects;

/* Prints {"project_id","client_id","client_secret"} on stdout: the one
 * time a new admin client's secret is shown. */
void cli_print_new_project(const struct new_project *np);
/* The same JSON as text, without the newline; caller wipes and frees it. */
char *cli_new_project_text(const struct new_project *np);

#endif
