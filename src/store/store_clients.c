/*
 * Clients: the front (store_clients.h). Each operation is the backend's
 * (st->be->clients: sqlite_clients.c, pg_clients.c); what both share is
 * here: client_not_found, the cache of client rows and the secret check.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store_backend.h"
#include "store_clients.h"
#include "util.h"

static const struct record_missing client_missing = {
	E_CLIENT_NOT_FOUND, "The client does not exist.",
};
const struct record_missing *const store_client_missing = &client_missing;

void store_client_create(struct store *st, const struct event_origin *by, const char *project_id,
                         const struct client_fields *f, const char *secret_hash,
                         const char *scope, char **record, struct completion done)
{
	st->be->clients->create(st, by, project_id, f, secret_hash, scope, record, done);
}

void store_client_update(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *client_id, const struct client_fields *f,
                         const char *scope, char **record, struct completion done)
{
	st->be->clients->update(st, by, project_id, client_id, f, scope, record, done);
}

void store_client_set_secret(struct store *st, const struct event_origin *by,
                             const char *project_id, const char *client_id,
                             const char *secret_hash, const char *scope,
                             struct completion done)
{
	st->be->clients->set_secret(st, by, project_id, client_id, secret_hash, scope, done);
}

void store_client_get(struct store *st, const char *project_id, const char *client_id,
                      char **record, struct completion done)
{
	st->be->clients->get(st, project_id, client_id, record, done);
}

void store_client_delete(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *client_id, const char *scope, struct completion done)
{
	st->be->clients->remove(st, by, project_id, client_id, scope, done);
}

void store_client_list(struct store *st, const char *project_id, const struct list_query *q,
                       struct page *out, struct completion done)
{
	st->be->clients->list(st, project_id, q, out, done);
}

void store_client_lookup(struct store *st, const char *client_id, struct client_auth *out,
                         struct completion done)
{
	st->be->clients->lookup(st, client_id, out, done);
}

void store_client_authenticate(struct store *st, const char *client_id, const char *secret,
                               struct client_auth *out, struct completion done)
{
	st->be->clients->authenticate(st, client_id, secret, out, done);
}

void store_client_scope(struct store *st, const char *client_id, struct store_stamp at,
                        char **out, struct completion done)
{
	st->be->clients->scope(st, client_id, at, out, done);
}

void store_client_redirect_registered(struct store *st, const char *client_id,
                                      const char *redirect_uri, bool *registered,
                                      struct completion done)
{
	st->be->clients->redirect_registered(st, client_id, redirect_uri, registered, done);
}

void store_client_post_logout_registered(struct store *st, const char *client_id,
                                         const char *uri, bool *registered,
                                         struct completion done)
{
	st->be->clients->post_logout_registered(st, client_id, uri, registered, done);
}

void store_client_name(struct store *st, const char *client_id, char **name,
                       struct completion done)
{
	st->be->clients->name(st, client_id, name, done);
}

/* ---- shared by both backends ---- */

int store_client_check_secret(const struct client_auth *c, const char *secret,
                              struct api_error *err)
{
	char hash[SECRET_HASH_LEN + 1];

	if (secret) {
		/* Hashed even for an unknown client, so timing does not tell which. */
		crypto_hash_secret(secret, strlen(secret), hash);
		if (!c->found || !crypto_equal(hash, c->secret_hash))
			return api_fail(err, E_INVALID_CLIENT_CREDENTIALS,
			                "The client ID or secret is wrong.");
	} else if (!c->found) {
		return api_fail(err, E_INVALID_CLIENT, "The client ID is invalid.");
	}
	return 0;
}

/* The cache of client rows, made on first use. */
static struct store_cache *client_rows(struct store *st)
{
	if (!st->client_rows)
		st->client_rows = store_cache_new(METRICS_CACHE_CLIENT, free);
	return st->client_rows;
}

bool store_client_cached(struct store *st, const char *client_id, struct store_stamp now,
                         struct client_auth *out)
{
	const struct client_auth *hit;

	if (!client_id)
		return false;
	hit = store_cache_get(client_rows(st), client_id, now);
	if (!hit)
		return false;
	*out = *hit;
	out->stamp = now;
	return true;
}

void store_client_keep(struct store *st, const char *client_id, const struct client_auth *c)
{
	struct client_auth *copy;

	if (!client_id || !c->found)
		return;
	copy = xmalloc(sizeof *copy);
	*copy = *c;
	store_cache_put(client_rows(st), client_id, c->stamp, copy);
}
