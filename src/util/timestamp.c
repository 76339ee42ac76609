/* The clocks, and RFC 3339 timestamps written and read. Below the log,
 * which stamps every line with them: includes nothing of ours but its own
 * header. */
#include <time.h>

#include "timestamp.h"

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

void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
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

/* Reads n digits at *p into *v, advancing *p; -1 on a non-digit. */
static int take_digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), the inverse of
 * format_timestamp's calendar. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int parse_timestamp(const char *text, int64_t *ms)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *p = text;
	int y, mo, d, h, mi, sec, frac = 0, oh = 0, om = 0, sign = 0;

	if (take_digits(&p, 4, &y) < 0 || *p++ != '-' || take_digits(&p, 2, &mo) < 0 ||
	    *p++ != '-' || take_digits(&p, 2, &d) < 0 || (*p != 'T' && *p != 't') ||
	    (++p, take_digits(&p, 2, &h)) < 0 || *p++ != ':' || take_digits(&p, 2, &mi) < 0 ||
	    *p++ != ':' || take_digits(&p, 2, &sec) < 0)
		return -1;
	if (*p == '.') {
		int scale = 100;
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (take_digits(&p, 2, &oh) < 0 || *p++ != ':' || take_digits(&p, 2, &om) < 0 ||
		    oh > 23 || om > 59)
			return -1;
	} else {
		return -1;
	}
	if (*p || y < 1 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))) || h > 23 || mi > 59 ||
	    sec > 60)
		return -1;
	*ms = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60000LL +
	      sec * 1000LL + frac - sign * (oh * 60 + om) * 60000LL;
	return 0;
}
