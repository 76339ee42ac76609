/*
 * edgeauth client add | list | rotate-secret | enable | disable | delete
 * (docs/commands.md §"Clients"). add reads its options into the body the
 * API would get and checks it with the API's reader (clients_read_body);
 * every write goes through the store operation the API uses, with actor
 * "cli" and no scope (the box's operator may grant any permission). A
 * secret is shown once, in the answer that issues it, and stored as a hash.
 */
#include <stdlib.h>
#include <string.h>

#include "api_clients.h"
#include "cli_clients.h"
#include "cli_lookup.h"
#include "cli_output.h"
#include "crypto.h"
#include "store_clients.h"
#include "util.h"

static const char *const client_columns[] = {
	"id", "name", "is_active", "token_endpoint_auth_method", "redirect_uris", NULL,
};

/* The body of an add: invalid_params first, as the API answers, then the
 * named permissions (some_permissions_not_found). b is read again with
 * their IDs. */
static int read_client(struct cli_call *c, json_t *body, struct client_body *b,
                       struct api_error *err)
{
	if (clients_read_body(body, false, b, err) < 0 || cli_body_permissions(c, body, err) < 0)
		return -1;
	clients_body_release(b);
	clients_body_init(b);
	return clients_read_body(body, false, b, err);
}

/* The record of a create, with its secret after the record's fields (as
 * the API answers it). */
static json_t *created(struct sync_result *r, char *record, const char *secret,
                       struct api_error *err)
{
	json_t *v = sync_wait(r, err) < 0 ? NULL : cli_record(record, err);

	if (v)
		json_object_set_new(v, "client_secret", json_string(secret));
	free(record);
	return v;
}

static int client_add(struct cli_call *c)
{
	size_t n;
	const char *const *uris = cli_arg_list(c, "--redirect-uri", &n);
	char hash[SECRET_HASH_LEN + 1], *secret = NULL, *record = NULL;
	json_t *body = json_object(), *list = json_array(), *v = NULL;
	struct client_fields fields;
	struct client_body b;
	struct api_error err;
	struct sync_result r;

	cli_body_set(body, "name", cli_arg(c, "--name"));
	cli_body_set(body, "token_endpoint_auth_method", cli_arg(c, "--auth-method"));
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, json_stringn_nocheck(uris[i], strlen(uris[i])));
	json_object_set_new(body, "redirect_uris", list);
	clients_body_init(&b);
	if (read_client(c, body, &b, &err) == 0) {
		fields = clients_fields_of(&b, false);
		secret = crypto_new_secret();
		crypto_hash_secret(secret, strlen(secret), hash);
		store_client_create(c->st, &event_origin_cli, c->project_id, &fields, hash, NULL,
		                    &record, sync_completion(&r));
		v = created(&r, record, secret, &err);
	}
	crypto_free_wiped(secret);
	clients_body_release(&b);
	json_decref(body);
	return v ? cli_print(c, v, client_columns) : cli_fail(&err);
}

static int client_list(struct cli_call *c)
{
	return cli_list_print(c, store_client_list, NULL, client_columns);
}

static const char *id_of(const json_t *record)
{
	return json_string_value(json_object_get(record, "id"));
}

/* A new secret replaces the old one at once (docs/api.md §"Records"). */
static int client_rotate_secret(struct cli_call *c)
{
	char hash[SECRET_HASH_LEN + 1], *secret;
	struct api_error err;
	struct sync_result r;
	json_t *client = cli_find_client(c, c->operand, &err), *v = NULL;

	if (!client)
		return cli_fail(&err);
	secret = crypto_new_secret();
	crypto_hash_secret(secret, strlen(secret), hash);
	store_client_set_secret(c->st, &event_origin_cli, c->project_id, id_of(client), hash, NULL,
	                        sync_completion(&r));
	if (sync_wait(&r, &err) == 0)
		v = json_pack("{s:s, s:s}", "client_id", id_of(client), "client_secret", secret);
	crypto_free_wiped(secret);
	json_decref(client);
	return v ? cli_print(c, v, NULL) : cli_fail(&err);
}

/* Only is_active changes: every other field keeps its stored value. */
static int set_active(struct cli_call *c, bool active)
{
	struct api_error err;
	struct sync_result r;
	char *record = NULL;
	json_t *client = cli_find_client(c, c->operand, &err), *v = NULL;

	if (!client)
		return cli_fail(&err);
	struct client_fields f = {
		.name = json_string_value(json_object_get(client, "name")), .is_active = active,
	};
	store_client_update(c->st, &event_origin_cli, c->project_id, id_of(client), &f, NULL,
	                    &record, sync_completion(&r));
	if (sync_wait(&r, &err) == 0)
		v = cli_record(record, &err);
	free(record);
	json_decref(client);
	return v ? cli_print(c, v, client_columns) : cli_fail(&err);
}

static int client_enable(struct cli_call *c)
{
	return set_active(c, true);
}

static int client_disable(struct cli_call *c)
{
	return set_active(c, false);
}

static int client_delete(struct cli_call *c)
{
	struct api_error err;
	json_t *client = cli_find_client(c, c->operand, &err);

	return client ? cli_delete_print(c, client, store_client_delete, client_columns)
	              : cli_fail(&err);
}

#define PROJECT { "--project", CLI_VALUE, true }

static const struct cli_sub subs[] = {
	{ .name = "add", .run = client_add,
	  .usage = "client add --project P --name N [--redirect-uri U]... [--permission NAMED]...\n"
	           "                       [--auth-method none|client_secret_basic|client_secret_post]",
	  .help = "  Adds an active client and prints it with its secret, shown this once. U is a\n"
	          "  redirect URI the client may use (an exact match); the named permissions\n"
	          "  (\"users:read\"; '*' for the twelve of the default resources) are those of its\n"
	          "  client_credentials tokens. The auth method defaults to none (a public client).",
	  .options = { PROJECT, { "--name", CLI_VALUE, true }, { "--redirect-uri", CLI_LIST, false },
	               { "--permission", CLI_LIST, false }, { "--auth-method", CLI_VALUE, false } } },
	{ .name = "list", .run = client_list, .usage = "client list --project P",
	  .help = "  Lists the project's clients, oldest first.", .options = { PROJECT } },
	{ .name = "rotate-secret", .run = client_rotate_secret, .operand = "CLIENT",
	  .usage = "client rotate-secret --project P CLIENT",
	  .help = "  Gives the client a new secret, printed this once; the old one stops working at\n"
	          "  the server's next request. CLIENT is the client's ID, or its name when unique.",
	  .options = { PROJECT } },
	{ .name = "enable", .run = client_enable, .operand = "CLIENT",
	  .usage = "client enable --project P CLIENT",
	  .help = "  Lets the client get tokens again; tokens issued before it was disabled stay\n"
	          "  invalid.", .options = { PROJECT } },
	{ .name = "disable", .run = client_disable, .operand = "CLIENT",
	  .usage = "client disable --project P CLIENT",
	  .help = "  Stops the client getting tokens, and its tokens working, at the server's next\n"
	          "  request.", .options = { PROJECT } },
	{ .name = "delete", .run = client_delete, .operand = "CLIENT",
	  .usage = "client delete --project P CLIENT",
	  .help = "  Deletes the client, its codes and tokens; prints the record it deleted.",
	  .options = { PROJECT } },
};

const struct cli_group cli_clients = {
	.name = "client", .subs = subs, .n_subs = sizeof subs / sizeof subs[0], .records = true,
};
