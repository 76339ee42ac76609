#ifndef EDGEAUTH_TIMESTAMP_H
#define EDGEAUTH_TIMESTAMP_H
/*
 * The clocks, and RFC 3339 timestamps written and read. The lowest module:
 * the log stamps its lines with it, and util.h passes it on to everyone.
 */
#include <stdint.h>

/* Wall-clock time in milliseconds and seconds since the epoch. */
int64_t now_ms(void);
/* Monotonic time in microseconds, for measuring durations. */
int64_t mono_us(void);
/* Sleeps ms milliseconds (0..999) on the calling thread: never on the
 * loop's; the CLI's backup and restore pace themselves with it. */
void pause_ms(int ms);

/* Writes ms (since the epoch, negative before it) as an RFC 3339 UTC
 * timestamp with milliseconds ("2026-11-22T12:00:00.123Z"), always 24
 * characters, into buf; a time before year 0000 or after 9999 as the first
 * or last one of those years. */
#define TIMESTAMP_LEN 25
void format_timestamp(int64_t ms, char buf[TIMESTAMP_LEN]);
/* Reads an RFC 3339 date-time ("2026-11-22T12:00:00Z", with an optional
 * fraction of a second, "t" and "z" in any case, or a "+01:00" offset) of
 * the years 0001..9999 into *ms. 0, or -1 when text is anything else. */
int parse_timestamp(const char *text, int64_t *ms);

#endif
