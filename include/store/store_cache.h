#ifndef EDGEAUTH_STORE_CACHE_H
#define EDGEAUTH_STORE_CACHE_H
/*
 * Caches of what the store derives from its rows (a client's scope, a role's
 * permissions), keyed by record ID. An entry is good only at the store_stamp
 * it was read at: any commit, of ours or of another process (the CLI), moves
 * the stamp and so retires every entry at once (docs/operations.md §"The program").
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

/* The store's state as a request's reads saw it: our own commit and
 * rollback count, and SQLite's data version of the file. Take it with
 * store_stamp after the request has stepped a statement: a read transaction
 * is what brings another process's commits into the data version. */
struct store_stamp {
	uint64_t generation;
	uint32_t data_version;
	bool known;   /* false: the data version could not be read; cache nothing */
};

/* The same known state of the store (an unknown one equals nothing). */
bool store_stamp_equal(struct store_stamp a, struct store_stamp b);

/* A fixed table of key -> value; values are owned by the cache and freed
 * with the value_free given to store_cache_new. Its hits and misses are
 * counted under metric. */
struct store_cache;

struct store_cache *store_cache_new(enum metrics_cache metric, void (*value_free)(void *));
void store_cache_free(struct store_cache *c);
/* The value stored for key at stamp now, or NULL. Borrowed: good until the
 * next store_cache_put. */
void *store_cache_get(const struct store_cache *c, const char *key, struct store_stamp now);
/* Stores value (the cache takes it) for key at now, evicting another key's
 * entry when the key's set is full. */
void store_cache_put(struct store_cache *c, const char *key, struct store_stamp now,
                       void *value);

#endif
