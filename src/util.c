/* Allocation that aborts on failure, and time. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util.h"

static void die_oom(void)
{
	log_error("out of memory");
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die_oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		die_oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_oom();
	return p;
}

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Writes n as exactly `digits` decimal digits at p. */
static char *put_digits(char *p, unsigned n, int digits)
{
	for (int i = digits - 1; i >= 0; i--, n /= 10)
		p[i] = (char)('0' + n % 10);
	return p + digits;
}

/* RFC 3339 writes four-digit years: 0000-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z. */
#define TIMESTAMP_MIN_MS (-62167219200000LL)
#define TIMESTAMP_MAX_MS 253402300799999LL
#define DAY_MS 86400000LL

/* Every record carries two timestamps, so a list page formats dozens:
 * gmtime_r, strftime and snprintf cost a microsecond each time. The date is
 * the proleptic Gregorian calendar's, by the days-to-civil arithmetic of
 * H. Hinnant's "chrono-Compatible Low-Level Date Algorithms", with floor
 * division so that times before 1970 count back from it. The time comes
 * from the store, where another tool may have written anything: one that
 * RFC 3339 cannot write is clamped to the first or last it can. */
void format_timestamp(int64_t ms, char buf[TIMESTAMP_LEN])
{
	int64_t days, in_day, z, era, doe, yoe, doy, mp, y;
	unsigned month, mday, secs;
	char *p = buf;

	if (ms < TIMESTAMP_MIN_MS)
		ms = TIMESTAMP_MIN_MS;
	else if (ms > TIMESTAMP_MAX_MS)
		ms = TIMESTAMP_MAX_MS;
	days = ms / DAY_MS - (ms % DAY_MS < 0);
	in_day = ms - days * DAY_MS;
	z = days + 719468;   /* days since 0000-03-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	mday = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	y = yoe + era * 400 + (month <= 2);
	secs = (unsigned)(in_day / 1000);
	p = put_digits(p, (unsigned)y, 4);
	*p++ = '-';
	p = put_digits(p, month, 2);
	*p++ = '-';
	p = put_digits(p, mday, 2);
	*p++ = 'T';
	p = put_digits(p, secs / 3600, 2);
	*p++ = ':';
	p = put_digits(p, secs / 60 % 60, 2);
	*p++ = ':';
	p = put_digits(p, secs % 60, 2);
	*p++ = '.';
	p = put_digits(p, (unsigned)(in_day % 1000), 3);
	*p++ = 'Z';
	*p = '\0';
}
