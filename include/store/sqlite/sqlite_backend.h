#ifndef EDGEAUTH_SQLITE_BACKEND_H
#define EDGEAUTH_SQLITE_BACKEND_H
/*
 * The SQLite backend's table (store_backend.h) and the areas' parts of it,
 * each defined in its src/store/sqlite/sqlite_<area>.c. Only the store's
 * own files include this: store_open sets st->be to sqlite_backend.
 */
#include "store_backend.h"

extern const struct store_roles_ops sqlite_roles_ops;

extern const struct store_backend sqlite_backend;

#endif
