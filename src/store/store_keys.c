/*
 * Signing keys: the front (store_keys.h). Each operation is the backend's
 * (st->be->keys: sqlite_keys.c, pg_keys.c); the rows' memory and the
 * retirement rule are here, once for both. The CLI's and the start's
 * operations wait with sync_completion.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "store_backend.h"
#include "store_keys.h"
#include "util.h"

void store_keys_row_release(struct key_row *k)
{
	if (k->sealed)
		OPENSSL_cleanse(k->sealed, k->sealed_len);
	free(k->sealed);
	k->sealed = NULL;
	k->sealed_len = 0;
}

void store_keys_rows_release(struct key_rows *r)
{
	for (size_t i = 0; i < r->count; i++)
		store_keys_row_release(&r->rows[i]);
	free(r->rows);
	memset(r, 0, sizeof *r);
}

void store_keys_rows_append(struct key_rows *out, const char *kid, const char *alg_name,
                            const void *sealed, size_t sealed_len, int64_t created_at,
                            int64_t activates_at, int64_t publish_until, bool retired,
                            int64_t retired_at)
{
	struct key_row *k;
	enum jwt_alg alg;

	if (!kid || strlen(kid) != SECRET_HASH_LEN || jwt_alg_parse(alg_name, &alg))
		return;
	out->rows = xrealloc(out->rows, (out->count + 1) * sizeof *out->rows);
	k = &out->rows[out->count++];
	memset(k, 0, sizeof *k);
	memcpy(k->kid, kid, SECRET_HASH_LEN + 1);
	k->alg = alg;
	if (sealed && sealed_len > 0) {
		k->sealed = xmalloc(sealed_len);
		memcpy(k->sealed, sealed, sealed_len);
		k->sealed_len = sealed_len;
	}
	k->created_at = created_at;
	k->activates_at = activates_at;
	k->publish_until = publish_until;
	/* 0 means "not retired": a retirement stored as 0 (or before) is one all the same */
	if (retired)
		k->retired_at = retired_at > 0 ? retired_at : 1;
}

/* The row of kid among the keys, or NULL. */
static const struct key_row *row_of(const struct key_rows *all, const char *kid)
{
	for (size_t i = 0; i < all->count; i++)
		if (!strcmp(all->rows[i].kid, kid))
			return &all->rows[i];
	return NULL;
}

int store_keys_retirement(const struct key_rows *all, const char *kid, int64_t now,
                          const struct key_row **k, struct api_error *err)
{
	const struct key_row *row = row_of(all, kid);

	*k = NULL;
	if (!row)
		return 0;
	if (row->retired_at != 0)
		return 1;
	if (key_schedule_published(row, now) &&
	    key_schedule_count(all->rows, all->count, row->alg, now) < 2)
		return api_fail(err, E_INVALID_PARAMS, "%s is the last %s key: nothing would"
		                " sign; rotate first (edgeauth key rotate --alg %s)", kid,
		                jwt_alg_name(row->alg), jwt_alg_name(row->alg));
	*k = row;
	return 1;
}

void store_keys_changed(struct store *st, int64_t known_version, int64_t now,
                        struct key_rows *out, bool *changed, struct completion done)
{
	st->be->keys->changed(st, known_version, now, out, changed, done);
}

int store_keys_list(struct store *st, struct key_rows *out, struct api_error *err)
{
	struct sync_result r;

	memset(out, 0, sizeof *out);
	st->be->keys->list(st, out, sync_completion(&r));
	if (sync_wait(&r, err) < 0) {
		store_keys_rows_release(out);
		return -1;
	}
	return 0;
}

int store_keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                   int64_t lifetime_ms, struct api_error *err)
{
	struct sync_result r;
	int added = 0;

	st->be->keys->add(st, rows, n, if_alg_missing, lifetime_ms, &added, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : added;
}

int store_key_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                     struct api_error *err)
{
	struct sync_result r;
	bool found = false;

	st->be->keys->retire(st, kid, now, lifetime_ms, &found, sync_completion(&r));
	return sync_wait(&r, err) < 0 ? -1 : found;
}
