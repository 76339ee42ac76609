/*
 * Unit tests for store_cache.c, the cache of what the store derives (a
 * client's scope, a role's permissions), seen from outside: a value comes
 * back only for its key at the stamp it was put at; a new stamp retires
 * every entry at once and an unknown stamp caches nothing; a full set
 * evicts, preferring free and retired slots; every value handed over is
 * freed exactly once, by eviction, replacement or store_cache_free.
 *
 * Values are counted (struct value) so that a value freed twice, or never,
 * fails the test and not only a sanitizer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "store_cache.h"
#include "util.h"

#define MANY 20000
#define CAPACITY 4096   /* SETS x WAYS in store_cache.c */

static const struct store_stamp s1 = { 1, 7, true }, s2 = { 2, 7, true },
                                s1_other_file = { 1, 8, true }, unknown = { 1, 7, false };

/* A value remembers its key; freed[] counts how often each was freed. */
struct value {
	int id;
	char key[24];
};

static struct {
	struct store_cache *c;
	int next_id;
	int freed[2 * MANY + 16];
} fx;

static void value_free(void *v)
{
	struct value *val = v;

	ck_assert_int_lt(val->id, (int)N_ELEMS(fx.freed));
	fx.freed[val->id]++;
	free(val);
}

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.c = store_cache_new(METRICS_CACHE_CLIENT_SCOPE, value_free);
}

static void teardown(void)
{
	store_cache_free(fx.c);
}

/* Puts a new value for key at stamp; returns its id. */
static int put(const char *key, struct store_stamp at)
{
	struct value *v = xmalloc(sizeof *v);
	int id = fx.next_id++;

	v->id = id;
	snprintf(v->key, sizeof v->key, "%s", key);
	store_cache_put(fx.c, key, at, v);   /* the cache owns v now */
	return id;
}

/* The id cached for key at stamp, or -1. */
static int get(const char *key, struct store_stamp at)
{
	const struct value *v = store_cache_get(fx.c, key, at);

	if (!v)
		return -1;
	ck_assert_str_eq(v->key, key);   /* never another key's value */
	return v->id;
}

static const char *key_n(char buf[24], const char *prefix, int n)
{
	snprintf(buf, 24, "%s%d", prefix, n);
	return buf;
}

/* How many values were freed, and none twice. */
static int freed_count(void)
{
	int n = 0;

	for (int i = 0; i < fx.next_id; i++) {
		ck_assert_msg(fx.freed[i] <= 1, "value %d freed %d times", i, fx.freed[i]);
		n += fx.freed[i];
	}
	return n;
}

START_TEST(test_hit_and_miss)
{
	int a = put("client-a", s1);

	ck_assert_int_eq(get("client-a", s1), a);
	ck_assert_int_eq(get("client-b", s1), -1);
	ck_assert_int_eq(get("client-", s1), -1);
	ck_assert_int_eq(get("client-aa", s1), -1);
	ck_assert_int_eq(get("", s1), -1);
	ck_assert_int_eq(freed_count(), 0);
}
END_TEST

/* A commit (ours: generation; another process's: data version) retires
 * the entry; asking at another stamp does not drop it. */
START_TEST(test_stamp_invalidation)
{
	int a = put("role-1", s1);

	ck_assert_int_eq(get("role-1", s2), -1);
	ck_assert_int_eq(get("role-1", s1_other_file), -1);
	ck_assert_int_eq(get("role-1", unknown), -1);
	ck_assert_int_eq(get("role-1", s1), a);
	/* a put at the new stamp replaces it */
	int b = put("role-1", s2);
	ck_assert_int_eq(get("role-1", s2), b);
	ck_assert_int_eq(get("role-1", s1), -1);
	ck_assert_int_eq(fx.freed[a], 1);
	ck_assert_int_eq(freed_count(), 1);
}
END_TEST

/* When the data version could not be read, nothing is cached: the value
 * is freed at once. */
START_TEST(test_unknown_stamp_caches_nothing)
{
	int u = put("client-u", unknown);

	ck_assert_int_eq(fx.freed[u], 1);
	ck_assert_int_eq(get("client-u", unknown), -1);
	ck_assert_int_eq(get("client-u", s1), -1);
	/* and it leaves an entry of that key alone */
	int a = put("client-a", s1);
	put("client-a", unknown);
	ck_assert_int_eq(get("client-a", s1), a);
	ck_assert_int_eq(freed_count(), 2);
}
END_TEST

/* A second put of a key replaces its value (the old one freed) and takes
 * no second slot. */
START_TEST(test_put_replaces)
{
	int first = put("k", s1), last = first;

	for (int i = 0; i < 100; i++)
		last = put("k", s1);
	ck_assert_int_eq(fx.freed[first], 1);
	ck_assert_int_eq(freed_count(), 100);   /* each put but the last replaced */
	ck_assert_int_eq(get("k", s1), last);
	/* at another stamp too: the key's own slot, not a second one */
	last = put("k", s2);
	ck_assert_int_eq(freed_count(), 101);
	ck_assert_int_eq(get("k", s2), last);
}
END_TEST

/* A set with a free or retired slot evicts nothing current: 300 keys over
 * 1024 sets fit, first into free slots, then, after the stamp moved, into
 * the slots of the old stamp's entries (a round robin over the ways would
 * have evicted some of the new keys). */
START_TEST(test_free_and_retired_slots_first)
{
	char key[24];
	int ids[300];

	for (int i = 0; i < 300; i++)
		ids[i] = put(key_n(key, "new-", i), s1);
	for (int i = 0; i < 300; i++)
		ck_assert_int_eq(get(key_n(key, "new-", i), s1), ids[i]);
	ck_assert_int_eq(freed_count(), 0);

	for (int i = 0; i < MANY; i++)   /* every slot holds an entry of s1 */
		put(key_n(key, "old-", i), s1);
	for (int i = 0; i < 300; i++)
		ids[i] = put(key_n(key, "now-", i), s2);
	for (int i = 0; i < 300; i++)
		ck_assert_msg(get(key_n(key, "now-", i), s2) == ids[i],
		              "now-%d evicted while its set held entries of the old stamp", i);
}
END_TEST

/* Far more keys than slots: the cache stays bounded, the newest put always
 * stays, and each value is either still cached or was freed, once. */
START_TEST(test_eviction_bounded)
{
	char key[24];
	int live = 0, puts = 0;

	for (int i = 0; i < MANY; i++) {
		int id = put(key_n(key, "k", i % 6000), s1);
		puts++;
		ck_assert_int_eq(get(key, s1), id);
	}
	for (int i = 0; i < 6000; i++) {
		int id = get(key_n(key, "k", i), s1);
		if (id >= 0) {
			ck_assert_int_eq(fx.freed[id], 0);
			live++;
		}
		ck_assert_int_eq(get(key, s2), -1);
		ck_assert_int_eq(get(key, s1_other_file), -1);
	}
	ck_assert_int_le(live, CAPACITY);
	ck_assert_int_gt(live, 2000);   /* most of 6000 keys stay in 4096 slots */
	ck_assert_int_eq(freed_count(), puts - live);
}
END_TEST

/* store_cache_free frees every value still held, once; of NULL, nothing. */
START_TEST(test_free_frees_every_value)
{
	char key[24];

	for (int i = 0; i < MANY; i++)
		put(key_n(key, "k", i), i % 2 ? s1 : s2);
	store_cache_free(fx.c);
	fx.c = NULL;
	ck_assert_int_eq(freed_count(), fx.next_id);
	store_cache_free(NULL);
}
END_TEST

static Suite *store_cache_suite(void)
{
	Suite *s = suite_create("store_cache");
	TCase *tc = check_tcase("store_cache", setup, teardown);

	tcase_add_test(tc, test_hit_and_miss);
	tcase_add_test(tc, test_stamp_invalidation);
	tcase_add_test(tc, test_unknown_stamp_caches_nothing);
	tcase_add_test(tc, test_put_replaces);
	tcase_add_test(tc, test_free_and_retired_slots_first);
	tcase_add_test(tc, test_eviction_bounded);
	tcase_add_test(tc, test_free_frees_every_value);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(store_cache_suite()));
}
