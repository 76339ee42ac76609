/*
 * Access rules' reads: the front (store_access.h). Each operation is the
 * backend's (st->be->access: sqlite_access.c, pg_access.c); the facts'
 * memory is here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_access.h"
#include "store_backend.h"

void store_access_facts_release(struct store_access_facts *f)
{
	free(f->allowed_role_ids);
	free(f->role_id);
	free(f->consented);
	free(f->permissions);
	memset(f, 0, sizeof *f);
}

void store_access_facts(struct store *st, const char *client_id, const char *user_id,
                        struct store_access_facts *out, struct completion done)
{
	st->be->access->facts(st, client_id, user_id, out, done);
}

void store_consent_grant(struct store *st, const char *user_id, const char *client_id,
                         const char *scopes, const struct event *ev, struct completion done)
{
	st->be->access->consent_grant(st, user_id, client_id, scopes, ev, done);
}

void store_consent_list(struct store *st, const char *user_id, char **json,
                        struct completion done)
{
	st->be->access->consent_list(st, user_id, json, done);
}

void store_consent_revoke(struct store *st, const char *user_id, const char *client_id,
                          const struct event *ev, bool *revoked, struct completion done)
{
	st->be->access->consent_revoke(st, user_id, client_id, ev, revoked, done);
}
