#ifndef EDGEAUTH_PG_OUTBOX_H
#define EDGEAUTH_PG_OUTBOX_H
/* What store_outbox.h does on PostgreSQL (store_pg.h). */
#include "store_outbox.h"

void pg_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                    struct completion done);
void pg_outbox_delete(struct store *st, const char *const *ids, size_t n,
                      struct completion done);

#endif
