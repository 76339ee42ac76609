#ifndef EDGEAUTH_PG_PROJECTS_H
#define EDGEAUTH_PG_PROJECTS_H
/* Projects on PostgreSQL: store_projects.h's operations, which dispatch
 * here (store_pg.h). The CLI's and the start's are blocking. */
#include "store_projects.h"

int pg_project_create(struct store *st, const char *name, struct new_project *out,
                      struct api_error *err);
int pg_project_admin_client(struct store *st, const char *project_id, struct new_project *out,
                            struct api_error *err);
void pg_project_get(struct store *st, const char *id, struct project_state *out,
                    struct completion done);
json_t *pg_project_list(struct store *st, struct api_error *err);
long pg_project_count(struct store *st, struct api_error *err);
int pg_project_set_active(struct store *st, const char *id, bool active, struct api_error *err);
/* store_invalidate_all: the time is the database's. */
int pg_invalidate_all(struct store *st, struct api_error *err);

#endif
