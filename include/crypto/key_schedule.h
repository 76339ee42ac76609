#ifndef EDGEAUTH_KEY_SCHEDULE_H
#define EDGEAUTH_KEY_SCHEDULE_H
/*
 * Which signing key signs when, and how long each stays published
 * (docs/tokens.md §"Signing keys"), as pure functions of the rows and the clock: the store's
 * writes apply them in their transactions, the key ring to the keys in
 * memory, `edgeauth key list` to the rows it prints. One definition each.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "jwt.h"

/* publish_until of a key no newer key is scheduled to take over from. */
#define KEY_NO_BOUND INT64_MAX
/* Added to every publication bound: a request that read the store just
 * before a rotation may still sign with the old key a moment after the new
 * one's activation, and exp has whole seconds. */
#define KEY_PUBLISH_MARGIN_MS 1000

/* A signing key as the store holds it. Times in ms since the epoch. */
struct key_row {
	char kid[SECRET_HASH_LEN + 1];
	enum jwt_alg alg;
	int64_t created_at;
	int64_t activates_at;     /* signs from then (see key_schedule_signer) */
	int64_t publish_until;    /* KEY_NO_BOUND, or when it leaves JWKS */
	int64_t retired_at;       /* 0: not retired */
	unsigned char *sealed;    /* the private key, crypto_seal'd; owned, may be NULL */
	size_t sealed_len;
};

enum key_state {
	KEY_PENDING,      /* published, signs from activates_at */
	KEY_ACTIVE,       /* signs now */
	KEY_SUPERSEDED,   /* published until publish_until, signs no more */
	KEY_EXPIRED,      /* its publication is over */
	KEY_RETIRED,      /* removed at once (edgeauth key retire) */
};

/* Published now: not retired, and now before publish_until. Only a
 * published key signs or verifies. */
bool key_schedule_published(const struct key_row *k, int64_t now);
/* The index in rows[0..n) of the key that signs alg at now, -1 for none:
 * of the published keys of alg, the one activated last (activates_at, then
 * created_at, then kid), or, when none is activated yet, the one that
 * activates first (after the active key was retired, the next one signs at
 * once rather than none). */
long key_schedule_signer(const struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now);
enum key_state key_schedule_state(const struct key_row *rows, size_t n, size_t i, int64_t now);
/* "pending", "active", "superseded", "expired", "retired". */
const char *key_state_name(enum key_state s);
/* Sets publish_until of the published keys of alg in rows[0..n) after a key
 * was added or retired: a key that a later one (in activation order) takes
 * over from stays published until that one's activates_at + lifetime_ms +
 * KEY_PUBLISH_MARGIN_MS, never less than it was already promised; the last
 * one has KEY_NO_BOUND (it goes on signing). lifetime_ms: the longest
 * lifetime of what a key of alg signs. */
void key_schedule_bounds(struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now,
                         int64_t lifetime_ms);
/* How many keys of alg are published at now. */
size_t key_schedule_count(const struct key_row *rows, size_t n, enum jwt_alg alg, int64_t now);

#endif
