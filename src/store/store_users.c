/*
 * Users: the front (store_users.h). Each operation is the backend's
 * (st->be->users: sqlite_users.c with sqlite_users_list.c, pg_users.c);
 * what both answer alike, and the sign-in read's memory, are here. The
 * search index's upkeep (the server's idle work) waits with
 * sync_completion.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store_backend.h"
#include "store_users.h"

static const struct record_missing user_missing = {
	E_USER_NOT_FOUND, "The user does not exist in this project.",
};
static const struct record_missing external_missing = {
	E_USER_NOT_FOUND, "No user of this project has this external user ID.",
};
const struct record_missing *const store_user_missing = &user_missing;
const struct record_missing *const store_user_external_missing = &external_missing;
const char store_user_role_missing[] = "The role does not exist in this project.";
const char store_user_email_locked[] = "Changing the email needs a recent sign-in.";
const char store_user_external_id_used[] =
	"Another user of this project has this external user ID.";
const char store_user_email_used[] = "Another user of this project has this email.";

void store_user_check(struct store *st, const char *project_id, const char *user_id,
                      const struct user_fields *f, const char *scope, struct completion done)
{
	st->be->users->check(st, project_id, user_id, f, scope, done);
}

void store_user_create(struct store *st, const struct event_origin *by, const char *project_id,
                       const struct user_fields *f, const char *scope, char **out,
                       struct completion done)
{
	st->be->users->create(st, by, project_id, f, scope, out, done);
}

void store_user_update(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *user_id, const struct user_fields *f, const char *scope,
                       char **out, struct completion done)
{
	st->be->users->update(st, by, project_id, user_id, f, scope, out, done);
}

void store_user_get(struct store *st, const char *project_id, const char *user_id, char **out,
                    struct completion done)
{
	st->be->users->get(st, project_id, user_id, out, done);
}

void store_user_delete(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *user_id, const char *scope, struct completion done)
{
	st->be->users->remove(st, by, project_id, user_id, scope, done);
}

void store_user_get_external(struct store *st, const char *project_id,
                             const char *external_user_id, bool with_permissions, char **out,
                             struct completion done)
{
	st->be->users->get_external(st, project_id, external_user_id, with_permissions, out, done);
}

void store_user_list(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done)
{
	st->be->users->list(st, project_id, q, out, done);
}

void store_user_is_active(struct store *st, const char *project_id, const char *user_id,
                          bool *active, struct completion done)
{
	st->be->users->is_active(st, project_id, user_id, active, done);
}

void store_user_scope(struct store *st, const char *user_id, char **out, struct completion done)
{
	st->be->users->scope(st, user_id, out, done);
}

int store_user_suffixes_move(struct store *st, int max_keys, struct api_error *err)
{
	struct sync_result r;
	int moved = 0;

	st->be->users->suffixes_move(st, max_keys, &moved, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : moved;
}

bool store_user_suffixes_backlog(struct store *st, long long users)
{
	struct sync_result r;
	struct api_error err;
	bool over = false;

	st->be->users->suffixes_backlog(st, users, &over, sync_completion(&r));
	return sync_wait(&r, &err) == 0 && over;
}

/* ---- what sign-in reads ---- */

void store_signin_user(struct store *st, const char *project_id, const char *email,
                       struct store_user_signin *out, struct completion done)
{
	st->be->users->signin(st, project_id, email, out, done);
}

void store_byou_user(struct store *st, const char *project_id, const char *external_user_id,
                     struct store_user_signin *out, struct completion done)
{
	st->be->users->byou(st, project_id, external_user_id, out, done);
}

void store_user_signin_release(struct store_user_signin *u)
{
	free(u->user_id);
	crypto_free_wiped(u->password_hash);
	memset(u, 0, sizeof *u);
}
