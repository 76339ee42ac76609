/*
 * Resources: the front (store_resources.h). Each operation is the
 * backend's (st->be->resources: sqlite_resources.c, pg_resources.c); what
 * both answer alike is here.
 */
#include "store_backend.h"
#include "store_resources.h"

static const struct record_missing resource_missing = {
	E_RESOURCE_NOT_FOUND, "The resource does not exist.",
};
const struct record_missing *const store_resource_missing = &resource_missing;

void store_resource_create(struct store *st, const struct event_origin *by, const char *project_id,
                           const struct resource_input *in, char **out, struct completion done)
{
	st->be->resources->create(st, by, project_id, in, out, done);
}

void store_resource_update(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *resource_id, const struct resource_input *in, char **out,
                           struct completion done)
{
	st->be->resources->update(st, by, project_id, resource_id, in, out, done);
}

void store_resource_get(struct store *st, const char *project_id, const char *resource_id,
                        char **out, struct completion done)
{
	st->be->resources->get(st, project_id, resource_id, out, done);
}

void store_resource_delete(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *resource_id, struct completion done)
{
	st->be->resources->remove(st, by, project_id, resource_id, done);
}

void store_resource_list(struct store *st, const char *project_id, const struct list_query *q,
                         struct page *out, struct completion done)
{
	st->be->resources->list(st, project_id, q, out, done);
}
