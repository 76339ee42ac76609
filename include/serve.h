#ifndef EDGEAUTH_SERVE_H
#define EDGEAUTH_SERVE_H
/*
 * `edgeauth serve`: opens the store, starts the listeners and runs the loop
 * until SIGTERM or SIGINT, then stops cleanly (docs/operations.md "Operating").
 */
#include "config.h"

/* The process's exit code: 0 after a clean stop. cfg is read again from
 * its file on SIGHUP (config_reload), and so changes while the server runs. */
int serve_run(struct config *cfg);

#endif
