#ifndef EDGEAUTH_STORE_KEYS_H
#define EDGEAUTH_STORE_KEYS_H
/*
 * Signing keys in the store (schema/007). Rows carry the private key only
 * sealed (crypto_seal under the key-encryption key); this file never sees
 * it open. The schedule of the rows (which signs, until when each is
 * published) is key_schedule.c's, applied inside each write's transaction.
 * Times in ms.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key_schedule.h"
#include "store.h"

/* Rows owned by the list (store_keys_rows_release frees them and their sealed keys). */
struct key_rows {
	struct key_row *rows;
	size_t count;
	int64_t version;   /* signing_keys_version as read before the rows */
};
void store_keys_rows_release(struct key_rows *r);
/* Wipes and frees one row's sealed key (the row itself is the caller's). */
void store_keys_row_release(struct key_row *k);
/* Appends a row as a backend read it to out: kid and alg as stored, the
 * sealed key (copied), the times (publish_until KEY_NO_BOUND for none). A
 * row this edgeauth cannot have written (an unknown alg, a kid of another
 * length) is left out: a key that cannot be read signs nothing. */
void store_keys_rows_append(struct key_rows *out, const char *kid, const char *alg_name,
                            const void *sealed, size_t sealed_len, int64_t created_at,
                            int64_t activates_at, int64_t publish_until, bool retired,
                            int64_t retired_at);

/* For a request: when the store's key version is not known_version, reads
 * it and every key published at now (not retired, before publish_until)
 * into *out (released first) and sets *changed; else *changed is false and
 * *out untouched. */
void store_keys_changed(struct store *st, int64_t known_version, int64_t now,
                        struct key_rows *out, bool *changed, struct completion done);

/* Every key, oldest first, published or not (edgeauth key list). 0 or -1. */
int store_keys_list(struct store *st, struct key_rows *out, struct api_error *err);
/* Adds rows[0..n) in one transaction (each needs its sealed key) and sets
 * the publication bounds of their algorithms (key_schedule_bounds with
 * lifetime_ms). With if_alg_missing, a row whose alg already has a
 * published key is skipped (a first start: two processes starting at once
 * add one set of keys). Each added key is a key.rotate event of the
 * store's origin (store_events_origin). Returns how many were added, or -1
 * with err. */
int store_keys_add(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
                   int64_t lifetime_ms, struct api_error *err);
/* Retires the key kid at now and sets the bounds of its alg again. 1
 * retired (or already was; a retirement is a key.retire event of the
 * store's origin), 0 no such key, -1 with err: invalid_params
 * when it is the last published key of its alg (nothing would sign), or
 * system_error. */
int store_key_retire(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
                     struct api_error *err);
/* What retiring kid at now means for the keys all (both backends' rule):
 * 0 no such key; 1 with *k the row to retire, or NULL when it already is;
 * -1 with invalid_params when it is the last published key of its alg. */
int store_keys_retirement(const struct key_rows *all, const char *kid, int64_t now,
                          const struct key_row **k, struct api_error *err);

#endif
