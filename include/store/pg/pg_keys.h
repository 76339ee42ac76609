#ifndef EDGEAUTH_PG_KEYS_H
#define EDGEAUTH_PG_KEYS_H
/* Signing keys on PostgreSQL: store_keys.h's operations, which dispatch
 * here (store_pg.h). The writes are the CLI's and the start's (blocking),
 * each one transaction holding the table's lock, so that two rotations
 * never interleave; the schedule is key_schedule.c's, as on SQLite. */
#include "store_keys.h"

void pg_keys_changed(struct store *st, int64_t known_version, int64_t now,
                     struct key_rows *out, bool *changed, struct completion done);
int pg_keys_list(struct store *st, struct key_rows *out, struct api_error *err);
int pg_keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                int64_t lifetime_ms, struct api_error *err);
int pg_key_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                  struct api_error *err);

#endif
