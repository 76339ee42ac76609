/*
 * Users on PostgreSQL (store_users_ops, store_backend.h). Every write is one call of a function of
 * schema/postgres/016_users.sql that checks, writes and answers the record;
 * every read, the list with its count and search too, is one statement.
 * Never hands back a password hash but sign-in's, as sqlite_users.c.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_users.h"
#include "store_pg.h"
#include "util.h"

enum {
	PU_CHECK,
	PU_CREATE,
	PU_UPDATE,
	PU_GET,
	PU_GET_EXTERNAL,
	PU_DELETE,
	PU_ACTIVE,
	PU_SCOPE,
	PU_SIGNIN,
	PU_BYOU,
	PU_LIST,   /* first of the list variants: PU_LIST + 4 * sort + 2 * search + desc */
	PU__COUNT = PU_LIST + 4 * USER_SORT__COUNT
};

/* The record of users u joined to its role r. */
#define USER_FROM " FROM users u LEFT JOIN roles r ON r.id = u.role_id"

/* List filters: $1 the project, $2 the search term (only the search
 * variants read it: docs/api.md §"Lists", a case-insensitive substring of the
 * display name or the email), $3 is_active and $4 role_id (NULL: any). The
 * search is a LIKE of the escaped term (edgeauth_contains_pattern), not
 * PG_SQL_CONTAINS's strpos, because a LIKE is what the trigram indexes of
 * schema/postgres/003 answer. */
#define NO_SEARCH " AND $2::ctext IS NULL"
#define SEARCH \
	" AND (lower(u.display_name) LIKE edgeauth_contains_pattern($2::ctext)" \
	" OR lower(u.email) LIKE edgeauth_contains_pattern($2::ctext))"
#define FILTER(search) \
	" WHERE u.project_id = $1" search \
	" AND ($3::boolean IS NULL OR u.is_active = $3::boolean)" \
	" AND ($4::ctext IS NULL OR u.role_id = $4::ctext)"
/* The number of all matches and the page's records. The inner query sorts
 * and cuts the page, carrying each row, its role's name and its sort key;
 * the outer aggregates in that order. docs/api.md §"Lists"; docs/operations.md §"A fleet on PostgreSQL": text sorts on
 * lower() (ASCII folding, as SQLite's NOCASE), NULLs first ascending and
 * last descending as in SQLite (dir says so for a key that may be NULL),
 * ties broken by ID in the sort's direction. */
#define LIST(name, search, key, dir, id_dir) \
	{ "users_list_" name, "SELECT (SELECT count(*) FROM users u" FILTER(search) ")," \
	  " (SELECT coalesce(json_agg(edgeauth_user_json(p.u, p.role_name)" \
	  " ORDER BY p.k" dir ", p.kid" id_dir "), '[]') FROM (SELECT u, r.name AS role_name," \
	  " " key " AS k, u.id AS kid" USER_FROM FILTER(search) \
	  " ORDER BY " key dir ", u.id" id_dir " LIMIT $5 OFFSET $6) p)", 6, false }
/* A sort's four statements: ascending, descending, each without and with a
 * search. asc and desc: the directions, with NULLS written out for a key
 * that may be NULL (a NOT NULL one keeps its index's order). */
#define LISTS(sort, name, key, asc, desc) \
	[PU_LIST + 4 * (sort)] = LIST(name, NO_SEARCH, key, asc, ""), \
	[PU_LIST + 4 * (sort) + 1] = LIST(name "_desc", NO_SEARCH, key, desc, " DESC"), \
	[PU_LIST + 4 * (sort) + 2] = LIST(name "_search", SEARCH, key, asc, ""), \
	[PU_LIST + 4 * (sort) + 3] = LIST(name "_search_desc", SEARCH, key, desc, " DESC")
#define NULLABLE_ASC " NULLS FIRST"
#define NULLABLE_DESC " DESC NULLS LAST"

static const struct pg_statement statements[PU__COUNT] = {
	[PU_CHECK] = { "users_check", "SELECT (r).status, (r).detail, NULL::text, NULL::text FROM"
		" (SELECT edgeauth_user_refusal($1, $2, $3, $4, $5, $6, $7, $8) AS r) c", 8, false },
	[PU_CREATE] = { "users_create", "SELECT * FROM edgeauth_user_create($1, $2, $3, $4, $5,"
		" $6, $7, $8, $9, $10)", 10, true },
	[PU_UPDATE] = { "users_update", "SELECT * FROM edgeauth_user_update($1, $2, $3, $4, $5,"
		" $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)", 17, true },
	[PU_GET] = { "users_get", "SELECT edgeauth_user_json(u, r.name)::text" USER_FROM
		" WHERE u.id = $1 AND u.project_id = $2", 2, false },
	[PU_GET_EXTERNAL] = { "users_get_external",
		"SELECT CASE WHEN $3::boolean THEN edgeauth_user_with_permissions(x.rec, x.role_id)"
		" ELSE x.rec END FROM (SELECT edgeauth_user_json(u, r.name)::text AS rec, u.role_id"
		USER_FROM " WHERE u.project_id = $1 AND u.external_user_id = $2) x", 3, false },
	[PU_DELETE] = { "users_delete", "SELECT * FROM edgeauth_user_delete($1, $2, $3, $4)", 4,
		true },
	[PU_ACTIVE] = { "users_active",
		"SELECT 1 FROM users WHERE id = $1 AND project_id = $2 AND is_active", 2, false },
	[PU_SCOPE] = { "users_scope", "SELECT edgeauth_scope_of_user($1)", 1, false },
	/* what sign-in reads; columns as signin_read reads them */
	[PU_SIGNIN] = { "users_signin", "SELECT id, is_active, password_hash FROM users"
		" WHERE project_id = $1 AND lower(email) = lower($2::ctext)", 2, false },
	[PU_BYOU] = { "users_byou", "SELECT id, is_active, NULL FROM users"
		" WHERE project_id = $1 AND external_user_id = $2", 2, false },
	LISTS(USER_SORT_CREATED_AT, "created_at", "u.created_at", "", " DESC"),
	LISTS(USER_SORT_UPDATED_AT, "updated_at", "u.updated_at", "", " DESC"),
	LISTS(USER_SORT_DISPLAY_NAME, "display_name", "lower(u.display_name)", "", " DESC"),
	LISTS(USER_SORT_EMAIL, "email", "lower(u.email)", NULLABLE_ASC, NULLABLE_DESC),
	LISTS(USER_SORT_IS_ACTIVE, "is_active", "u.is_active", "", " DESC"),
	LISTS(USER_SORT_EXTERNAL_USER_ID, "external_user_id", "lower(u.external_user_id)",
	      NULLABLE_ASC, NULLABLE_DESC),
	LISTS(USER_SORT_ROLE_NAME, "role_name", "lower(r.name)", NULLABLE_ASC, NULLABLE_DESC),
};

const struct pg_statement_set pg_users_statements = { statements, PU__COUNT };

/* What the checks and writes answer (schema/postgres/016): user_not_found,
 * a refusal (store_pg.h), or one of these, worded as on SQLite. */
static const struct pg_conflict user_conflicts[] = {
	{ "role_not_found", E_ROLE_NOT_FOUND, store_user_role_missing },
	{ "email_locked", E_INSUFFICIENT_PERMISSION, store_user_email_locked },
	{ "external_id_used", E_USER_EXTERNAL_ID_ALREADY_USED, store_user_external_id_used },
	{ "email_used", E_USER_EMAIL_ALREADY_USED, store_user_email_used },
};

static const struct pg_outcomes *user_outcomes(void)
{
	static struct pg_outcomes o = {
		NULL, user_conflicts, sizeof user_conflicts / sizeof user_conflicts[0],
	};

	o.missing = store_user_missing;
	return &o;
}

/* ---- the checks and writes ---- */

static void pg_user_check(struct store *st, const char *project_id, const char *user_id,
                          const struct user_fields *f, const char *scope, struct completion done)
{
	pg_run(st, &statements[PU_CHECK], (const char *const[]){
		project_id, user_id, f->external_user_id.value,
		pg_bool_param(f->email.state != FIELD_ABSENT), f->email.value,
		pg_bool_param(user_id && f->email_locked), f->role_id.value, scope },
		pg_map_outcome, NULL, user_outcomes(), done);
}

static void pg_user_create(struct store *st, const struct event_origin *by, const char *project_id,
                           const struct user_fields *f, const char *scope, char **out,
                           struct completion done)
{
	char *id = crypto_new_id();
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_USER_CREATE, id, NULL });

	*out = NULL;
	pg_run(st, &statements[PU_CREATE], (const char *const[]){
		project_id, id, f->display_name, f->avatar_url.value, f->external_user_id.value,
		f->email.value, f->password_hash, f->role_id.value, scope, ev },
		pg_map_outcome, out, user_outcomes(), done);
	free(id);
	free(ev);
}

/* An optional field of an update as its two parameters: whether the body
 * had it, and the value (NULL clears). */
#define OPTIONAL(field) pg_bool_param((field).state != FIELD_ABSENT), (field).value

static void pg_user_update(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *user_id, const struct user_fields *f, const char *scope,
                           char **out, struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_USER_UPDATE, user_id,
	                                          NULL });

	*out = NULL;
	pg_run(st, &statements[PU_UPDATE], (const char *const[]){
		project_id, user_id, f->display_name,
		f->is_active < 0 ? NULL : pg_bool_param(f->is_active),
		OPTIONAL(f->avatar_url), OPTIONAL(f->external_user_id), OPTIONAL(f->email),
		pg_bool_param(f->email_by_user), pg_bool_param(f->email_locked),
		OPTIONAL(f->role_id), f->password_hash, scope, ev },
		pg_map_outcome, out, user_outcomes(), done);
	free(ev);
}

static void pg_user_remove(struct store *st, const struct event_origin *by, const char *project_id,
                           const char *user_id, const char *scope, struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_USER_DELETE, user_id,
	                                          NULL });

	pg_run(st, &statements[PU_DELETE], (const char *const[]){ project_id, user_id, scope, ev },
	       pg_map_outcome, NULL, user_outcomes(), done);
	free(ev);
}

/* ---- the reads ---- */

static void pg_user_get(struct store *st, const char *project_id, const char *user_id, char **out,
                        struct completion done)
{
	pg_run(st, &statements[PU_GET], (const char *const[]){ user_id, project_id },
	       pg_map_record, out, store_user_missing, done);
}

static void pg_user_get_external(struct store *st, const char *project_id,
                                 const char *external_user_id, bool with_permissions, char **out,
                                 struct completion done)
{
	pg_run(st, &statements[PU_GET_EXTERNAL], (const char *const[]){ project_id,
	       external_user_id, pg_bool_param(with_permissions) }, pg_map_record, out,
	       store_user_external_missing, done);
}

static void pg_user_list(struct store *st, const char *project_id, const struct list_query *q,
                         struct page *out, struct completion done)
{
	bool search = q->search && *q->search;   /* "": no search, as on SQLite */
	char size[24], offset[24];

	assert(q->sort < USER_SORT__COUNT);
	out->data = NULL;
	out->total = 0;
	pg_run(st, &statements[PU_LIST + 4 * (int)q->sort + 2 * search + (q->desc ? 1 : 0)],
	       (const char *const[]){ project_id, search ? q->search : NULL,
	       q->is_active < 0 ? NULL : pg_bool_param(q->is_active), q->role_id,
	       pg_int_param(q->page_size, size), pg_int_param(list_offset(q), offset) },
	       pg_map_page, out, NULL, done);
}

static void pg_user_is_active(struct store *st, const char *project_id, const char *user_id,
                              bool *active, struct completion done)
{
	*active = false;
	pg_run(st, &statements[PU_ACTIVE], (const char *const[]){ user_id, project_id },
	       pg_map_exists, active, NULL, done);
}

/* Read on every console page and grant, changed rarely: cached per store
 * state, as a client's scope is. */
static void pg_user_scope(struct store *st, const char *user_id, char **out, struct completion done)
{
	*out = NULL;
	pg_run_cached(st, &st->user_scopes, METRICS_CACHE_USER_SCOPE, user_id, store_read_stamp(st),
	              &statements[PU_SCOPE], out, done);
}

/* ---- what sign-in reads ---- */

/* The row of PU_SIGNIN or PU_BYOU, if any, into the struct
 * store_user_signin out. */
static int signin_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_user_signin *u = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	u->found = true;
	u->user_id = xstrdup(pg_text(res, 0, 0));
	u->is_active = pg_bool(res, 0, 1);
	u->password_hash = pg_text_dup(res, 0, 2);
	return 0;
}

static void pg_user_signin(struct store *st, const char *project_id, const char *email,
                           struct store_user_signin *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PU_SIGNIN], (const char *const[]){ project_id, email },
	       signin_read, out, NULL, done);
}

static void pg_user_byou(struct store *st, const char *project_id, const char *external_user_id,
                         struct store_user_signin *out, struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PU_BYOU], (const char *const[]){ project_id, external_user_id },
	       signin_read, out, NULL, done);
}

/* ---- the search index's upkeep: none here ---- */

/* PostgreSQL's search index needs no moving (schema/postgres/005): no step
 * has anything to do, and no user waits for keys. */
static void pg_user_suffixes_move(struct store *st, int max_keys, int *moved,
                                  struct completion done)
{
	(void)st;
	(void)max_keys;
	*moved = 0;
	complete(done, 0, NULL);
}

static void pg_user_suffixes_backlog(struct store *st, long long users, bool *over,
                                     struct completion done)
{
	(void)st;
	(void)users;
	*over = false;
	complete(done, 0, NULL);
}

const struct store_users_ops pg_users_ops = {
	.check = pg_user_check,
	.create = pg_user_create,
	.update = pg_user_update,
	.get = pg_user_get,
	.remove = pg_user_remove,
	.get_external = pg_user_get_external,
	.list = pg_user_list,
	.is_active = pg_user_is_active,
	.scope = pg_user_scope,
	.suffixes_move = pg_user_suffixes_move,
	.suffixes_backlog = pg_user_suffixes_backlog,
	.signin = pg_user_signin,
	.byou = pg_user_byou,
};
