#ifndef EDGEAUTH_UTIL_H
#define EDGEAUTH_UTIL_H
/*
 * Small things every module needs. Allocation failure aborts (xmalloc and
 * friends), so no code path is left half-handled on out-of-memory.
 */
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string; caller frees */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A string's hash for in-memory tables (djb2): fast, not for hostile keys
 * where collisions would matter. Inline: the store's cache hashes on every
 * read. */
static inline size_t str_hash(const char *s)
{
	size_t h = 5381;

	for (const char *p = s; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return h;
}

/* Wall-clock time in milliseconds and seconds since the epoch. */
int64_t now_ms(void);
/* Monotonic time in microseconds, for measuring durations. */
int64_t mono_us(void);

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
