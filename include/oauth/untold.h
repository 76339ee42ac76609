#ifndef EDGEAUTH_UNTOLD_H
#define EDGEAUTH_UNTOLD_H
/*
 * Refresh rotations whose outcome the client never learned: the rotation's
 * write failed after it went out (a lost database connection, a timeout),
 * so it may have committed while the client was answered 503. A retry of
 * that token is then taken as a repeat within the refresh grace (docs/tokens.md
 * "Refresh grace"), once, while its successor is unused, rather than as
 * reuse. Per node and in memory: a fixed number of slots, the oldest
 * forgotten first; refresh token hashes only. Loop thread only.
 */
#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"

/* Rotations remembered at once: an outage's worth of failed rotations. */
#define UNTOLD_SLOTS 4096
/* How long after the failed rotation its token may be retried so. */
#define UNTOLD_WINDOW_S 300

struct untold;

struct untold *untold_new(void);
void untold_free(struct untold *u);
/* Notes that the rotation of the refresh token hash failed at now_ms
 * (monotonic). */
void untold_note(struct untold *u, const char *hash, int64_t now_ms);
/* Whether hash was noted within UNTOLD_WINDOW_S before now_ms. A NULL u
 * holds nothing. */
bool untold_holds(const struct untold *u, const char *hash, int64_t now_ms);

#endif
