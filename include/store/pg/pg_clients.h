#ifndef EDGEAUTH_PG_CLIENTS_H
#define EDGEAUTH_PG_CLIENTS_H
/* Clients on PostgreSQL: store_clients.h's operations, which dispatch here
 * (store_pg.h), with the same contracts. */
#include "store_clients.h"

void pg_client_create(struct store *st, const struct event_origin *by, const char *project_id,
                      const struct client_fields *f, const char *secret_hash, const char *scope,
                      char **record, struct completion done);
void pg_client_update(struct store *st, const struct event_origin *by, const char *project_id,
                      const char *client_id, const struct client_fields *f, const char *scope,
                      char **record, struct completion done);
void pg_client_set_secret(struct store *st, const struct event_origin *by,
                          const char *project_id, const char *client_id,
                          const char *secret_hash, const char *scope, struct completion done);
void pg_client_get(struct store *st, const char *project_id, const char *client_id,
                   char **record, struct completion done);
void pg_client_delete(struct store *st, const struct event_origin *by, const char *project_id,
                      const char *client_id, const char *scope, struct completion done);
void pg_client_list(struct store *st, const char *project_id, const struct list_query *q,
                    struct page *out, struct completion done);
void pg_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                      struct completion done);
void pg_client_authenticate(struct store *st, const char *client_id, const char *secret,
                            struct client_auth *out, struct completion done);
void pg_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                     char **out, struct completion done);
void pg_client_redirect_registered(struct store *st, const char *client_id,
                                   const char *redirect_uri, bool *registered,
                                   struct completion done);
void pg_client_post_logout_registered(struct store *st, const char *client_id, const char *uri,
                                      bool *registered, struct completion done);
void pg_client_name(struct store *st, const char *client_id, char **name,
                    struct completion done);

#endif
