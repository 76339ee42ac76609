/*
 * Passkeys: the front (store_passkeys.h). Each operation is the backend's
 * (st->be->passkeys: sqlite_passkeys.c, pg_passkeys.c); the rows' memory is
 * here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_passkeys.h"

void store_passkey_release(struct store_passkey *p)
{
	free(p->id);
	free(p->user_id);
	free(p->credential_id);
	free(p->public_key);
	free(p->name);
	memset(p, 0, sizeof *p);
}

void store_passkey_list_release(struct store_passkey_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		store_passkey_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

void store_signin_factors_release(struct store_signin_factors *f)
{
	store_totp_row_release(&f->totp);
	store_passkey_list_release(&f->passkeys);
	f->recovery_left = 0;
}

void store_signin_factors(struct store *st, const char *user_id, struct store_signin_factors *out,
                          struct completion done)
{
	memset(out, 0, sizeof *out);
	st->be->passkeys->signin_get(st, user_id, out, done);
}

void store_passkey_add(struct store *st, const struct store_passkey *p, const struct event *ev,
                       bool *added, struct completion done)
{
	st->be->passkeys->add(st, p, ev, added, done);
}

void store_passkey_list(struct store *st, const char *user_id, struct store_passkey_list *out,
                        struct completion done)
{
	st->be->passkeys->list(st, user_id, out, done);
}

void store_passkey_find(struct store *st, const char *credential_id, struct store_passkey *out,
                        bool *found, struct completion done)
{
	st->be->passkeys->find(st, credential_id, out, found, done);
}

void store_passkey_use(struct store *st, const char *id, int64_t old_count, int64_t old_used_at,
                       int64_t new_count, const struct event *ev, bool *won,
                       struct completion done)
{
	st->be->passkeys->use(st, id, old_count, old_used_at, new_count, ev, won, done);
}

void store_passkey_remove(struct store *st, const char *user_id, const char *id,
                          const struct event *ev, bool *removed, struct completion done)
{
	st->be->passkeys->remove(st, user_id, id, ev, removed, done);
}
