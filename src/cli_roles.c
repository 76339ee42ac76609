/*
 * edgeauth role add | list (docs/commands.md §"Roles"). add reads its
 * options into the body the API would get, checks it with the API's reader
 * (roles_read_body), turns the named permissions into their IDs, and
 * creates the role through the store operation the API uses, with actor
 * "cli" and no scope (the box's operator may grant any permission).
 */
#include <stdlib.h>
#include <string.h>

#include "api_roles.h"
#include "cli_lookup.h"
#include "cli_output.h"
#include "cli_roles.h"
#include "store_roles.h"

static const char *const role_columns[] = {
	"id", "code", "name", "description", "requires_second_factor", NULL,
};

/* Reads body into f and ids: invalid_params first, as the API answers,
 * then the named permissions (some_permissions_not_found). */
static int read_role(struct cli_call *c, json_t *body, struct role_fields *f,
                     struct jbody_id_list *ids, struct api_error *err)
{
	if (roles_read_body(body, f, ids, err) < 0 || cli_body_permissions(c, body, err) < 0)
		return -1;
	jbody_id_list_release(ids);
	return roles_read_body(body, f, ids, err);
}

static int role_add(struct cli_call *c)
{
	struct jbody_id_list ids = ID_LIST_INIT;
	struct role_fields f = { 0 };
	struct api_error err;
	struct sync_result r;
	char *record = NULL;
	json_t *body = json_object(), *v = NULL;

	cli_body_set(body, "code", cli_arg(c, "--code"));
	cli_body_set(body, "name", cli_arg(c, "--name"));
	if (cli_arg(c, "--requires-second-factor"))
		json_object_set_new(body, "requires_second_factor", json_true());
	if (read_role(c, body, &f, &ids, &err) == 0) {
		store_role_create(c->st, &event_origin_cli, c->project_id, &f, NULL, &record,
		                  sync_completion(&r));
		if (sync_wait(&r, &err) == 0)
			v = cli_record(record, &err);
	}
	free(record);
	jbody_id_list_release(&ids);
	json_decref(body);
	return v ? cli_print(c, v, role_columns) : cli_fail(&err);
}

static int role_list(struct cli_call *c)
{
	return cli_list_print(c, store_role_list, NULL, role_columns);
}

static const struct cli_sub subs[] = {
	{ .name = "add", .run = role_add,
	  .usage = "role add --project P --code C --name N [--permission NAMED]...\n"
	           "         [--requires-second-factor]",
	  .help = "  Adds a role holding the named permissions (\"users:read\", \"orders:write\";\n"
	          "  '*' stands for the twelve of the default resources). A user's tokens carry\n"
	          "  the permissions of its role. --requires-second-factor: its users who have\n"
	          "  no second factor set up an authenticator app right after the password.",
	  .options = { { "--project", CLI_VALUE, true }, { "--code", CLI_VALUE, true },
	               { "--name", CLI_VALUE, true }, { "--permission", CLI_LIST, false },
	               { "--requires-second-factor", CLI_FLAG, false } } },
	{ .name = "list", .run = role_list, .usage = "role list --project P",
	  .help = "  Lists the project's roles, oldest first.",
	  .options = { { "--project", CLI_VALUE, true } } },
};

const struct cli_group cli_roles = {
	.name = "role", .subs = subs, .n_subs = sizeof subs / sizeof subs[0], .records = true,
};
