/*
 * edgeauth events [--project ID] [--since RFC3339] [--action A]
 * (docs/operations.md §"Audit trail"): the audit trail, oldest first, one
 * JSON object a line. It only reads: --project filters and need not name a
 * project that exists.
 */
#include <stdio.h>

#include "cli_events.h"
#include "store_events.h"
#include "util.h"

static int events_check(struct cli_call *c)
{
	const char *since = cli_arg(c, "--since");
	int64_t ms;

	if (cli_check_nonempty(c))
		return EXIT_USAGE;
	if (since && parse_timestamp(since, &ms) < 0)
		return cli_usage_error(c, "--since is an RFC 3339 time (2026-12-02T10:00:00Z)");
	return 0;
}

static void print_line(void *arg, const char *record)
{
	(void)arg;
	printf("%s\n", record);
}

static int events(struct cli_call *c)
{
	struct event_filter f = {
		.project_id = cli_arg(c, "--project"), .action = cli_arg(c, "--action"),
		.since = INT64_MIN,
	};
	struct api_error err;
	int rc;

	if (cli_arg(c, "--since"))
		parse_timestamp(cli_arg(c, "--since"), &f.since);   /* events_check took it */
	rc = store_event_list(c->st, &f, print_line, NULL, &err) < 0 ? 1 : 0;
	fflush(stdout);
	if (rc)
		fprintf(stderr, "edgeauth: %s\n", err.description);
	return rc;
}

static const struct cli_sub events_sub[] = {
	{ .run = events, .check = events_check, .store = CLI_STORE_READ,
	  .usage = "events [--project ID] [--since RFC3339] [--action A]",
	  .help = "  Prints the audit trail, oldest first, one JSON object a line; --project,\n"
	          "  --since and --action filter it.",
	  .options = { { "--project", CLI_VALUE, false }, { "--since", CLI_VALUE, false },
	               { "--action", CLI_VALUE, false } } },
};

const struct cli_group cli_events = { .name = "events", .subs = events_sub, .n_subs = 1 };
