#ifndef EDGEAUTH_PG_ROLES_H
#define EDGEAUTH_PG_ROLES_H
/* Roles on PostgreSQL: store_roles.h's operations, which dispatch here
 * (store_pg.h), with the same contracts. */
#include "store_roles.h"

void pg_role_create(struct store *st, const struct event_origin *by, const char *project_id,
                    const struct role_fields *f, const char *scope, char **out,
                    struct completion done);
void pg_role_update(struct store *st, const struct event_origin *by, const char *project_id,
                    const char *role_id, const struct role_fields *f, const char *scope,
                    char **out, struct completion done);
void pg_role_get(struct store *st, const char *project_id, const char *role_id, char **out,
                 struct completion done);
void pg_role_delete(struct store *st, const struct event_origin *by, const char *project_id,
                    const char *role_id, const char *scope, struct completion done);
void pg_role_list(struct store *st, const char *project_id, const struct list_query *q,
                  struct page *out, struct completion done);

#endif
