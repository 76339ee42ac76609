#ifndef EDGEAUTH_STORE_SESSIONS_H
#define EDGEAUTH_STORE_SESSIONS_H
/*
 * Browser sessions (schema/008: sessions, session_clients). A session is
 * found by the hash of its cookie value, never by the value. Ending one is
 * setting ended_at: the schema's triggers then revoke the sign-ins made
 * through it and queue its back-channel logouts, whoever ends it. Expiry
 * ends nothing: an expired session is no longer found, and is purged.
 * Times: ms.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "listing.h"
#include "store.h"
#include "store_events.h"

/* A live session. Strings owned; session_row_release frees. */
struct session_row {
	bool found;
	char *id;            /* the public id, the ID token's sid */
	char *user_id;
	int64_t auth_time;   /* the latest password check */
	int64_t expires_at;
	/* the user's role requires a second factor and the session was
	 * signed in with the password alone, amr "pwd" (docs/signin.md
	 * §"Second factors") */
	bool second_factor_missing;
};
void session_row_release(struct session_row *r);

/* A session to start (store_session_start). Strings borrowed. */
struct new_session {
	const char *id;               /* a new public id, for a new session */
	const char *secret_hash;      /* of the new cookie value */
	const char *old_secret_hash;  /* of the cookie the browser sent; NULL: none */
	const char *project_id;
	const char *user_id;
	const char *client_id;        /* the sign-in's: recorded in the session; NULL: none (the console) */
	int64_t now;                  /* the password check: auth_time */
	int64_t expires_at;
	const struct event *event;    /* the sign-in's (store_events.h), in the start's transaction */
	const char *amr;              /* RFC 8176, space-separated: "pwd", "pwd otp mfa" */
};
/* In one transaction: when old_secret_hash names a live session of the
 * project, that session goes on under secret_hash with auth_time now and
 * the new expiry if it is user_id's, and ends (ended_at now) if it is
 * another user's; unless it went on, a new session s->id is made; and
 * client_id is recorded in it (store_session_add_client). *sid: the id of
 * the session now behind secret_hash (caller frees). A user deleted or
 * deactivated since the caller looked starts nothing: E_USER_NOT_FOUND
 * with STORE_SESSION_USER_GONE. */
#define STORE_SESSION_USER_GONE "The user was deleted or deactivated during the sign-in."
void store_session_start(struct store *st, const struct new_session *s, char **sid,
                         struct completion done);

/* The live session with that secret hash in project_id at now: not ended,
 * not expired, its user active (out->found false: none). */
void store_session_find(struct store *st, const char *secret_hash, const char *project_id,
                        int64_t now, struct session_row *out, struct completion done);

/* Records that client_id got a code in the session (back-channel logout
 * tells every such client); a client recorded before stays once. */
void store_session_add_client(struct store *st, const char *session_id, const char *client_id,
                              struct completion done);

/* Ends the session id of project_id, and of user_id when it is not NULL,
 * if it has not ended: ended_at now, and the triggers do the rest; ev
 * (NULL: none) is recorded in the same transaction when a session ended.
 * *ended says whether one did: a session that is not there (ended,
 * purged, another's) is no error. */
void store_session_end(struct store *st, const char *id, const char *project_id,
                       const char *user_id, const struct event *ev, bool *ended,
                       struct completion done);

/* A user's live session as the account page lists it (docs/signin.md
 * §"Account page"): never its secret. Strings owned. */
struct session_item {
	char *id;
	int64_t created_at;
	int64_t auth_time;
	int64_t expires_at;
	char *amr;           /* NULL: a session of before amr was kept */
};
struct session_list {
	struct session_item *items;
	size_t n;
};
/* At most this many of a user's sessions are listed, the newest first. */
#define STORE_SESSION_LIST_MAX 50
/* user_id's live sessions of project_id at now (not ended, not expired),
 * the newest first, at most STORE_SESSION_LIST_MAX. */
void store_session_list_user(struct store *st, const char *project_id, const char *user_id,
                             int64_t now, struct session_list *out, struct completion done);
void session_list_release(struct session_list *l);
/* A page of the live sessions (not ended, not expired at now) of
 * project_id, of user_id alone when it is not NULL, newest first (q's
 * page_num and page_size; no sort, no search): records {id, user_id,
 * user_name, user_email, amr, created_at, auth_time, expires_at}, times
 * RFC 3339, for the admin console (docs/console.md). */
void store_session_list(struct store *st, const char *project_id, const char *user_id,
                        const struct list_query *q, struct page *out, struct completion done);

/* Deletes up to batch sessions that expired or ended before now. Returns
 * how many went, or -1. */
int store_session_purge(struct store *st, int batch, int64_t now, struct api_error *err);

#endif
