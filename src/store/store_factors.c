/*
 * Second factors: the front (store_factors.h). Each operation is the
 * backend's (st->be->factors: sqlite_factors.c, pg_factors.c); the row's
 * memory is here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store.h"
#include "store_backend.h"
#include "store_factors.h"

void store_totp_row_release(struct store_totp_row *r)
{
	crypto_free_wiped(r->sealed);
	memset(r, 0, sizeof *r);
}

void store_totp_get(struct store *st, const char *user_id, struct store_totp_row *out,
                    struct completion done)
{
	st->be->factors->totp_get(st, user_id, out, done);
}

void store_totp_begin(struct store *st, const char *user_id, const char *sealed, bool *begun,
                      struct completion done)
{
	st->be->factors->totp_begin(st, user_id, sealed, begun, done);
}

void store_totp_use(struct store *st, const char *user_id, int64_t step, bool confirm,
                    const struct event *ev, bool *won, struct completion done)
{
	st->be->factors->totp_use(st, user_id, step, confirm, ev, won, done);
}

void store_totp_remove(struct store *st, const char *user_id, const struct event *ev,
                       bool *removed, struct completion done)
{
	st->be->factors->totp_remove(st, user_id, ev, removed, done);
}

void store_factors_reset(struct store *st, const struct event_origin *by, const char *project_id,
                         const char *user_id, const char *scope, struct completion done)
{
	st->be->factors->reset(st, by, project_id, user_id, scope, done);
}

void store_recovery_set(struct store *st, const char *user_id, const char *hashes,
                        const struct event *ev, struct completion done)
{
	st->be->factors->recovery_set(st, user_id, hashes, ev, done);
}

void store_recovery_use(struct store *st, const char *user_id, const char *hash, long long left,
                        const struct event *ev, bool *won, struct completion done)
{
	*won = false;
	st->be->factors->recovery_use(st, user_id, hash, left, ev, won, done);
}

void store_recovery_count(struct store *st, const char *user_id, long long *n,
                          struct completion done)
{
	*n = 0;
	st->be->factors->recovery_count(st, user_id, n, done);
}
