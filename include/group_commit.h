#ifndef EDGEAUTH_GROUP_COMMIT_H
#define EDGEAUTH_GROUP_COMMIT_H
/*
 * Group commit of the answers: while the store's batch is open (or its
 * sync runs), the answers that report it wait, and go out once it is
 * durable; if the commit fails, those of the requests that wrote in it
 * become system_error. Loop thread only.
 */
#include "server.h"

/* Turns batches on in srv's store and holds the transport's answers (after
 * http_start, before the loop runs). */
void group_commit_start(struct server *srv);
/* Commits the store's open batch and sends the answers that waited for it
 * (normally run by the loop, once per iteration that wrote). */
void group_commit_run(struct server *srv);
/* The last commit, its answers, and the end of the sync thread (before
 * http_free). */
void group_commit_free(struct server *srv);

#endif
