#ifndef EDGEAUTH_THROTTLE_H
#define EDGEAUTH_THROTTLE_H
/*
 * Failure counters for sign-in, per account and per client address: past
 * max failures within a window the key is refused until the window ends.
 * The table has a fixed number of slots, so memory is bounded whatever an
 * attacker sends; keys are stored as SHA-256 digests. Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct throttle;

struct throttle *throttle_new(size_t slots, int max_failures, int window_s);
void throttle_free(struct throttle *t);
/* New limits for the counts to come (a SIGHUP reload); what was counted
 * stays. */
void throttle_set_limit(struct throttle *t, int max_failures, int window_s);
/* Seconds until key may try again (> 0), or 0 when it may now. */
int throttle_wait_s(struct throttle *t, const char *key, int64_t now_ms);
/* Counts a failure of key. True when this failure starts the key's
 * refusal (it reaches the limit): once per key and window. */
bool throttle_fail(struct throttle *t, const char *key, int64_t now_ms);
/* Takes one counted failure of key back (an attempt that never ran). */
void throttle_undo(struct throttle *t, const char *key);
/* Forgets key (a successful sign-in). */
void throttle_reset(struct throttle *t, const char *key);
/* A bound on uses rather than failures (docs/tokens.md "Limits"): counts a use of
 * key and returns 0 while it is under the limit, else the seconds until it
 * may be used again (> 0), counting nothing. A NULL t bounds nothing. */
int throttle_take(struct throttle *t, const char *key, int64_t now_ms);
/* The window of the bounds of what one session or one sign-in writes. */
#define THROTTLE_BOUND_WINDOW_S 60

#endif
