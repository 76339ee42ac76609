/*
 * Roles: the front (store_roles.h). Each operation is the backend's
 * (st->be->roles: sqlite_roles.c, pg_roles.c); what both answer alike is
 * here.
 */
#include "store_backend.h"
#include "store_roles.h"

static const struct record_missing role_missing = {
	E_ROLE_NOT_FOUND, "The role does not exist.",
};
const struct record_missing *const store_role_missing = &role_missing;

void store_role_create(struct store *st, const struct event_origin *by, const char *project_id,
                       const struct role_fields *f, const char *scope, char **out,
                       struct completion done)
{
	st->be->roles->create(st, by, project_id, f, scope, out, done);
}

void store_role_update(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *role_id, const struct role_fields *f, const char *scope,
                       char **out, struct completion done)
{
	st->be->roles->update(st, by, project_id, role_id, f, scope, out, done);
}

void store_role_get(struct store *st, const char *project_id, const char *role_id, char **out,
                    struct completion done)
{
	st->be->roles->get(st, project_id, role_id, out, done);
}

void store_role_delete(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *role_id, const char *scope, struct completion done)
{
	st->be->roles->remove(st, by, project_id, role_id, scope, done);
}

void store_role_list(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done)
{
	st->be->roles->list(st, project_id, q, out, done);
}
