/* A set-associative table: a key hashes to one set of WAYS slots, so keys
 * that share a set do not evict each other until more than WAYS of them are
 * in use, and a lookup looks at WAYS slots at most. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store_cache.h"
#include "util.h"

#define SETS 1024
#define WAYS 4

struct slot {
	char *key;              /* NULL: the slot is free */
	void *value;
	struct store_stamp at;
};

struct store_cache {
	enum metrics_cache metric;
	void (*value_free)(void *);
	unsigned next_victim;   /* round robin among a full set's ways */
	struct slot slots[SETS][WAYS];
};

bool store_stamp_equal(struct store_stamp a, struct store_stamp b)
{
	return a.known && b.known && a.generation == b.generation &&
	       a.data_version == b.data_version;
}

static struct slot *set_of(const struct store_cache *c, const char *key)
{
	return (struct slot *)c->slots[str_hash(key) % SETS];
}

static void slot_clear(struct store_cache *c, struct slot *s)
{
	if (s->key)
		c->value_free(s->value);
	free(s->key);
	s->key = NULL;
	s->value = NULL;
}

struct store_cache *store_cache_new(enum metrics_cache metric, void (*value_free)(void *))
{
	struct store_cache *c = xcalloc(1, sizeof *c);

	c->metric = metric;
	c->value_free = value_free;
	return c;
}

void store_cache_free(struct store_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < SETS; i++)
		for (size_t w = 0; w < WAYS; w++)
			slot_clear(c, &c->slots[i][w]);
	free(c);
}

void *store_cache_get(const struct store_cache *c, const char *key, struct store_stamp now)
{
	const struct slot *set = set_of(c, key);

	for (size_t w = 0; w < WAYS; w++)
		if (set[w].key && store_stamp_equal(set[w].at, now) && !strcmp(set[w].key, key)) {
			metrics_cache_lookup(c->metric, true);
			return set[w].value;
		}
	metrics_cache_lookup(c->metric, false);
	return NULL;
}

void store_cache_put(struct store_cache *c, const char *key, struct store_stamp now,
                       void *value)
{
	struct slot *set = set_of(c, key), *victim = NULL;

	if (!now.known) {
		c->value_free(value);
		return;
	}

	/* The key's own slot first, then a free or retired one, else round robin. */
	for (size_t w = 0; w < WAYS && !victim; w++)
		if (set[w].key && !strcmp(set[w].key, key))
			victim = &set[w];
	for (size_t w = 0; w < WAYS && !victim; w++)
		if (!set[w].key || !store_stamp_equal(set[w].at, now))
			victim = &set[w];
	if (!victim)
		victim = &set[c->next_victim++ % WAYS];
	slot_clear(c, victim);
	victim->key = xstrdup(key);
	victim->value = value;
	victim->at = now;
}
