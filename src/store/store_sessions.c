/*
 * Sessions: the front (store_sessions.h). Each operation is the backend's
 * (st->be->sessions: sqlite_sessions.c, pg_sessions.c); the row's memory
 * is here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_sessions.h"
#include "timestamp.h"

void store_session_start(struct store *st, const struct new_session *s, char **sid,
                         struct completion done)
{
	st->be->sessions->start(st, s, sid, done);
}

void store_session_find(struct store *st, const char *secret_hash, const char *project_id,
                        int64_t now, struct session_row *out, struct completion done)
{
	st->be->sessions->find(st, secret_hash, project_id, now, out, done);
}

void store_session_add_client(struct store *st, const char *session_id, const char *client_id,
                              struct completion done)
{
	st->be->sessions->add_client(st, session_id, client_id, done);
}

void store_session_end(struct store *st, const char *id, const char *project_id,
                       const char *user_id, const struct event *ev, bool *ended,
                       struct completion done)
{
	st->be->sessions->end(st, id, project_id, user_id, ev, ended, done);
}

void store_session_list_user(struct store *st, const char *project_id, const char *user_id,
                             int64_t now, struct session_list *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	st->be->sessions->list_user(st, project_id, user_id, now, out, done);
}

void session_list_release(struct session_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].id);
		free(l->items[i].amr);
	}
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* On PostgreSQL the purge completes at once, with the count of its last
 * run that ended (pg_purge_run). */
void store_session_list(struct store *st, const char *project_id, const char *user_id,
                        const struct list_query *q, struct page *out, struct completion done)
{
	st->be->sessions->list(st, project_id, user_id, now_ms(), q, out, done);
}

int store_session_purge(struct store *st, int batch, int64_t now, struct api_error *err)
{
	struct sync_result r;
	int deleted = -1;

	st->be->sessions->purge(st, batch, now, &deleted, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : deleted;
}

void session_row_release(struct session_row *r)
{
	free(r->id);
	free(r->user_id);
	memset(r, 0, sizeof *r);
}
