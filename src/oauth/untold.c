/*
 * Rotations whose outcome the client never learned (untold.h): a ring of
 * refresh token hashes with the time of their failed rotation. Looked up
 * only when a used token comes back, so a scan is cheap enough; it never
 * holds a token itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "untold.h"
#include "util.h"

struct untold_slot {
	char hash[SECRET_HASH_LEN + 1];
	int64_t at_ms;
};

struct untold {
	struct untold_slot slots[UNTOLD_SLOTS];
	size_t next;   /* the slot the next note takes: the oldest */
};

struct untold *untold_new(void)
{
	return xcalloc(1, sizeof(struct untold));
}

void untold_free(struct untold *u)
{
	free(u);
}

void untold_note(struct untold *u, const char *hash, int64_t now_ms)
{
	struct untold_slot *s;

	if (!u)
		return;
	s = &u->slots[u->next];
	u->next = (u->next + 1) % UNTOLD_SLOTS;
	snprintf(s->hash, sizeof s->hash, "%s", hash);
	s->at_ms = now_ms;
}

bool untold_holds(const struct untold *u, const char *hash, int64_t now_ms)
{
	if (!u)
		return false;
	for (size_t i = 0; i < UNTOLD_SLOTS; i++) {
		const struct untold_slot *s = &u->slots[i];

		if (s->hash[0] && now_ms - s->at_ms <= UNTOLD_WINDOW_S * 1000LL &&
		    strcmp(s->hash, hash) == 0)
			return true;
	}
	return false;
}
