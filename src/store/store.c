/*
 * The store's front, whatever the backend: what store.h asks of the
 * backend's own part goes through its table (store_backend.h), and the
 * close frees the part every backend shares.
 */
#include <stdlib.h>

#include "store.h"
#include "store_backend.h"
#include "store_cache.h"

void store_close(struct store *st)
{
	if (!st)
		return;
	st->be->close(st);
	store_cache_free(st->client_rows);
	store_cache_free(st->scopes);
	store_cache_free(st->user_scopes);
	store_cache_free(st->role_permissions);
	free(st->events_pending);
	free(st);
}

struct store_stamp store_stamp(struct store *st)
{
	return st->be->stamp(st);
}

struct store_stamp store_read_stamp(struct store *st)
{
	return st->be->read_stamp(st);
}

bool store_idle(const struct store *st)
{
	return st->be->idle(st);
}
