/*
 * The commands beside `serve` (docs/operations.md §"The program"; docs/api.md §"Read one and delete"): each opens the store a
 * running server uses (WAL, busy timeout), does one thing, prints JSON or
 * a message, and exits. The table at the end names them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cert.h"
#include "cli.h"
#include "cli_clients.h"
#include "cli_roles.h"
#include "cli_users.h"
#include "crypto.h"
#include "keyring.h"
#include "log.h"
#include "key_schedule.h"
#include "secret_file.h"
#include "store.h"
#include "store_backup.h"
#include "store_events.h"
#include "store_keys.h"
#include "store_projects.h"
#include "util.h"

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
	"       edgeauth help COMMAND                           explain one command\n"
	"       edgeauth check-config -c FILE\n"
	"       edgeauth --version | [-c FILE] --help\n"
	"FILE defaults to $EDGEAUTH_CONFIG, else the path compiled in (--help shows the one in force).\n";

int cli_usage(void)
{
	fputs(cli_usage_text, stderr);
	return EXIT_USAGE;
}

/* Prints one JSON value on stdout, compact, and frees it. */
static void print_json(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT);

	printf("%s\n", text);
	fflush(stdout);
	free(text);
	json_decref(v);
}

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

static int cmd_project(const struct config *cfg, int argc, char **argv)
{
	struct store *st;
	struct api_error err;
	int rc = 1;

	if (argc < 1)
		return cli_usage();
	st = cli_command_store(cfg);
	if (!st)
		return 1;
	if (!strcmp(argv[0], "create")) {
		struct new_project np;
		if (argc != 3 || strcmp(argv[1], "--name") != 0 || !*argv[2]) {
			rc = cli_usage();
		} else if (store_project_create(st, argv[2], &np, &err) == 0) {
			cli_print_new_project(&np);
			store_new_project_release(&np);
			rc = 0;
		}
	} else if (!strcmp(argv[0], "list") && argc == 1) {
		json_t *list = store_project_list(st, &err);
		if (list) {
			print_json(list);
			rc = 0;
		}
	} else if ((!strcmp(argv[0], "activate") || !strcmp(argv[0], "deactivate")) && argc == 2) {
		int changed = store_project_set_active(st, argv[1], argv[0][0] == 'a', &err);
		if (changed == 0)
			fprintf(stderr, "edgeauth: no project %s\n", argv[1]);
		rc = changed == 1 ? 0 : 1;
	} else if (!strcmp(argv[0], "admin-client") && argc == 2) {
		/* docs/api.md §"Read one and delete": recovers a project whose admin client was deleted */
		struct new_project np;
		int made = store_project_admin_client(st, argv[1], &np, &err);
		if (made == 0)
			fprintf(stderr, "edgeauth: no project %s\n", argv[1]);
		if (made == 1) {
			cli_print_new_project(&np);
			store_new_project_release(&np);
		}
		rc = made == 1 ? 0 : 1;
	} else {
		rc = cli_usage();
	}
	store_close(st);
	return rc;
}

/* ---- key ---- */

/* A time of the key list: RFC 3339, or null for none. */
static json_t *key_time(int64_t ms, bool none)
{
	char buf[TIMESTAMP_LEN];

	if (none)
		return json_null();
	format_timestamp(ms, buf);
	return json_string(buf);
}

/* The keys as JSON: kid, alg, state and times; never the private key. */
static json_t *key_list_json(const struct key_row *rows, size_t n)
{
	json_t *list = json_array();
	int64_t now = now_ms();

	for (size_t i = 0; i < n; i++) {
		const struct key_row *k = &rows[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
			"kid", k->kid, "alg", jwt_alg_name(k->alg),
			"state", key_state_name(key_schedule_state(rows, n, i, now)),
			"created", key_time(k->created_at, false),
			"activates_at", key_time(k->activates_at, false),
			"published_until", key_time(k->publish_until, k->publish_until == KEY_NO_BOUND),
			"retired_at", key_time(k->retired_at, k->retired_at == 0)));
	}
	return list;
}

static int key_list(struct store *st)
{
	struct key_rows all;
	struct api_error err;

	if (store_keys_list(st, &all, &err) < 0)
		return 1;
	print_json(key_list_json(all.rows, all.count));
	store_keys_rows_release(&all);
	return 0;
}

/* key rotate: a new key of each of algs[0..n). */
static int key_rotate(const struct config *cfg, struct store *st, const enum jwt_alg *algs,
                      size_t n)
{
	struct key_row added[JWT_ALG_COUNT];
	struct keyring *ring;
	struct api_error err;
	char errbuf[512];
	int rc = 1;

	/* the start's checks: the KEK opens the stored keys, a new store is filled */
	ring = keyring_open(cfg, st, errbuf, sizeof errbuf);
	if (!ring) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	if (keyring_rotate(ring, st, algs, n, added, &err) == 0) {
		print_json(key_list_json(added, n));
		rc = 0;
	} else {
		fprintf(stderr, "edgeauth: %s\n", err.description);
	}
	keyring_free(ring);
	return rc;
}

static int key_retire(const struct config *cfg, struct store *st, const char *kid)
{
	struct api_error err;
	int r = store_key_retire(st, kid, now_ms(), keyring_lifetime_ms(cfg), &err);

	if (r == 0)
		fprintf(stderr, "edgeauth: no key %s\n", kid);
	else if (r < 0)
		fprintf(stderr, "edgeauth: %s\n", err.description);
	return r == 1 ? 0 : 1;
}

/* The key commands (docs/tokens.md §"Signing keys") work beside a running server, which
 * sees their changes at its next request. */
static int cmd_key(const struct config *cfg, int argc, char **argv)
{
	struct store *st;
	int rc;

	enum jwt_alg algs[JWT_ALG_COUNT] = { JWT_ES256, JWT_RS256 };
	size_t n_algs = JWT_ALG_COUNT;   /* rotate: both without --alg */
	bool list = argc == 1 && !strcmp(argv[0], "list");
	bool rotate = argc == 1 && !strcmp(argv[0], "rotate");
	bool retire = argc == 2 && !strcmp(argv[0], "retire");

	if (argc == 3 && !strcmp(argv[0], "rotate") && !strcmp(argv[1], "--alg") &&
	    jwt_alg_parse(argv[2], &algs[0]) == 0) {
		rotate = true;
		n_algs = 1;
	}
	if (!list && !rotate && !retire)
		return cli_usage();
	st = cli_command_store(cfg);
	if (!st)
		return 1;
	if (list)
		rc = key_list(st);
	else if (rotate)
		rc = key_rotate(cfg, st, algs, n_algs);
	else
		rc = key_retire(cfg, st, argv[1]);
	store_close(st);
	return rc;
}

/* ---- cert ---- */

/* cert self-signed --host NAME [--cert FILE] [--key FILE]: the files
 * default to the config's tls_cert and tls_key, else var/ (docs/operations.md §"TLS"). */
static int cmd_cert(const struct config *cfg, int argc, char **argv)
{
	const char *host = NULL;
	const char *cert = cfg->tls_cert ? cfg->tls_cert : "var/tls-cert.pem";
	const char *key = cfg->tls_key ? cfg->tls_key : "var/tls-key.pem";
	char fingerprint[CERT_FINGERPRINT_LEN], errbuf[512];

	if (argc < 1 || strcmp(argv[0], "self-signed") != 0)
		return cli_usage();
	for (int i = 1; i < argc; i += 2) {
		const char **opt = !strcmp(argv[i], "--host") ? &host :
		                   !strcmp(argv[i], "--cert") ? &cert :
		                   !strcmp(argv[i], "--key") ? &key : NULL;
		if (!opt || i + 1 >= argc || !*argv[i + 1])
			return cli_usage();
		*opt = argv[i + 1];
	}
	if (!host)
		return cli_usage();
	if (cert_self_signed_write(host, cert, key, fingerprint, errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	printf("certificate %s\nkey %s\nSHA-256 fingerprint %s\n", cert, key, fingerprint);
	return 0;
}

/* ---- backup, restore, invalidate-all (docs/operations.md §"Backup and restore") ---- */

/* backup and restore copy SQLite's file: on PostgreSQL the database's own
 * tools do (and keep its point-in-time recovery). 1, said once. */
static int postgres_refused(const char *cmd)
{
	fprintf(stderr, "edgeauth: %s copies the SQLite store; on PostgreSQL use its own tools"
	        " (pg_dump, pg_basebackup: docs/operations.md \"Running a fleet\")\n", cmd);
	return 1;
}

static int cmd_backup(const struct config *cfg, int argc, char **argv)
{
	char errbuf[512];

	if (argc != 1)
		return cli_usage();
	if (cfg->store_postgres)
		return postgres_refused("backup");
	if (store_backup(cfg->store_path, argv[0], errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: backup failed: %s\n", errbuf);
		return 1;
	}
	printf("edgeauth: %s written and checked (PRAGMA integrity_check ok); back up %s apart\n",
	       argv[0], cfg->key_encryption_key_file);
	return 0;
}

/* When everything up to at_ms stopped working, said once. */
static void print_invalidated(long long at_ms)
{
	char when[TIMESTAMP_LEN];

	format_timestamp(at_ms, when);
	printf("edgeauth: every access token, refresh token, code and session issued up to %s "
	       "is invalid\n", when);
}

static int cmd_restore(const struct config *cfg, int argc, char **argv)
{
	char errbuf[512];
	long long at;

	if (argc != 1)
		return cli_usage();
	if (cfg->store_postgres)
		return postgres_refused("restore");
	if (store_restore(cfg->store_path, cfg->synchronous_full, argv[0], &at, errbuf,
	                  sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: restore refused: %s\n", errbuf);
		return 1;
	}
	printf("edgeauth: %s restored into %s\n", argv[0], cfg->store_path);
	print_invalidated(at);
	return 0;
}

/* Beside a running server too: it sees the change at its next request. */
static int cmd_invalidate_all(const struct config *cfg, int argc, char **argv)
{
	struct api_error err;
	struct store *st;
	int64_t now = now_ms();
	int rc;

	(void)argv;
	if (argc != 0)
		return cli_usage();
	st = cli_command_store(cfg);
	if (!st)
		return 1;
	rc = store_invalidate_all(st, now, &err);
	store_close(st);
	if (rc < 0) {
		fprintf(stderr, "edgeauth: %s\n", err.description);
		return 1;
	}
	print_invalidated(now);
	return 0;
}

/* ---- events ---- */

static void print_line(void *arg, const char *record)
{
	(void)arg;
	printf("%s\n", record);
}

/* edgeauth events [--project ID] [--since RFC3339] [--action A]: the audit
 * trail, oldest first, one JSON object a line. */
static int cmd_events(const struct config *cfg, int argc, char **argv)
{
	struct event_filter f = { .since = INT64_MIN };
	struct api_error err;
	struct store *st;
	int rc;

	for (int i = 0; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v || !*v)
			return cli_usage();
		if (!strcmp(argv[i], "--project") && !f.project_id)
			f.project_id = v;
		else if (!strcmp(argv[i], "--action") && !f.action)
			f.action = v;
		else if (!strcmp(argv[i], "--since") && f.since == INT64_MIN &&
		         parse_timestamp(v, &f.since) == 0)
			continue;
		else
			return cli_usage();
	}
	st = cli_open_store(cfg);
	if (!st)
		return 1;
	rc = store_event_list(st, &f, print_line, NULL, &err) < 0 ? 1 : 0;
	fflush(stdout);
	store_close(st);
	return rc;
}

/* docs/operations.md §"The program": main has loaded and checked the file (any error there
 * exits 2); this shows what took effect. */
static int cmd_check_config(const struct config *cfg, int argc, char **argv)
{
	char *text;

	(void)argv;
	if (argc != 0)
		return cli_usage();
	text = config_dump(cfg);
	fputs(text, stdout);
	free(text);
	return 0;
}

/* ---- user, role, client (docs/commands.md) ---- */

static int cmd_user(const struct config *cfg, int argc, char **argv)
{
	return cli_group_run(&cli_users, cfg, argc, argv);
}

static int cmd_role(const struct config *cfg, int argc, char **argv)
{
	return cli_group_run(&cli_roles, cfg, argc, argv);
}

static int cmd_client(const struct config *cfg, int argc, char **argv)
{
	return cli_group_run(&cli_clients, cfg, argc, argv);
}

static const struct cli_group *const groups[] = { &cli_users, &cli_roles, &cli_clients };

/* The usage lines of the older commands that name command: those whose
 * command word it is, and the lines that continue them. */
static bool print_usage_of(const char *command)
{
	const char *line = cli_usage_text, *end;
	bool mine = false, any = false;

	for (; *line; line = end + 1) {
		const char *word = strstr(line, "] ");
		end = strchr(line, '\n');
		if (word && word < end && strstr(line, "edgeauth"))
			mine = !strncmp(word + 2, command, strlen(command)) &&
			       (word[2 + strlen(command)] == ' ' || word + 2 + strlen(command) == end);
		if (mine) {
			printf("%.*s\n", (int)(end - line), line);
			any = true;
		}
	}
	return any;
}

int cli_help(int argc, char **argv)
{
	if (argc == 0) {
		fputs(cli_usage_text, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (!strcmp(groups[i]->name, argv[0]))
			return cli_group_help(groups[i], argc - 1, argv + 1);
	if (argc == 1 && print_usage_of(argv[0]))
		return 0;
	fprintf(stderr, "edgeauth: help: no command %s\n", argv[argc - 1]);
	return cli_usage();
}

static const struct cli_command commands[] = {
	{ .name = "user", .run = cmd_user },
	{ .name = "role", .run = cmd_role },
	{ .name = "client", .run = cmd_client },
	{ .name = "project", .run = cmd_project },
	{ .name = "key", .run = cmd_key },
	{ .name = "cert", .run = cmd_cert },
	{ .name = "backup", .run = cmd_backup },
	{ .name = "restore", .run = cmd_restore },
	{ .name = "invalidate-all", .run = cmd_invalidate_all },
	{ .name = "check-config", .run = cmd_check_config },
	{ .name = "events", .run = cmd_events },
};

const struct cli_command *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}
