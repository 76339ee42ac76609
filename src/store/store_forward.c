/*
 * Forward authentication's data: the front (store_forward.h). Each
 * operation is the backend's (st->be->forward: sqlite_forward.c,
 * pg_forward.c); the rows' memory is here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_forward.h"

void forward_app_release(struct forward_app *a)
{
	free(a->client_id);
	free(a->project_id);
	free(a->base);
	free(a->allowed_role_ids);
	memset(a, 0, sizeof *a);
}

void forward_user_release(struct forward_user *u)
{
	free(u->user_id);
	free(u->email);
	free(u->name);
	free(u->role_code);
	free(u->role_id);
	free(u->permissions);
	memset(u, 0, sizeof *u);
}

void store_forward_app(struct store *st, const char *url, struct forward_app *out,
                       struct completion done)
{
	memset(out, 0, sizeof *out);
	st->be->forward->app(st, url, out, done);
}

void store_forward_cookie_insert(struct store *st, const char *token_hash,
                                 const char *session_id, const char *client_id, int64_t now,
                                 struct completion done)
{
	st->be->forward->cookie_insert(st, token_hash, session_id, client_id, now, done);
}

void store_forward_check(struct store *st, const char *url, const char *token_hash,
                         int64_t now, struct forward_lookup *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	st->be->forward->check(st, url, token_hash, now, out, done);
}
