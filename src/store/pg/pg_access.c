/*
 * Access rules and consents on PostgreSQL (store_access_ops,
 * store_backend.h): what a sign-in reads is one call of
 * edgeauth_access_facts, a consent's revocation one of
 * edgeauth_consent_revoke (schema/postgres/032_consents.sql), which revokes
 * the client's refresh tokens of the user in the same transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_access.h"
#include "store_pg.h"
#include "util.h"

enum {
	PA_FACTS,
	PA_CONSENT_GRANT,
	PA_CONSENT_LIST,
	PA_CONSENT_REVOKE,
	PA__COUNT
};

static const struct pg_statement statements[PA__COUNT] = {
	[PA_FACTS] = { "access_facts", "SELECT * FROM edgeauth_access_facts($1, $2)", 2, PG_READS },
	/* the event (edgeauth_event) in the same statement, as its column
	 * "event" (store_pg.c) */
	[PA_CONSENT_GRANT] = { "consent_grant", "WITH k AS (INSERT INTO consents (user_id,"
		" client_id, scopes, granted_at) VALUES ($1, $2, $3, edgeauth_now_ms())"
		" ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes,"
		" granted_at = excluded.granted_at RETURNING 1)"
		" SELECT edgeauth_event($4::json) AS event FROM k", 4, PG_WRITES_UNCACHED },
	[PA_CONSENT_LIST] = { "consent_list", "SELECT coalesce(json_agg(json_build_object("
		"'client_id', k.client_id, 'client_name', c.name, 'scopes', k.scopes,"
		" 'granted_at', edgeauth_iso_time(k.granted_at)) ORDER BY k.granted_at DESC,"
		" k.client_id), '[]')::text FROM consents k JOIN clients c ON c.id = k.client_id"
		" WHERE k.user_id = $1", 1, PG_READS },
	/* the event only when a consent went */
	[PA_CONSENT_REVOKE] = { "consent_revoke", "SELECT r, CASE WHEN r THEN"
		" edgeauth_event($3::json) END AS event FROM edgeauth_consent_revoke($1, $2) r", 3,
		PG_WRITES },
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
	f->consent_required = pg_text(res, 0, 2) && pg_bool(res, 0, 2);
	if (pg_text(res, 0, 3))
		f->consented = xstrdup(pg_text(res, 0, 3));
	if (pg_text(res, 0, 4) && *pg_text(res, 0, 4))
		f->permissions = xstrdup(pg_text(res, 0, 4));
	return 0;
}

static void pg_access_facts(struct store *st, const char *client_id, const char *user_id,
                            struct store_access_facts *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PA_FACTS], (const char *const[]){ client_id, user_id }, facts_read,
	       out, NULL, done);
}

static void pg_consent_grant(struct store *st, const char *user_id, const char *client_id,
                             const char *scopes, const struct event *ev, struct completion done)
{
	char *e = pg_event_json(ev);

	pg_run(st, &statements[PA_CONSENT_GRANT],
	       (const char *const[]){ user_id, client_id, scopes, e }, pg_map_none, NULL, NULL, done);
	free(e);
}

/* The list's one row: its JSON text, made compact as SQLite's is. */
static int list_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	*(char **)out = pg_json_compact(PQntuples(res) > 0 && pg_text(res, 0, 0)
	                                ? pg_text(res, 0, 0) : "[]");
	return 0;
}

static void pg_consent_list(struct store *st, const char *user_id, char **json,
                            struct completion done)
{
	*json = NULL;
	pg_run(st, &statements[PA_CONSENT_LIST], (const char *const[]){ user_id }, list_read, json,
	       NULL, done);
}

static void pg_consent_revoke(struct store *st, const char *user_id, const char *client_id,
                              const struct event *ev, bool *revoked, struct completion done)
{
	char *e = pg_event_json(ev);

	*revoked = false;
	pg_run(st, &statements[PA_CONSENT_REVOKE], (const char *const[]){ user_id, client_id, e },
	       pg_map_bool, revoked, NULL, done);
	free(e);
}

const struct store_access_ops pg_access_ops = {
	.facts = pg_access_facts,
	.consent_grant = pg_consent_grant,
	.consent_list = pg_consent_list,
	.consent_revoke = pg_consent_revoke,
};
