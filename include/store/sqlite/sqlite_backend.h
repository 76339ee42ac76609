#ifndef EDGEAUTH_SQLITE_BACKEND_H
#define EDGEAUTH_SQLITE_BACKEND_H
/*
 * The SQLite backend's table (store_backend.h) and the areas' parts of it,
 * each defined in its src/store/sqlite/sqlite_<area>.c. Only the store's
 * own files include this: store_open sets st->be to sqlite_backend.
 */
#include <stdint.h>

#include "store_backend.h"

struct api_error;

extern const struct store_roles_ops sqlite_roles_ops;
extern const struct store_resources_ops sqlite_resources_ops;
extern const struct store_projects_ops sqlite_projects_ops;
extern const struct store_keys_ops sqlite_keys_ops;
extern const struct store_events_ops sqlite_events_ops;
extern const struct store_outbox_ops sqlite_outbox_ops;
extern const struct store_sessions_ops sqlite_sessions_ops;
extern const struct store_factors_ops sqlite_factors_ops;
extern const struct store_forward_ops sqlite_forward_ops;
extern const struct store_passkeys_ops sqlite_passkeys_ops;
extern const struct store_access_ops sqlite_access_ops;
extern const struct store_clients_ops sqlite_clients_ops;
extern const struct store_users_ops sqlite_users_ops;
extern const struct store_tokens_ops sqlite_tokens_ops;
extern const struct store_device_ops sqlite_device_ops;

extern const struct store_backend sqlite_backend;

/* The table's close, stamp and read_stamp (sqlite_store.c, sqlite_tx.c). */
void sqlite_store_close(struct store *st);
struct store_stamp sqlite_store_stamp(struct store *st);
struct store_stamp sqlite_store_read_stamp(struct store *st);

/* ---- what the SQLite areas use of each other ---- */

/* Inserts the four default resources of a new project (docs/api.md "Endpoints"),
 * each with its create, update and read permissions, created at now,
 * inside the caller's transaction. 0, or -1 with system_error. */
int store_resource_insert_defaults(struct store *st, const char *project_id, int64_t now,
                                   struct api_error *err);

#endif
