#ifndef EDGEAUTH_PG_USERS_H
#define EDGEAUTH_PG_USERS_H
/* Users on PostgreSQL: store_users.h's operations, which dispatch here
 * (store_pg.h), with the same contracts. */
#include "store_users.h"

void pg_user_check(struct store *st, const char *project_id, const char *user_id,
                   const struct user_fields *f, const char *scope, struct completion done);
void pg_user_create(struct store *st, const struct event_origin *by, const char *project_id,
                    const struct user_fields *f, const char *scope, char **out,
                    struct completion done);
void pg_user_update(struct store *st, const struct event_origin *by, const char *project_id,
                    const char *user_id, const struct user_fields *f, const char *scope,
                    char **out, struct completion done);
void pg_user_delete(struct store *st, const struct event_origin *by, const char *project_id,
                    const char *user_id, const char *scope, struct completion done);
void pg_user_get(struct store *st, const char *project_id, const char *user_id, char **out,
                 struct completion done);
void pg_user_get_external(struct store *st, const char *project_id,
                          const char *external_user_id, bool with_permissions, char **out,
                          struct completion done);
void pg_user_list(struct store *st, const char *project_id, const struct list_query *q,
                  struct page *out, struct completion done);
void pg_user_is_active(struct store *st, const char *project_id, const char *user_id,
                       bool *active, struct completion done);
void pg_user_scope(struct store *st, const char *user_id, char **out, struct completion done);
void pg_signin_user(struct store *st, const char *project_id, const char *email,
                    struct store_user_signin *out, struct completion done);
void pg_byou_user(struct store *st, const char *project_id, const char *external_user_id,
                  struct store_user_signin *out, struct completion done);

#endif
