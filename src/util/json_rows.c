/*
 * A list page's records read in place (json_rows.h): strings are decoded
 * into the copy they were read from, which is never longer than their JSON
 * text (RFC 8259 §7: an escape is at least two bytes for the one to six of
 * its UTF-8), so a record costs one pass over its text.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_rows.h"
#include "util.h"

/* The characters that may end a number or a literal (RFC 8259 §2). */
#define SCALAR_END ",}] \t\n\r"
/* The deepest nesting a skipped value may have. */
#define NEST_MAX 32

static char *ws(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static bool hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return false;
	}
	*out = v;
	return true;
}

static char *utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

/* The code point of the \u escape whose hex digits start at *p (a
 * surrogate pair read whole), *p moved past it; 0 when broken or U+0000. */
static unsigned escape_read(char **p)
{
	unsigned cp, lo;

	if (!hex4(*p, &cp))
		return 0;
	*p += 4;
	if (cp >= 0xDC00 && cp < 0xE000)
		return 0;
	if (cp < 0xD800 || cp >= 0xDC00)
		return cp;
	if ((*p)[0] != '\\' || (*p)[1] != 'u' || !hex4(*p + 2, &lo) || lo < 0xDC00 || lo >= 0xE000)
		return 0;
	*p += 6;
	return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
}

/* The string whose text starts at p (after its quote), decoded in place
 * into *value; returns the position after its closing quote, or NULL. */
static char *string_read(char *p, char **value)
{
	static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
	char *o = p;

	*value = p;
	for (;;) {
		unsigned char c = (unsigned char)*p;
		const char *e;
		unsigned cp;

		if (c == '"') {
			*o = '\0';
			return p + 1;
		}
		if (c < 0x20)   /* the text's end, or a control character (§7) */
			return NULL;
		if (c != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		if (*p == 'u') {
			p++;
			if (!(cp = escape_read(&p)))
				return NULL;
			o = utf8_put(o, cp);
		} else if (*p && (e = strchr(plain, *p))) {
			*o++ = decoded[e - plain];
			p++;
		} else {
			return NULL;
		}
	}
}

/* Past the array or object that starts at p, or NULL (its brackets do
 * not pair, or nest deeper than a record's ever do). */
static char *nested_skip(char *p)
{
	char closing[NEST_MAX], *v;
	size_t depth = 0;

	do {
		if (*p == '"') {
			if (!(p = string_read(p + 1, &v)))
				return NULL;
			continue;
		}
		if (!*p)
			return NULL;
		if (*p == '[' || *p == '{') {
			if (depth == NEST_MAX)
				return NULL;
			closing[depth++] = *p == '[' ? ']' : '}';
		} else if (*p == ']' || *p == '}') {
			if (closing[--depth] != *p)
				return NULL;
		}
		p++;
	} while (depth > 0);
	return p;
}

/* The value that starts at p into *value (NULL: null, or nested); returns
 * where it ends, or NULL. A number or literal moves one byte back over the
 * ':' or space before it, to end in a NUL of its own without losing the
 * character after it. */
static char *value_read(char *p, char **value)
{
	size_t len;

	*value = NULL;
	if (*p == '"')
		return string_read(p + 1, value);
	if (*p == '[' || *p == '{')
		return nested_skip(p);
	len = strcspn(p, SCALAR_END);
	if (!len)
		return NULL;
	memmove(p - 1, p, len);
	p[len - 1] = '\0';
	if (strcmp(p - 1, "null") != 0)
		*value = p - 1;
	return p + len;
}

void json_rows_open(struct json_rows *r, const char *text)
{
	char *p;

	r->text = xstrdup(text ? text : "[]");
	p = ws(r->text);
	r->at = p;
	r->state = *p == '[' ? 0 : -1;
	if (r->state)
		return;
	r->at = ws(p + 1);
	if (*r->at == ']')
		r->state = *ws(r->at + 1) ? -1 : 1;
}

static int malformed(struct json_rows *r, const char **values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		values[i] = NULL;
	r->state = -1;
	return -1;
}

int json_rows_next(struct json_rows *r, const char *const *keys, size_t n, const char **values)
{
	char *p = r->at, *key, *value;

	for (size_t i = 0; i < n; i++)
		values[i] = NULL;
	if (r->state)
		return r->state < 0 ? -1 : 0;
	if (*p != '{')
		return malformed(r, values, n);
	p = ws(p + 1);
	while (*p != '}') {
		if (*p != '"' || !(p = string_read(p + 1, &key)))
			return malformed(r, values, n);
		p = ws(p);
		if (*p != ':')
			return malformed(r, values, n);
		if (!(p = value_read(ws(p + 1), &value)))
			return malformed(r, values, n);
		for (size_t i = 0; i < n; i++)
			if (strcmp(keys[i], key) == 0)
				values[i] = value;
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
		else if (*p != '}')
			return malformed(r, values, n);
		else
			break;
		if (*p == '}')   /* a comma before the end */
			return malformed(r, values, n);
	}
	p = ws(p + 1);
	if (*p == ']')
		r->state = *ws(p + 1) ? -1 : 1;
	else if (*p == ',')
		p = ws(p + 1);
	else
		return malformed(r, values, n);
	if (r->state < 0 || (!r->state && *p != '{'))
		return malformed(r, values, n);
	r->at = p;
	return 1;
}

void json_rows_close(struct json_rows *r)
{
	free(r->text);   /* a list's records: no secret, which no record holds */
	r->text = r->at = NULL;
}
