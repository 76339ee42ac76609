/*
 * Second factors on PostgreSQL (store_factors_ops): each write is one call
 * of a function of schema/postgres/023_factors.sql, which records its
 * event; a code is accepted by the UPDATE that moves last_step forward, so
 * that of two uses of one code, on any nodes, one wins.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pg_backend.h"
#include "store_factors.h"
#include "store_pg.h"
#include "store_users.h"
#include "util.h"

enum {
	PF_TOTP_GET,
	PF_TOTP_BEGIN,
	PF_TOTP_USE,
	PF_TOTP_REMOVE,
	PF_RESET,
	PF_RC_SET,
	PF_RC_USE,
	PF_RC_COUNT,
	PF__COUNT
};

static const struct pg_statement statements[PF__COUNT] = {
	[PF_TOTP_GET] = { "factors_totp_get", "SELECT secret, last_step, confirmed_at IS NOT NULL"
		" FROM user_factors WHERE user_id = $1 AND kind = 'totp'", 1, false },
	[PF_TOTP_BEGIN] = { "factors_totp_begin", "SELECT edgeauth_totp_begin($1, $2)", 2, true },
	[PF_TOTP_USE] = { "factors_totp_use", "SELECT won, event FROM edgeauth_totp_use($1, $2,"
		" $3, $4)", 4, true },
	[PF_TOTP_REMOVE] = { "factors_totp_remove", "SELECT removed, event FROM"
		" edgeauth_totp_remove($1, $2)", 2, true },
	[PF_RESET] = { "factors_reset", "SELECT * FROM edgeauth_user_factors_reset($1, $2, $3, $4)",
		4, true },
	[PF_RC_SET] = { "factors_recovery_set", "SELECT done, event FROM"
		" edgeauth_recovery_set($1, $2, $3)", 3, true },
	[PF_RC_USE] = { "factors_recovery_use", "SELECT won, event FROM"
		" edgeauth_recovery_use($1, $2, $3, $4)", 4, true },
	[PF_RC_COUNT] = { "factors_recovery_count", "SELECT count(*) FROM recovery_codes"
		" WHERE user_id = $1 AND used_at IS NULL", 1, false },
};

const struct pg_statement_set pg_factors_statements = { statements, PF__COUNT };

static int totp_read(const PGresult *res, void *out, const void *how, struct api_error *err)
{
	struct store_totp_row *r = out;

	(void)how;
	(void)err;
	if (PQntuples(res) == 0)
		return 0;
	r->found = true;
	r->sealed = xstrdup(pg_text(res, 0, 0));
	r->last_step = pg_int(res, 0, 1);
	r->confirmed = !strcmp(pg_text(res, 0, 2), "t");
	return 0;
}

static void pg_totp_get(struct store *st, const char *user_id, struct store_totp_row *out,
                        struct completion done)
{
	memset(out, 0, sizeof *out);
	pg_run(st, &statements[PF_TOTP_GET], (const char *const[]){ user_id }, totp_read, out,
	       NULL, done);
}

static void pg_totp_begin(struct store *st, const char *user_id, const char *sealed, bool *begun,
                          struct completion done)
{
	*begun = false;
	pg_run(st, &statements[PF_TOTP_BEGIN], (const char *const[]){ user_id, sealed }, pg_map_bool,
	       begun, NULL, done);
}

static void pg_totp_use(struct store *st, const char *user_id, int64_t step, bool confirm,
                        const struct event *ev, bool *won, struct completion done)
{
	char n[24], *e = pg_event_json(ev);

	*won = false;
	pg_run(st, &statements[PF_TOTP_USE], (const char *const[]){ user_id, pg_int_param(step, n),
	       pg_bool_param(confirm), e }, pg_map_bool, won, NULL, done);
	free(e);
}

static void pg_totp_remove(struct store *st, const char *user_id, const struct event *ev,
                           bool *removed, struct completion done)
{
	char *e = pg_event_json(ev);

	*removed = false;
	pg_run(st, &statements[PF_TOTP_REMOVE], (const char *const[]){ user_id, e }, pg_map_bool,
	       removed, NULL, done);
	free(e);
}

static const struct pg_outcomes *reset_outcomes(void)
{
	static struct pg_outcomes o;

	o.missing = store_user_missing;
	return &o;
}

static void pg_factors_reset(struct store *st, const struct event_origin *by,
                             const char *project_id, const char *user_id, const char *scope,
                             struct completion done)
{
	char *ev = pg_event_json(&(struct event){ by, project_id, EVENT_USER_RESET_FACTORS, user_id,
	                                          NULL });

	pg_run(st, &statements[PF_RESET], (const char *const[]){ project_id, user_id, scope, ev },
	       pg_map_outcome, NULL, reset_outcomes(), done);
	free(ev);
}

static void pg_recovery_set(struct store *st, const char *user_id, const char *hashes,
                            const struct event *ev, struct completion done)
{
	char *e = pg_event_json(ev);

	pg_run(st, &statements[PF_RC_SET], (const char *const[]){ user_id, hashes, e }, pg_map_none,
	       NULL, NULL, done);
	free(e);
}

static void pg_recovery_use(struct store *st, const char *user_id, const char *hash,
                            long long left, const struct event *ev, bool *won,
                            struct completion done)
{
	char n[24], *e = pg_event_json(ev);

	pg_run(st, &statements[PF_RC_USE], (const char *const[]){ user_id, hash,
	       pg_int_param(left, n), e }, pg_map_bool, won, NULL, done);
	free(e);
}

static void pg_recovery_count(struct store *st, const char *user_id, long long *n,
                              struct completion done)
{
	pg_run(st, &statements[PF_RC_COUNT], (const char *const[]){ user_id }, pg_map_int, n, NULL,
	       done);
}

const struct store_factors_ops pg_factors_ops = {
	.totp_get = pg_totp_get,
	.totp_begin = pg_totp_begin,
	.totp_use = pg_totp_use,
	.totp_remove = pg_totp_remove,
	.reset = pg_factors_reset,
	.recovery_set = pg_recovery_set,
	.recovery_use = pg_recovery_use,
	.recovery_count = pg_recovery_count,
};
