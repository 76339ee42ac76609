/*
 * Passkeys on PostgreSQL (store_passkeys_ops): each write is one call of a
 * function of schema/postgres/029_passkeys.sql, which records its event; a
 * use moves sign_count only from the count the verifier read, so that of
 * two uses of one assertion, on any nodes, one wins.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_backend.h"
#include "store_passkeys.h"
#include "store_pg.h"
#include "util.h"

enum {
	PP_ADD,
	PP_LIST,
	PP_FIND,
	PP_USE,
	PP_REMOVE,
	PP_SIGNIN,
	PP__COUNT
};

#define PASSKEY_COLUMNS \
	"id, user_id, credential_id, public_key, alg, sign_count, backup_eligible, name," \
	" created_at, coalesce(last_used_at, 0)"

static const struct pg_statement statements[PP__COUNT] = {
	[PP_ADD] = { "passkeys_add", "SELECT added, event FROM edgeauth_passkey_add($1, $2, $3,"
		" $4, $5, $6, $7, $8, $9, $10)", 10, true },
	[PP_LIST] = { "passkeys_list", "SELECT " PASSKEY_COLUMNS " FROM user_passkeys"
		" WHERE user_id = $1 ORDER BY created_at, id", 1, false },
	[PP_FIND] = { "passkeys_find", "SELECT " PASSKEY_COLUMNS " FROM user_passkeys"
		" WHERE credential_id = $1", 1, false },
	[PP_USE] = { "passkeys_use", "SELECT won, event FROM edgeauth_passkey_use($1, $2, $3, $4,"
		" $5)", 5, true },
	[PP_REMOVE] = { "passkeys_remove", "SELECT removed, event FROM"
		" edgeauth_passkey_remove($1, $2, $3)", 3, true },
	/* one row per passkey (one with NULLs without), each with the TOTP
	 * factor and the count of unused recovery codes */
	[PP_SIGNIN] = { "passkeys_signin", "SELECT f.secret, f.last_step,"
		" f.confirmed_at IS NOT NULL, (SELECT count(*) FROM recovery_codes"
		" WHERE user_id = $1 AND used_at IS NULL), coalesce((SELECT r.requires_second_factor"
		" FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = $1), false), p.*"
		" FROM (SELECT 1) AS one LEFT JOIN user_factors f ON f.user_id = $1 AND f.kind = 'totp'"
		" LEFT JOIN (SELECT " PASSKEY_COLUMNS " FROM user_passkeys WHERE user_id = $1) p ON true"
		" ORDER BY p.created_at, p.id", 1, false },
};

const struct pg_statement_set pg_passkeys_statements = { statements, PP__COUNT };

/* Row r of res, in PASSKEY_COLUMNS' order from column c. */
static void read_row(const PGresult *res, int r, int c, struct store_passkey *p)
{
	p->id = pg_text_dup(res, r, c);
	p->user_id = pg_text_dup(res, r, c + 1);
	p->credential_id = pg_text_dup(res, r, c + 2);
	p->public_key = pg_text_dup(res, r, c + 3);
	p->alg = (int)pg_int(res, r, c + 4);
	p->sign_count = pg_int(res, r, c + 5);
	p->backup_eligible = pg_bool(res, r, c + 6);
	p->name = pg_text_dup(res, r, c + 7);
	p->created_at = pg_int(res, r, c + 8);
	p->last_used_at = pg_int(res, r, c + 9);
}

/* The passkeys of res's rows, from column c; a row whose column c is NULL
 * (the sign-in read of a user without one) is none. */
static void rows_read(const PGresult *res, int c, struct store_passkey_list *l)
{
	int n = PQntuples(res);

	if (n == 0)
		return;
	l->items = xcalloc((size_t)n, sizeof *l->items);
	for (int r = 0; r < n; r++)
		if (!PQgetisnull(res, r, c))
			read_row(res, r, c, &l->items[l->n++]);
}

static int list_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	(void)how;
	(void)err;
	rows_read(res, 0, out);
	return 0;
}

static int signin_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_signin_factors *f = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	if (!PQgetisnull(res, 0, 0)) {
		f->totp.found = true;
		f->totp.sealed = pg_text_dup(res, 0, 0);
		f->totp.last_step = pg_int(res, 0, 1);
		f->totp.confirmed = pg_bool(res, 0, 2);
	}
	f->recovery_left = pg_int(res, 0, 3);
	f->second_factor_required = pg_bool(res, 0, 4);
	rows_read(res, 5, &f->passkeys);
	return 0;
}

/* how: the bool * that says whether there was a row. */
static int find_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	bool *found = (bool *)how;

	(void)err;
	*found = PQntuples(res) > 0;
	if (*found)
		read_row(res, 0, 0, out);
	return 0;
}

static void pg_passkey_add(struct store *st, const struct store_passkey *p,
                           const struct event *ev, bool *added, struct completion done)
{
	char alg[24], count[24], max[24], *e = pg_event_json(ev);

	*added = false;
	pg_run(st, &statements[PP_ADD],
	       (const char *const[]){ p->id, p->user_id, p->credential_id, p->public_key,
	                              pg_int_param(p->alg, alg), pg_int_param(p->sign_count, count),
	                              pg_bool_param(p->backup_eligible), p->name,
	                              pg_int_param(PASSKEYS_PER_USER_MAX, max), e },
	       pg_map_bool, added, NULL, done);
	free(e);
}

static void pg_passkey_list(struct store *st, const char *user_id, struct store_passkey_list *out,
                            struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PP_LIST], (const char *const[]){ user_id }, list_read, out, NULL,
	       done);
}

static void pg_signin_get(struct store *st, const char *user_id,
                          struct store_signin_factors *out, struct completion done)
{
	pg_run(st, &statements[PP_SIGNIN], (const char *const[]){ user_id }, signin_read, out, NULL,
	       done);
}

static void pg_passkey_find(struct store *st, const char *credential_id,
                            struct store_passkey *out, bool *found, struct completion done)
{
	memset(out, 0, sizeof *out);
	*found = false;
	pg_run(st, &statements[PP_FIND], (const char *const[]){ credential_id }, find_read, out,
	       found, done);
}

static void pg_passkey_use(struct store *st, const char *id, int64_t old_count,
                           int64_t old_used_at, int64_t new_count, const struct event *ev,
                           bool *won, struct completion done)
{
	char o[24], u[24], n[24], *e = pg_event_json(ev);

	*won = false;
	pg_run(st, &statements[PP_USE], (const char *const[]){ id, pg_int_param(old_count, o),
	       pg_int_param(new_count, n), e, pg_int_param(old_used_at, u) }, pg_map_bool, won,
	       NULL, done);
	free(e);
}

static void pg_passkey_remove(struct store *st, const char *user_id, const char *id,
                              const struct event *ev, bool *removed, struct completion done)
{
	char *e = pg_event_json(ev);

	*removed = false;
	pg_run(st, &statements[PP_REMOVE], (const char *const[]){ user_id, id, e }, pg_map_bool,
	       removed, NULL, done);
	free(e);
}

const struct store_passkeys_ops pg_passkeys_ops = {
	.add = pg_passkey_add,
	.list = pg_passkey_list,
	.signin_get = pg_signin_get,
	.find = pg_passkey_find,
	.use = pg_passkey_use,
	.remove = pg_passkey_remove,
};
