#ifndef EDGEAUTH_PG_RESOURCES_H
#define EDGEAUTH_PG_RESOURCES_H
/* Resources on PostgreSQL: store_resources.h's operations, which dispatch
 * here (store_pg.h), with the same contracts. */
#include "store_resources.h"

void pg_resource_create(struct store *st, const struct event_origin *by, const char *project_id,
                        const struct resource_input *in, char **out, struct completion done);
void pg_resource_update(struct store *st, const struct event_origin *by, const char *project_id,
                        const char *resource_id, const struct resource_input *in, char **out,
                        struct completion done);
void pg_resource_get(struct store *st, const char *project_id, const char *resource_id,
                     char **out, struct completion done);
void pg_resource_delete(struct store *st, const struct event_origin *by, const char *project_id,
                        const char *resource_id, struct completion done);
void pg_resource_list(struct store *st, const char *project_id, const struct list_query *q,
                      struct page *out, struct completion done);

#endif
