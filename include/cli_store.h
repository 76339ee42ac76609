#ifndef EDGEAUTH_CLI_STORE_H
#define EDGEAUTH_CLI_STORE_H
/*
 * The store the commands open (docs/commands.md): the one of [store]
 * backend, beside a running server (SQLite's WAL and busy timeout, or a
 * PostgreSQL connection), whose writes are events of actor "cli".
 */
#include "config.h"
#include "store.h"

/* Opens the configured store; NULL with the reason on stderr. */
struct store *cli_open_store(const struct config *cfg);
/* The same for a command that may write: its writes record their events
 * with actor "cli" (the project and key writes too, store_events_origin),
 * which also go to the [audit] file when one is configured. */
struct store *cli_command_store(const struct config *cfg);
/* Frees what the commands kept for the process (the [audit] file). */
void cli_release(void);

#endif
