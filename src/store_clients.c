/* The clients area's statements and queries. */
#include "store.h"

static const char *const sql[] = { NULL };
const struct stmt_set store_clients_sql = { 0, sql, NULL };
