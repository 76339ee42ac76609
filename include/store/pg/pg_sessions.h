#ifndef EDGEAUTH_PG_SESSIONS_H
#define EDGEAUTH_PG_SESSIONS_H
/* What store_sessions.h does on PostgreSQL (store_pg.h;
 * schema/postgres/017_signin.sql). Expiry is the database's clock's. */
#include "store_sessions.h"

void pg_session_start(struct store *st, const struct new_session *s, char **sid,
                      struct completion done);
void pg_session_find(struct store *st, const char *secret_hash, const char *project_id,
                     struct session_row *out, struct completion done);
void pg_session_add_client(struct store *st, const char *session_id, const char *client_id,
                           struct completion done);
void pg_session_end(struct store *st, const char *id, const char *project_id,
                    const char *user_id, const struct event *ev, bool *ended,
                    struct completion done);
/* Runs on the loop, so it does not wait for its count: the count of the
 * last run that ended (pg_purge_run); a failure is logged. */
int pg_session_purge(struct store *st, int batch, struct api_error *err);

#endif
