#ifndef EDGEAUTH_STORE_CONFIG_H
#define EDGEAUTH_STORE_CONFIG_H
/*
 * The store that the configuration names (docs/operations.md §"A fleet on
 * PostgreSQL"): the top of the program opens it here, so that it reaches
 * either backend through the store's front and never a backend's header.
 */
#include <stddef.h>

#include "config.h"
#include "store.h"

/* Opens the store of [store] backend: SQLite's file (store_open) or
 * PostgreSQL's url (blocking: start-up or the CLI). NULL with the reason
 * in errbuf. */
struct store *store_open_config(const struct config *cfg, char *errbuf, size_t errlen);

#endif
