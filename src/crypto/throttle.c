/*
 * A fixed table of failure counters, open addressing over SHA-256 digests of
 * the key behind a random per-table secret: an attacker can neither aim a
 * collision at someone else's account nor compute, offline, keys whose slots
 * crowd a victim's probe window and evict its counter. A window
 * starts with a key's first failure; when the probe finds no free or stale
 * slot, the least recently failed one in reach is reused.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "throttle.h"
#include "crypto.h"
#include "util.h"

#define PROBE_LIMIT 16

struct slot {
	unsigned char digest[32];
	int64_t first_ms;   /* the window's start; 0: empty */
	int64_t last_ms;
	int failures;
};

struct throttle {
	unsigned char secret[32];   /* random, this process only */
	struct slot *slots;
	size_t n;
	int max_failures;
	int64_t window_ms;
};

struct throttle *throttle_new(size_t slots, int max_failures, int window_s)
{
	struct throttle *t = xcalloc(1, sizeof *t);

	crypto_random(t->secret, sizeof t->secret);
	t->n = slots ? slots : 1;
	t->slots = xcalloc(t->n, sizeof *t->slots);
	t->max_failures = max_failures;
	t->window_ms = (int64_t)window_s * 1000;
	return t;
}

void throttle_set_limit(struct throttle *t, int max_failures, int window_s)
{
	t->max_failures = max_failures;
	t->window_ms = (int64_t)window_s * 1000;
}

void throttle_free(struct throttle *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static void digest_of(const struct throttle *t, const char *key, unsigned char out[32])
{
	size_t n = strlen(key);
	unsigned char *buf = xmalloc(sizeof t->secret + n);

	memcpy(buf, t->secret, sizeof t->secret);
	memcpy(buf + sizeof t->secret, key, n);
	crypto_sha256(buf, sizeof t->secret + n, out);
	free(buf);
}

static bool stale(const struct throttle *t, const struct slot *s, int64_t now_ms)
{
	return s->first_ms == 0 || now_ms - s->first_ms >= t->window_ms;
}

/* The key's slot, or NULL; with create, a slot for it (reusing a stale or
 * the oldest one within the probe). */
static struct slot *find(struct throttle *t, const char *key, int64_t now_ms, bool create)
{
	unsigned char d[32];
	uint64_t h;
	struct slot *reuse = NULL;

	digest_of(t, key, d);
	memcpy(&h, d, sizeof h);
	for (size_t i = 0; i < PROBE_LIMIT && i < t->n; i++) {
		struct slot *s = &t->slots[(h + i) % t->n];
		if (s->first_ms && !memcmp(s->digest, d, sizeof d))
			return s;
		if (!reuse || (!stale(t, reuse, now_ms) &&
		               (stale(t, s, now_ms) || s->last_ms < reuse->last_ms)))
			reuse = s;
	}
	if (!create)
		return NULL;
	memset(reuse, 0, sizeof *reuse);
	memcpy(reuse->digest, d, sizeof d);
	return reuse;
}

/* The seconds s's window still refuses for, 0 when it does not. */
static int wait_of(const struct throttle *t, const struct slot *s, int64_t now_ms)
{
	if (!s || stale(t, s, now_ms) || s->failures < t->max_failures)
		return 0;
	return (int)((s->first_ms + t->window_ms - now_ms + 999) / 1000);
}

int throttle_wait_s(struct throttle *t, const char *key, int64_t now_ms)
{
	return wait_of(t, find(t, key, now_ms, false), now_ms);
}

/* Counts one failure in s, the slot of its key. */
static bool count_failure(const struct throttle *t, struct slot *s, int64_t now_ms)
{
	if (stale(t, s, now_ms)) {
		s->first_ms = now_ms;
		s->failures = 0;
	}
	s->failures++;
	s->last_ms = now_ms;
	return s->failures == t->max_failures;
}

bool throttle_fail(struct throttle *t, const char *key, int64_t now_ms)
{
	return count_failure(t, find(t, key, now_ms, true), now_ms);
}

void throttle_undo(struct throttle *t, const char *key)
{
	struct slot *s = find(t, key, 0, false);
	if (s && s->failures > 0)
		s->failures--;
}

/* One digest of the key, not two: this runs on every silent sign-in
 * (docs/BENCHMARKS.md, "Comparisons"). */
int throttle_take(struct throttle *t, const char *key, int64_t now_ms)
{
	struct slot *s;
	int wait;

	if (!t)
		return 0;
	s = find(t, key, now_ms, true);
	wait = wait_of(t, s, now_ms);
	if (wait == 0)
		count_failure(t, s, now_ms);
	return wait;
}

void throttle_reset(struct throttle *t, const char *key)
{
	struct slot *s = find(t, key, 0, false);
	if (s)
		memset(s, 0, sizeof *s);
}
