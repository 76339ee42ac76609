/*
 * edgeauth backup FILE | restore FILE | invalidate-all (docs/operations.md
 * §"Backup and restore"). backup and restore copy SQLite's file: on
 * PostgreSQL the database's own tools do (and keep its point-in-time
 * recovery), so they refuse there.
 */
#include <stdio.h>

#include "cli_backup.h"
#include "store_backup.h"
#include "store_projects.h"
#include "util.h"

/* 1, said once. */
static int postgres_refused(const char *cmd)
{
	fprintf(stderr, "edgeauth: %s copies the SQLite store; on PostgreSQL use its own tools"
	        " (pg_dump, pg_basebackup: docs/operations.md \"Running a fleet\")\n", cmd);
	return 1;
}

static int backup(struct cli_call *c)
{
	char errbuf[512];

	if (c->cfg->store_postgres)
		return postgres_refused("backup");
	if (store_backup(c->cfg->store_path, c->operand, errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: backup failed: %s\n", errbuf);
		return 1;
	}
	printf("edgeauth: %s written and checked (PRAGMA integrity_check ok); back up %s apart\n",
	       c->operand, c->cfg->key_encryption_key_file);
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

static int restore(struct cli_call *c)
{
	char errbuf[512];
	long long at;

	if (c->cfg->store_postgres)
		return postgres_refused("restore");
	if (store_restore(c->cfg->store_path, c->cfg->synchronous_full, c->operand, &at, errbuf,
	                  sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: restore refused: %s\n", errbuf);
		return 1;
	}
	printf("edgeauth: %s restored into %s\n", c->operand, c->cfg->store_path);
	print_invalidated(at);
	return 0;
}

/* Beside a running server too: it sees the change at its next request. */
static int invalidate_all(struct cli_call *c)
{
	struct api_error err;
	int64_t now = now_ms();

	if (store_invalidate_all(c->st, now, &err) < 0) {
		fprintf(stderr, "edgeauth: %s\n", err.description);
		return 1;
	}
	print_invalidated(now);
	return 0;
}

static const struct cli_sub backup_sub[] = {
	{ .run = backup, .operand = "FILE", .store = CLI_STORE_NONE, .usage = "backup FILE",
	  .help = "  Writes a consistent copy of the live SQLite store into a new FILE and checks it.\n"
	          "  Back up the key-encryption key file apart. On PostgreSQL: pg_dump." },
};
static const struct cli_sub restore_sub[] = {
	{ .run = restore, .operand = "FILE", .store = CLI_STORE_NONE, .usage = "restore FILE",
	  .help = "  Puts a backup back (no server running on the store); every token, code and\n"
	          "  session issued until then stops working." },
};
static const struct cli_sub invalidate_all_sub[] = {
	{ .run = invalidate_all, .usage = "invalidate-all",
	  .help = "  Ends every token, code and session issued until now, at the server's next\n"
	          "  request." },
};

const struct cli_group cli_backup = { .name = "backup", .subs = backup_sub, .n_subs = 1 };
const struct cli_group cli_restore = { .name = "restore", .subs = restore_sub, .n_subs = 1 };
const struct cli_group cli_invalidate_all = {
	.name = "invalidate-all", .subs = invalidate_all_sub, .n_subs = 1,
};
