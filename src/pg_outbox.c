/*
 * The back-channel logout outbox on PostgreSQL (pg_outbox.h): the rows the
 * triggers of schema/postgres/008 write, read and deleted by statements that
 * complete on the loop. Each node reads every row, as on SQLite.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_outbox.h"
#include "store_pg.h"
#include "util.h"

enum { PO_READ, PO_DELETE, PO__COUNT };

static const struct pg_statement statements[PO__COUNT] = {
	[PO_READ] = { "outbox_read", "SELECT id, client_id, uri, alg, subject, session_id,"
		" created_at FROM backchannel_outbox ORDER BY created_at, id LIMIT $1", 1, false },
	[PO_DELETE] = { "outbox_delete",
		"DELETE FROM backchannel_outbox WHERE id = ANY (edgeauth_ids($1))", 1, true },
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

void pg_outbox_read(struct store *st, size_t limit, struct outbox_rows *out,
                    struct completion done)
{
	char n[24];

	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PO_READ], (const char *const[]){ pg_int_param((long long)limit, n) },
	       rows_read, out, NULL, done);
}

void pg_outbox_delete(struct store *st, const char *const *ids, size_t n,
                      struct completion done)
{
	struct json_id_list list = { true, n, (const char **)ids };
	char *json = pg_json_ids(&list);

	pg_run(st, &statements[PO_DELETE], (const char *const[]){ json }, pg_map_none, NULL, NULL,
	       done);
	free(json);
}
