#ifndef EDGEAUTH_JSON_ROWS_H
#define EDGEAUTH_JSON_ROWS_H
/*
 * The records of a list's page (struct page's data: a JSON array of
 * objects, as the store writes it) read one at a time, a few named fields
 * each, without building a tree. A page of the console shows ten records of
 * a dozen fields; parsing them into jansson values cost more than the
 * store's read of the page (docs/BENCHMARKS.md, "The console's pages").
 * The text is read as RFC 8259 says; a value that is not a string is
 * handed out as its JSON text (true, 12), a nested array or object is
 * skipped (NULL), and so is null.
 */
#include <stddef.h>

struct json_rows {
	char *text;   /* a copy, decoded in place */
	char *at;     /* where the next record starts */
	int state;    /* 0 reading, 1 at the end, -1 malformed */
};

/* Starts reading the array text (NULL: an empty page). */
void json_rows_open(struct json_rows *r, const char *text);
/* The next record's values of keys[0..n) into values[0..n) (NULL: absent,
 * null, or an array or object). The values are good until the next call
 * or json_rows_close. 1: a record was read; 0: no more; -1: the text is
 * not an array of objects, or a string holds U+0000 or a broken escape. */
int json_rows_next(struct json_rows *r, const char *const *keys, size_t n, const char **values);
void json_rows_close(struct json_rows *r);

#endif
