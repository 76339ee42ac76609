#ifndef EDGEAUTH_PG_BACKEND_H
#define EDGEAUTH_PG_BACKEND_H
/*
 * The PostgreSQL backend's table (store_backend.h) and the areas' parts of
 * it, each defined in its src/store/pg/pg_<area>.c. Only the PostgreSQL
 * backend's files include this: store_open_postgres sets st->be to
 * pg_backend.
 */
#include "store_backend.h"

extern const struct store_roles_ops pg_roles_ops;
extern const struct store_resources_ops pg_resources_ops;
extern const struct store_projects_ops pg_projects_ops;
extern const struct store_keys_ops pg_keys_ops;
extern const struct store_events_ops pg_events_ops;
extern const struct store_outbox_ops pg_outbox_ops;
extern const struct store_sessions_ops pg_sessions_ops;
extern const struct store_clients_ops pg_clients_ops;
extern const struct store_users_ops pg_users_ops;
extern const struct store_tokens_ops pg_tokens_ops;

extern const struct store_backend pg_backend;

/* The table's close, stamp and idle (store_pg.c). */
/* Closes the PostgreSQL side of st (store_close calls it first). */
void pg_store_close(struct store *st);
/* store_stamp (and store_read_stamp) on PostgreSQL: our commits and every
 * notification move it; unknown while the node does not listen. */
struct store_stamp pg_store_stamp(struct store *st);
/* store_idle on PostgreSQL: no query in flight or queued. */
bool pg_store_idle(const struct store *st);

#endif
