#ifndef EDGEAUTH_PG_BACKEND_H
#define EDGEAUTH_PG_BACKEND_H
/*
 * The PostgreSQL backend's table (store_backend.h) and the areas' parts of
 * it, each defined in its src/store/pg/pg_<area>.c. Only the PostgreSQL
 * backend's files include this: store_open_postgres sets st->be to
 * pg_backend.
 */
#include <stdbool.h>

#include "store.h"
#include "store_backend.h"

struct pg_pool;

/* A PostgreSQL purge (store_pg.h, pg_purge_run): it answers after the tick
 * that started it, so a tick reads the count of the last run that ended. */
struct store_purge_run {
	bool busy;            /* a run is in flight: the tick starts none */
	long long count;      /* the run's, as its result has it */
	int last;             /* rows the last ended run deleted; 0 after a failure */
	const char *what;     /* for the log line of a failure */
};
enum { STORE_PURGE_TOKENS, STORE_PURGE_SESSIONS, STORE_PURGE_EVENTS, STORE_PURGE__N };

/* The PostgreSQL backend's store: struct store (what callers see) first,
 * then what only this backend uses. store_open_postgres makes one; the
 * backend's functions reach it with pg_of. */
struct pg_store {
	struct store base;   /* first: a struct store * of this backend points here */
	struct pg_pool *pg;
	/* This node's name there (its host and listen address: the same after
	 * a restart, another node's differs): its outbox claims (pg_outbox.c). */
	char *pg_node;
	struct store_purge_run purges[STORE_PURGE__N];
};

/* The PostgreSQL part of st, a store of this backend. */
static inline struct pg_store *pg_of(struct store *st)
{
	return (struct pg_store *)st;
}

extern const struct store_roles_ops pg_roles_ops;
extern const struct store_resources_ops pg_resources_ops;
extern const struct store_projects_ops pg_projects_ops;
extern const struct store_keys_ops pg_keys_ops;
extern const struct store_events_ops pg_events_ops;
extern const struct store_outbox_ops pg_outbox_ops;
extern const struct store_sessions_ops pg_sessions_ops;
extern const struct store_factors_ops pg_factors_ops;
extern const struct store_forward_ops pg_forward_ops;
extern const struct store_passkeys_ops pg_passkeys_ops;
extern const struct store_access_ops pg_access_ops;
extern const struct store_clients_ops pg_clients_ops;
extern const struct store_users_ops pg_users_ops;
extern const struct store_tokens_ops pg_tokens_ops;
extern const struct store_device_ops pg_device_ops;

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
