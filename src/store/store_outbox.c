/*
 * The back-channel outbox: the front (store_outbox.h). Each operation is
 * the backend's (st->be->outbox: sqlite_outbox.c, pg_outbox.c); the rows'
 * memory and the queued hook are here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_outbox.h"

void store_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                       struct completion done)
{
	st->be->outbox->read(st, limit, out, done);
}

void store_outbox_delete(struct store *st, const char *const *ids, size_t n, struct completion done)
{
	st->be->outbox->remove(st, ids, n, done);
}

void outbox_row_release(struct outbox_row *o)
{
	free(o->id);
	free(o->client_id);
	free(o->uri);
	free(o->alg);
	free(o->subject);
	free(o->session_id);
	memset(o, 0, sizeof *o);
}

void outbox_rows_release(struct outbox_rows *r)
{
	for (size_t i = 0; i < r->count; i++)
		outbox_row_release(&r->rows[i]);
	free(r->rows);
	memset(r, 0, sizeof *r);
}

void store_outbox_on_queued(struct store *st, void (*fn)(void *arg), void *arg)
{
	st->outbox_queued = fn;
	st->outbox_queued_arg = arg;
}
