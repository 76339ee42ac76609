/*
 * Access rules' reads on SQLite (store_access_ops, store_backend.h): one
 * statement for the client's list and the user's role.
 */
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "store_access.h"

enum access_stmt {
	SA_FACTS,
	SA__COUNT
};

static const char *const sql[SA__COUNT] = {
	[SA_FACTS] =
		"SELECT (SELECT allowed_role_ids FROM clients WHERE id = ?1),"
		" (SELECT role_id FROM users WHERE id = ?2)",
};

const struct stmt_set store_access_sql = { SA__COUNT, sql, NULL };

static void sqlite_access_facts(struct store *st, const char *client_id, const char *user_id,
                                struct store_access_facts *out, struct completion done)
{
	sqlite3_stmt *s = sqlite_of(st)->access.stmt[SA_FACTS];
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, client_id);
	store_bind_text(s, 2, user_id);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->allowed_role_ids = store_column_dup(s, 0);
		out->role_id = store_column_dup(s, 1);
	}
	store_stmt_finish(s);
	complete(done, rc < 0 ? -1 : 0, &err);
}

const struct store_access_ops sqlite_access_ops = {
	.facts = sqlite_access_facts,
};
