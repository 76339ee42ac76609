/*
 * Projects: the front (store_projects.h). Each operation is the backend's
 * (st->be->projects: sqlite_projects.c, pg_projects.c); the admin client's
 * shape and credentials, and the release of a failed create's, are here,
 * once for both. The CLI's operations wait with sync_completion: they
 * complete before they return.
 */
#include <stdlib.h>
#include <string.h>

#include "store_backend.h"
#include "store_projects.h"

const struct client_fields store_admin_client = {
	.name = "admin", .description = "The project's admin client", .redirect_uris = "[]",
	.token_endpoint_auth_method = "client_secret_basic",
};

void store_admin_credentials(struct new_project *out, char hash[SECRET_HASH_LEN + 1])
{
	out->client_id = crypto_new_id();
	out->client_secret = crypto_new_secret();
	crypto_hash_secret(out->client_secret, strlen(out->client_secret), hash);
}

void store_new_project_release(struct new_project *np)
{
	free(np->project_id);
	free(np->client_id);
	crypto_free_wiped(np->client_secret);
	memset(np, 0, sizeof *np);
}

int store_project_create(struct store *st, const char *name, struct new_project *out,
                         struct api_error *err)
{
	struct sync_result r;

	memset(out, 0, sizeof *out);
	st->be->projects->create(st, name, out, sync_completion(&r));
	if (sync_wait(&r, err) < 0) {
		store_new_project_release(out);
		return -1;
	}
	return 0;
}

int store_project_admin_client(struct store *st, const char *project_id,
                               struct new_project *out, struct api_error *err)
{
	struct sync_result r;
	bool made = false;

	memset(out, 0, sizeof *out);
	st->be->projects->admin_client(st, project_id, out, &made, sync_completion(&r));
	if (sync_wait(&r, err) < 0 || !made) {
		store_new_project_release(out);
		return r.failed || !r.done ? -1 : 0;
	}
	return 1;
}

void store_project_get(struct store *st, const char *id, struct project_state *out,
                       struct completion done)
{
	st->be->projects->get(st, id, out, done);
}

json_t *store_project_list(struct store *st, struct api_error *err)
{
	struct sync_result r;
	json_t *list = NULL;

	st->be->projects->list(st, &list, sync_completion(&r));
	if (sync_wait(&r, err) < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

long store_project_count(struct store *st, struct api_error *err)
{
	struct sync_result r;
	long long n = -1;

	st->be->projects->count(st, &n, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : (long)n;
}

int store_project_set_active(struct store *st, const char *id, bool active, struct api_error *err)
{
	struct sync_result r;
	bool changed = false;

	st->be->projects->set_active(st, id, active, &changed, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : changed;
}

int store_invalidate_all(struct store *st, int64_t now, struct api_error *err)
{
	struct sync_result r;

	st->be->projects->invalidate_all(st, now, sync_completion(&r));
	return sync_wait(&r, err);
}
