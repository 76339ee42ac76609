/*
 * Access rules' reads on PostgreSQL (store_access_ops, store_backend.h):
 * one call of edgeauth_access_facts (schema/postgres/025_access_rules.sql).
 */
#include <string.h>

#include "pg_backend.h"
#include "store_access.h"
#include "store_pg.h"
#include "util.h"

enum {
	PA_FACTS,
	PA__COUNT
};

static const struct pg_statement statements[PA__COUNT] = {
	[PA_FACTS] = { "access_facts", "SELECT * FROM edgeauth_access_facts($1, $2)", 2, false },
};

const struct pg_statement_set pg_access_statements = { statements, PA__COUNT };

static int facts_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_access_facts *f = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	if (pg_text(res, 0, 0))
		f->allowed_role_ids = xstrdup(pg_text(res, 0, 0));
	if (pg_text(res, 0, 1))
		f->role_id = xstrdup(pg_text(res, 0, 1));
	return 0;
}

static void pg_access_facts(struct store *st, const char *client_id, const char *user_id,
                            struct store_access_facts *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PA_FACTS], (const char *const[]){ client_id, user_id }, facts_read,
	       out, NULL, done);
}

const struct store_access_ops pg_access_ops = {
	.facts = pg_access_facts,
};
