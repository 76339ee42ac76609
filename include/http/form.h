#ifndef EDGEAUTH_FORM_H
#define EDGEAUTH_FORM_H
/*
 * application/x-www-form-urlencoded: form bodies and query strings, which
 * share the format, and the percent-decoding under it. form_parse fills an
 * evkeyvalq; the form_get and form_read_* functions read it into checked
 * values. Every reader's failure is invalid_params with a sentence that
 * names the key and never repeats the value (it could be a password).
 * Strings handed out are borrowed from the evkeyvalq and live as long as it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/keyvalq_struct.h>

#include "error.h"

/* Splits data[0..len) on '&' and '=' and percent-decodes key and value ('+'
 * is a space); an empty pair is skipped. A bad escape, U+0000, invalid
 * UTF-8 or an empty key fails (-1), the pairs before it already appended.
 * Appends to q (free with evhttp_clear_headers). */
int form_parse(const char *data, size_t len, struct evkeyvalq *q);

/* Percent-decodes s[0..len) with libevent (plus_is_space for forms and
 * queries, not for path segments). Returns a new string, or NULL on a bad
 * escape, U+0000 or invalid UTF-8. */
char *form_percent_decode(const char *s, size_t len, bool plus_is_space);

/* True when the Content-Type header's media type is `type` (parameters
 * such as charset ignored, case-insensitive): which parser, form or JSON, a
 * body is for. */
bool form_content_type_is(const char *header, const char *type);

/* The value of key, or *out untouched when key is absent. A key given twice
 * fails. */
int form_get(const struct evkeyvalq *q, const char *key, const char **out,
             struct api_error *err);
/* page_num >= 1 (default 1), page_size 1..PAGE_SIZE_MAX (default PAGE_SIZE_DEFAULT). */
int form_read_page(const struct evkeyvalq *q, long *page_num, long *page_size,
                   struct api_error *err);
/* Boolean "true"/"false": *out -1 when absent, else 0/1. */
int form_read_bool(const struct evkeyvalq *q, const char *key, int *out,
                   struct api_error *err);
/* One of allowed[0..n) (exact match): *out is its index, default_index when
 * absent. default_index < n. */
/* An RFC 3339 date-time (parse_timestamp) as ms: *out untouched when key
 * is absent or empty. */
int form_read_time(const struct evkeyvalq *q, const char *key, int64_t *out,
                   struct api_error *err);
int form_read_enum(const struct evkeyvalq *q, const char *key,
                   const char *const *allowed, size_t n, size_t default_index,
                   size_t *out, struct api_error *err);

#endif
