/*
 * The back-channel logout outbox on PostgreSQL (store_outbox_ops,
 * store_backend.h): the rows the triggers of schema/postgres/008 write,
 * read and deleted by statements that complete on the loop. A read claims its rows for this node
 * (schema/postgres/018), so that of several nodes one sends each logout.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_outbox.h"
#include "store_pg.h"
#include "util.h"

enum { PO_READ, PO_DELETE, PO__COUNT };

static const struct pg_statement statements[PO__COUNT] = {
	/* ours (again) or free: another node's live claim is skipped, and a
	 * row another node's read holds locked now is its. Not "writes": a
	 * claim is nothing the caches hold, and a poll every second would
	 * empty them (pg.h) */
	[PO_READ] = { "outbox_read", "WITH taken AS (UPDATE backchannel_outbox"
		" SET claimed_by = $2, claimed_until = edgeauth_now_ms() + $3"
		" WHERE id IN (SELECT id FROM backchannel_outbox WHERE claimed_by = $2"
		" OR claimed_until IS NULL OR claimed_until <= edgeauth_now_ms()"
		" ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)"
		" RETURNING id, client_id, uri, alg, subject, session_id, created_at)"
		" SELECT * FROM taken ORDER BY created_at, id", 3, false },
	/* nothing the caches hold either */
	[PO_DELETE] = { "outbox_delete",
		"DELETE FROM backchannel_outbox WHERE id = ANY (edgeauth_ids($1))", 1, false },
};

const struct pg_statement_set pg_outbox_statements = { statements, PO__COUNT };

static int rows_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct outbox_rows *rows = out;
	int n = PQntuples(res);

	(void)how;
	(void)err;
	rows->rows = xcalloc(n ? (size_t)n : 1, sizeof *rows->rows);
	for (int r = 0; r < n; r++) {
		struct outbox_row *o = &rows->rows[rows->count++];

		o->id = pg_text_dup(res, r, 0);
		o->client_id = pg_text_dup(res, r, 1);
		o->uri = pg_text_dup(res, r, 2);
		o->alg = pg_text_dup(res, r, 3);
		o->subject = pg_text_dup(res, r, 4);
		o->session_id = pg_text_dup(res, r, 5);
		o->created_at = pg_int(res, r, 6);
	}
	return 0;
}

static void pg_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                           struct completion done)
{
	char n[24], claim[24];

	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PO_READ], (const char *const[]){ pg_int_param((long long)limit, n),
	       pg_of(st)->pg_node, pg_int_param(OUTBOX_CLAIM_MS, claim) }, rows_read, out, NULL, done);
}

static void pg_outbox_remove(struct store *st, const char *const *ids, size_t n,
                             struct completion done)
{
	struct jbody_id_list list = { true, n, (const char **)ids };
	char *json = pg_json_ids(&list);

	pg_run(st, &statements[PO_DELETE], (const char *const[]){ json }, pg_map_none, NULL, NULL,
	       done);
	free(json);
}

const struct store_outbox_ops pg_outbox_ops = {
	.read = pg_outbox_read,
	.remove = pg_outbox_remove,
};
