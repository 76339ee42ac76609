/* The tokens area's statements and queries. */
#include "store.h"

static const char *const sql[] = { NULL };
const struct stmt_set store_tokens_sql = { 0, sql, NULL };
