/* Which signing key signs when, and until when each is published
 * (key_schedule.h). No I/O: rows and the clock in, an answer out. */
#include <stdlib.h>
#include <string.h>

#include "key_schedule.h"
#include "util.h"

bool key_schedule_published(const struct key_row *k, int64_t now)
{
	return k->retired_at == 0 && now < k->publish_until;
}

/* Activation order: activates_at, then created_at, then kid. <0, 0, >0. */
static int activation_cmp(const struct key_row *a, const struct key_row *b)
{
	if (a->activates_at != b->activates_at)
		return a->activates_at < b->activates_at ? -1 : 1;
	if (a->created_at != b->created_at)
		return a->created_at < b->created_at ? -1 : 1;
	return strcmp(a->kid, b->kid);
}

static bool in_play(const struct key_row *k, enum jwt_alg alg, int64_t now)
{
	return k->alg == alg && key_schedule_published(k, now);
}

long key_schedule_signer(const struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now)
{
	long last_active = -1, first_pending = -1;

	for (size_t i = 0; i < n; i++) {
		if (!in_play(&rows[i], alg, now))
			continue;
		if (rows[i].activates_at <= now) {
			if (last_active < 0 || activation_cmp(&rows[i], &rows[last_active]) > 0)
				last_active = (long)i;
		} else if (first_pending < 0 || activation_cmp(&rows[i], &rows[first_pending]) < 0) {
			first_pending = (long)i;
		}
	}
	return last_active >= 0 ? last_active : first_pending;
}

enum key_state key_schedule_state(const struct key_row *rows, size_t n, size_t i, int64_t now)
{
	const struct key_row *k = &rows[i];

	if (k->retired_at != 0)
		return KEY_RETIRED;
	if (!key_schedule_published(k, now))
		return KEY_EXPIRED;
	if (key_schedule_signer(rows, n, k->alg, now) == (long)i)
		return KEY_ACTIVE;
	return k->activates_at > now ? KEY_PENDING : KEY_SUPERSEDED;
}

const char *key_state_name(enum key_state s)
{
	static const char *const names[] = {
		[KEY_PENDING] = "pending", [KEY_ACTIVE] = "active", [KEY_SUPERSEDED] = "superseded",
		[KEY_EXPIRED] = "expired", [KEY_RETIRED] = "retired",
	};
	return names[s];
}

/* The published key of alg next after rows[i] in activation order, or -1. */
static long next_in_play(const struct key_row *rows, size_t n, size_t i, int64_t now)
{
	long next = -1;

	for (size_t j = 0; j < n; j++)
		if (j != i && in_play(&rows[j], rows[i].alg, now) &&
		    activation_cmp(&rows[j], &rows[i]) > 0 &&
		    (next < 0 || activation_cmp(&rows[j], &rows[next]) < 0))
			next = (long)j;
	return next;
}

void key_schedule_bounds(struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now,
                         int64_t lifetime_ms)
{
	int64_t *bound = xcalloc(n ? n : 1, sizeof *bound);

	/* computed for all first: a key's bound depends on the others' being
	 * published, which must not change midway */
	for (size_t i = 0; i < n; i++) {
		long next;

		bound[i] = rows[i].publish_until;
		if (!in_play(&rows[i], alg, now))
			continue;
		next = next_in_play(rows, n, i, now);
		if (next < 0) {
			bound[i] = KEY_NO_BOUND;
		} else {
			int64_t b = rows[next].activates_at + lifetime_ms + KEY_PUBLISH_MARGIN_MS;

			if (rows[i].publish_until == KEY_NO_BOUND || rows[i].publish_until < b)
				bound[i] = b;
		}
	}
	for (size_t i = 0; i < n; i++)
		rows[i].publish_until = bound[i];
	free(bound);
}

size_t key_schedule_count(const struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += in_play(&rows[i], alg, now);
	return count;
}
