/* The back-channel logout outbox on SQLite (store_outbox_ops,
 * store_backend.h). */
#include <stdlib.h>
#include <string.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store.h"
#include "sqlite_backend.h"
#include "store_outbox.h"
#include "util.h"

enum {
	O_ANY,
	O_READ,
	O_DELETE,
	O__COUNT
};

static const char *const sql[O__COUNT] = {
	/* Read after every commit and mostly empty: O_READ's ORDER BY opens
	 * a sorter even for no row, 26,000 instructions of the 30,000 it cost
	 * (callgrind; docs/BENCHMARKS.md), so a look first. */
	[O_ANY] = "SELECT 1 FROM backchannel_outbox LIMIT 1",
	[O_READ] = ("SELECT id, client_id, uri, alg, subject, session_id,"
		    " created_at FROM backchannel_outbox"
		    " ORDER BY created_at, id LIMIT ?1"),
	[O_DELETE] = "DELETE FROM backchannel_outbox WHERE id = ?1",
};

const struct stmt_set store_outbox_sql = { O__COUNT, sql, NULL };

#define STMT(st, i) (sqlite_of(st)->outbox.stmt[i])

static int outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                       struct api_error *err)
{
	sqlite3_stmt *s = STMT(st, O_READ);
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	rc = store_exists(st, STMT(st, O_ANY), NULL, NULL, NULL, err);
	if (rc <= 0)
		return rc;   /* empty: no rows, or -1 */
	sqlite3_bind_int64(s, 1, (sqlite3_int64)limit);
	while ((rc = store_step(st, s, err)) == 1) {   /* LIMIT: at most limit rows */
		struct outbox_row *o;

		/* Grown as rows come: read after every commit, the outbox is
		 * mostly empty, and zeroing room for limit rows cost a refresh
		 * ~19,000 instructions (docs/BENCHMARKS.md). */
		if (out->count == cap) {
			cap = cap ? cap * 2 : 16;
			out->rows = xrealloc(out->rows, cap * sizeof *out->rows);
		}
		o = &out->rows[out->count];
		o->id = store_column_dup(s, 0);
		o->client_id = store_column_dup(s, 1);
		o->uri = store_column_dup(s, 2);
		o->alg = store_column_dup(s, 3);
		o->subject = store_column_dup(s, 4);
		o->session_id = store_column_dup(s, 5);
		o->created_at = sqlite3_column_int64(s, 6);
		out->count++;
	}
	store_stmt_finish(s);
	if (rc < 0) {
		outbox_rows_release(out);
		return -1;
	}
	return 0;
}

static void sqlite_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                               struct completion done)
{
	struct api_error err;

	complete(done, outbox_read(st, limit, out, &err), &err);
}

struct outbox_delete {
	const char *const *ids;
	size_t n;
};

static int delete_write(struct store *st, void *arg, struct api_error *err)
{
	const struct outbox_delete *d = arg;
	sqlite3_stmt *s = STMT(st, O_DELETE);

	for (size_t i = 0; i < d->n; i++) {
		store_bind_text(s, 1, d->ids[i]);
		if (store_step_write(st, s, NULL, 0, NULL, err) < 0)
			return -1;
	}
	return 0;
}

static void sqlite_outbox_remove(struct store *st, const char *const *ids, size_t n,
                                 struct completion done)
{
	struct outbox_delete d = { ids, n };
	struct api_error err;

	complete(done, store_write_tx(st, delete_write, NULL, &d, &err), &err);
}

const struct store_outbox_ops sqlite_outbox_ops = {
	.read = sqlite_outbox_read,
	.remove = sqlite_outbox_remove,
};
