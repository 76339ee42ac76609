/*
 * Checks on single values: UTF-8, codes, emails, URLs, booleans and integers
 * from query strings and bodies. Pure functions over caller-owned strings:
 * nothing here allocates, keeps state or looks at the locale.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "validate.h"

/*
 * Decodes one code point at s[0..len). Returns its length in bytes (1 to 4)
 * and sets *cp, or 0 when the bytes there are not a valid UTF-8 sequence
 * (RFC 3629 §3-4): a stray continuation byte, a truncated sequence, an
 * overlong form, a UTF-16 surrogate, or a value above U+10FFFF.
 */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	uint32_t c, min;
	size_t n, i;

	if (len == 0)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;  /* 80..BF continuation, C0/C1 always overlong, F5..FF */
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* U+0000 is a valid code point: callers that must refuse it (JSON strings,
 * decoded query values) compare the decoded length with strlen(). */
bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	while (len > 0) {
		if (*p < 0x80) {   /* ASCII, most text: no decoding (docs/BENCHMARKS.md) */
			p++;
			len--;
			continue;
		}
		n = utf8_decode(p, len, &cp);
		if (n == 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Counts the bytes that start a code point; only meaningful on valid UTF-8. */
size_t utf8_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p; p++)
		if ((*p & 0xc0) != 0x80)
			n++;
	return n;
}

static bool is_ascii_alpha(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_ascii_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ascii_hex(unsigned char c)
{
	return is_ascii_digit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

bool validate_code(const char *s)
{
	size_t n;

	for (n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		if (!is_ascii_alpha(c) && !is_ascii_digit(c) && c != '-' && c != '_')
			return false;
		if (n + 1 > CODE_MAX_CHARS)
			return false;
	}
	return n > 0;
}

/*
 * What "no spaces or control characters" means for an email: C0 and C1
 * controls, DEL, and the Unicode white space (plus ZERO WIDTH SPACE and the
 * BOM), so that no look-alike of a space slips into a sign-in name.
 */
static bool is_space_or_control(uint32_t cp)
{
	return cp <= 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200b) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

/* docs/api.md §"Field values": "local@domain, no spaces". Nothing stricter: RFC 5321
 * local parts are too varied to police, and delivery proves the rest. */
bool validate_email(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, chars = 0, at = SIZE_MAX;
	uint32_t cp;
	size_t n;

	while (i < len) {
		n = utf8_decode(p + i, len - i, &cp);
		if (n == 0 || is_space_or_control(cp))
			return false;
		if (cp == '@') {
			if (at != SIZE_MAX)
				return false;
			at = i;
		}
		if (++chars > EMAIL_MAX_CHARS)
			return false;
		i += n;
	}
	return at != SIZE_MAX && at > 0 && at + 1 < len;
}

/* RFC 3986 §2.3 unreserved, §2.2 sub-delims. */
static bool is_unreserved(unsigned char c)
{
	return is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '.' ||
	       c == '_' || c == '~';
}

static bool is_sub_delim(unsigned char c)
{
	return c != '\0' && strchr("!$&'()*+,;=", c) != NULL;
}

/* True when p starts a "%" HEXDIG HEXDIG triplet (RFC 3986 §2.1). */
static bool is_pct_encoded(const char *p)
{
	return p[0] == '%' && is_ascii_hex((unsigned char)p[1]) &&
	       is_ascii_hex((unsigned char)p[2]);
}

/*
 * Checks [p, end) against one of the RFC 3986 character sets: unreserved,
 * sub-delims, pct-encoded (when allow_pct) and the bytes in extra.
 */
static bool span_valid(const char *p, const char *end, bool allow_pct,
                       const char *extra)
{
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == '%') {
			if (!allow_pct || end - p < 3 || !is_pct_encoded(p))
				return false;
			p += 3;
			continue;
		}
		if (!is_unreserved(c) && !is_sub_delim(c) &&
		    (c == '\0' || strchr(extra, c) == NULL))
			return false;
		p++;
	}
	return true;
}

/* RFC 3986 §3.2.2 IP-literal: only IPv6 addresses (no zone, no IPvFuture). */
static bool ip_literal_valid(const char *p, const char *end)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned char addr[16];
	size_t n = (size_t)(end - p);

	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return inet_pton(AF_INET6, buf, addr) == 1;
}

/*
 * RFC 3986 §3: "http" / "https" "://" authority path-abempty ["?" query]
 * ["#" fragment], checked by hand so that nothing allocates. Only ASCII is
 * accepted (anything else must be percent-encoded), which also rules out
 * spaces and control characters; a port, when given, is 1 to 65535 digits
 * worth; a percent-encoded host is refused, as no real one needs it.
 */
bool validate_http_url(const char *s)
{
	size_t len = strlen(s);
	const char *p, *end = s + len, *auth_end, *at, *host, *host_end, *q;

	if (len == 0 || len > URL_MAX_CHARS)
		return false;
	if (strncasecmp(s, "http://", 7) == 0)
		p = s + 7;
	else if (strncasecmp(s, "https://", 8) == 0)
		p = s + 8;
	else
		return false;

	/* authority = [ userinfo "@" ] host [ ":" port ] */
	auth_end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(auth_end - p));
	if (at) {
		if (!span_valid(p, at, true, ":"))
			return false;
		host = at + 1;
	} else {
		host = p;
	}
	if (*host == '[') {
		host_end = memchr(host, ']', (size_t)(auth_end - host));
		if (!host_end || !ip_literal_valid(host + 1, host_end))
			return false;
		host_end++;
	} else {
		host_end = memchr(host, ':', (size_t)(auth_end - host));
		if (!host_end)
			host_end = auth_end;
		if (host_end == host || !span_valid(host, host_end, false, ""))
			return false;
	}
	if (host_end < auth_end) {
		long port = 0;
		if (*host_end != ':' || host_end + 1 == auth_end)
			return false;
		for (q = host_end + 1; q < auth_end; q++) {
			if (!is_ascii_digit((unsigned char)*q))
				return false;
			port = port * 10 + (*q - '0');
			if (port > 65535)
				return false;
		}
	}

	/* path-abempty, query, fragment: pchar plus "/" (and "?" after the path) */
	q = auth_end + strcspn(auth_end, "?#");
	if (!span_valid(auth_end, q, true, ":@/"))
		return false;
	if (*q == '?') {
		p = q + 1;
		q = p + strcspn(p, "#");
		if (!span_valid(p, q, true, ":@/?"))
			return false;
	}
	if (*q == '#' && !span_valid(q + 1, end, true, ":@/?"))
		return false;
	return true;
}

int parse_bool(const char *s, bool *out)
{
	if (strcmp(s, "true") == 0)
		*out = true;
	else if (strcmp(s, "false") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

/* Overflow is checked before each step, so no input can wrap around. */
int parse_long_range(const char *s, long min, long max, long *out)
{
	long v = 0;
	const char *p;

	if (*s == '\0')
		return -1;
	for (p = s; *p; p++) {
		int d;
		if (!is_ascii_digit((unsigned char)*p))
			return -1;
		d = *p - '0';
		if (v > (LONG_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

bool validate_code_challenge(const char *c)
{
	size_t n = strlen(c);

	if (n < 43 || n > 128)
		return false;
	return strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") == n;
}

size_t http_token_span(const char *s)
{
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                 "!#$%&'*+-.^_`|~");
}
