/*
 * The store of the commands (cli_store.h): opened as the server opens it,
 * so that a command works beside a running server, which sees its writes
 * at its next request (docs/operations.md §"The program").
 */
#include "audit_file.h"
#include "cli_store.h"
#include "log.h"
#include "store_config.h"
#include "store_events.h"

/* The store of [store] backend (docs/operations.md §"A fleet on PostgreSQL"). */
struct store *cli_open_store(const struct config *cfg)
{
	char errbuf[512];
	struct store *st = store_open_config(cfg, errbuf, sizeof errbuf);

	if (!st)
		log_error("%s", errbuf);
	return st;
}

/* The [audit] file of the commands' events (NULL: none). */
static struct audit_file *cli_audit;

struct store *cli_command_store(const struct config *cfg)
{
	struct store *st = cli_open_store(cfg);

	if (!st)
		return NULL;
	store_events_origin(st, &event_origin_cli);
	if (cfg->audit_file && !cli_audit)
		cli_audit = audit_file_open(cfg->audit_file);
	if (cli_audit)
		store_events_sink(st, audit_file_write, cli_audit);
	return st;
}

void cli_release(void)
{
	audit_file_free(cli_audit);
	cli_audit = NULL;
}
