#ifndef EDGEAUTH_STORE_OUTBOX_H
#define EDGEAUTH_STORE_OUTBOX_H
/*
 * The back-channel logout outbox (schema/008): the schema's triggers write a
 * row per logout token to send, in the transaction that ends a session, so
 * a logout is never lost while the server runs and never sent for a change
 * that rolled back; backchannel.c reads them and deletes each once it was
 * delivered or given up. Work of the loop's own timers: they complete a
 * struct completion (at once on SQLite, later on PostgreSQL, where nothing
 * may block the loop).
 */
#include <stddef.h>
#include <stdint.h>

#include "flow.h"

struct store;

/* A logout to deliver, as the trigger wrote it. Strings owned. */
struct outbox_row {
	char *id;           /* the logout token's jti, the same across retries */
	char *client_id;    /* its aud */
	char *uri;          /* the client's backchannel_logout_uri at the end */
	char *alg;          /* its id_token_signed_response_alg then */
	char *subject;      /* the user's ID */
	char *session_id;   /* the sid; NULL for a BYOU user's logout */
	int64_t created_at; /* ms */
};

struct outbox_rows {
	struct outbox_row *rows;
	size_t count;
};
/* Frees a row's strings (those still there). */
void outbox_row_release(struct outbox_row *o);
/* Frees every row's and the array. */
void outbox_rows_release(struct outbox_rows *r);

/* The first limit rows, oldest first (ties by id), into out, which must
 * live until done ran (on failure it holds no rows). On PostgreSQL, where
 * several nodes read one outbox, the rows another node's live claim holds
 * are skipped, and the rows read are claimed (again) for this node for
 * OUTBOX_CLAIM_MS (schema/postgres/018): it reads about every second, and
 * after a restart it goes on with its own claims. */
#define OUTBOX_CLAIM_MS 30000
void store_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                       struct completion done);
/* Deletes the rows ids[0..n) in one transaction (one already gone is no
 * error); ids are read before it returns. On failure nothing was deleted. */
void store_outbox_delete(struct store *st, const char *const *ids, size_t n,
                         struct completion done);
/* fn(arg) runs on the loop when a logout may have been queued by another
 * process or node (PostgreSQL's notification; on SQLite, never: the batch's
 * commit says so, group_commit_run). */
void store_outbox_on_queued(struct store *st, void (*fn)(void *arg), void *arg);

#endif
