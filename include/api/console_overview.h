#ifndef EDGEAUTH_CONSOLE_OVERVIEW_H
#define EDGEAUTH_CONSOLE_OVERVIEW_H
/* The console's overview page (docs/console.md): how many users, clients,
 * roles and resources the project has (each shown to whoever may read
 * it), and the signing keys with when each signs and until when it is
 * published. */
#include "flow.h"

extern flow_step *const console_overview_steps[];

#endif
