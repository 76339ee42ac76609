#ifndef EDGEAUTH_SERVE_H
#define EDGEAUTH_SERVE_H
/*
 * `edgeauth serve`: opens the store, starts the listeners and runs the loop
 * until SIGTERM or SIGINT, then stops cleanly (README "Operating edgeauth").
 */
#include "config.h"

/* The process's exit code: 0 after a clean stop. */
int serve_run(const struct config *cfg);

#endif
