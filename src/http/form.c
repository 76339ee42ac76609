/*
 * Form bodies and query strings (application/x-www-form-urlencoded): the
 * parser, percent-decoding, and the checked readers of a parsed form. A
 * failure never repeats the value: form values carry passwords and codes.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <event2/http.h>

#include "crypto.h"
#include "form.h"
#include "timestamp.h"
#include "util.h"
#include "validate.h"

/*
 * The largest page_num accepted: (page_num - 1) * page_size must fit in a
 * long for whoever computes the offset. Larger pages would be empty anyway.
 */
#define PAGE_NUM_MAX (LONG_MAX / PAGE_SIZE_MAX)

bool form_content_type_is(const char *header, const char *type)
{
	size_t n = strlen(type);

	if (!header)
		return false;
	while (*header == ' ' || *header == '\t')
		header++;
	if (strncasecmp(header, type, n) != 0)
		return false;
	header += n;
	while (*header == ' ' || *header == '\t')
		header++;
	return *header == '\0' || *header == ';';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

char *form_percent_decode(const char *s, size_t len, bool plus_is_space)
{
	char *raw, *out;
	size_t out_len = 0;
	bool coded = false;

	if (memchr(s, '\0', len))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && (i + 2 >= len || !is_hex(s[i + 1]) || !is_hex(s[i + 2])))
			return NULL;
		coded = coded || s[i] == '%' || (plus_is_space && s[i] == '+');
	}
	/* Most values hold no escape and are their own decoding: copied, not
	 * through evhttp_uridecode and its copy (docs/BENCHMARKS.md). */
	if (!coded) {
		out = xstrndup(s, len);
		out_len = len;
	} else {
		raw = xstrndup(s, len);
		out = evhttp_uridecode(raw, plus_is_space, &out_len);
		crypto_free_wiped(raw);   /* a form's values: passwords, secrets, codes */
		if (!out)
			return NULL;
	}
	if (strlen(out) != out_len || !utf8_valid(out, out_len)) {
		crypto_free_wiped(out);
		return NULL;
	}
	return out;
}

int form_parse(const char *data, size_t len, struct evkeyvalq *q)
{
	size_t i = 0;

	while (i < len) {
		size_t end = i, eq;
		struct evkeyval *kv;
		char *key, *value;

		while (end < len && data[end] != '&')
			end++;
		if (end == i) {   /* empty pair ("a=1&&b=2"): skip, as browsers do */
			i = end + 1;
			continue;
		}
		for (eq = i; eq < end && data[eq] != '='; eq++)
			;
		key = form_percent_decode(data + i, eq - i, true);
		value = form_percent_decode(data + (eq < end ? eq + 1 : end),
		                            eq < end ? end - eq - 1 : 0, true);
		if (!key || !value || !*key) {
			crypto_free_wiped(key);
			crypto_free_wiped(value);
			return -1;
		}
		kv = xcalloc(1, sizeof *kv);
		kv->key = key;
		kv->value = value;
		TAILQ_INSERT_TAIL(q, kv, next);
		i = end + 1;
	}
	return 0;
}

/*
 * A key given twice is refused rather than resolved, so that no two layers
 * (a proxy, a cache, us) can disagree on which one counts. Values must be
 * UTF-8 (they reach SQL and responses); an escaped %00 shows up as a value
 * shorter than what was sent and cannot be told apart here.
 */
int form_get(const struct evkeyvalq *q, const char *key, const char **out,
             struct api_error *err)
{
	const struct evkeyval *kv;
	const char *found = NULL;

	for (kv = q->tqh_first; kv != NULL; kv = kv->next.tqe_next) {
		if (strcmp(kv->key, key) != 0)
			continue;
		if (found != NULL)
			return api_fail(err, E_INVALID_PARAMS,
			                "%s must not be given more than once", key);
		found = kv->value;
	}
	if (found == NULL)
		return 0;
	if (!utf8_valid(found, strlen(found)))
		return api_fail(err, E_INVALID_PARAMS, "%s must be valid UTF-8", key);
	*out = found;
	return 0;
}

/* docs/api.md §"Lists": page_num >= 1, page_size 1..100. */
int form_read_page(const struct evkeyvalq *q, long *page_num, long *page_size,
                   struct api_error *err)
{
	const char *num = NULL, *size = NULL;

	*page_num = 1;
	*page_size = PAGE_SIZE_DEFAULT;
	if (form_get(q, "page_num", &num, err) < 0 ||
	    form_get(q, "page_size", &size, err) < 0)
		return -1;
	if (num != NULL && parse_long_range(num, 1, PAGE_NUM_MAX, page_num) < 0)
		return api_fail(err, E_INVALID_PARAMS,
		                "page_num must be an integer from 1 to %ld", PAGE_NUM_MAX);
	if (size != NULL && parse_long_range(size, 1, PAGE_SIZE_MAX, page_size) < 0)
		return api_fail(err, E_INVALID_PARAMS,
		                "page_size must be an integer from 1 to %d", PAGE_SIZE_MAX);
	return 0;
}

int form_read_bool(const struct evkeyvalq *q, const char *key, int *out,
                   struct api_error *err)
{
	const char *s = NULL;
	bool b;

	*out = -1;
	if (form_get(q, key, &s, err) < 0)
		return -1;
	if (s == NULL)
		return 0;
	if (parse_bool(s, &b) < 0)
		return api_fail(err, E_INVALID_PARAMS, "%s must be true or false", key);
	*out = b ? 1 : 0;
	return 0;
}

int form_read_time(const struct evkeyvalq *q, const char *key, int64_t *out,
                   struct api_error *err)
{
	const char *s = NULL;

	if (form_get(q, key, &s, err) < 0)
		return -1;
	if (s && *s && parse_timestamp(s, out) < 0)
		return api_fail(err, E_INVALID_PARAMS,
		                "%s must be an RFC 3339 date-time (2026-11-22T12:00:00Z)", key);
	return 0;
}

/* Fails with a sentence that lists the allowed values when they fit in one. */
static int enum_fail(const char *key, const char *const *allowed, size_t n,
                     struct api_error *err)
{
	char list[API_ERROR_DESCRIPTION_MAX];
	size_t used = 0, i;
	int w;

	list[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
		             allowed[i]);
		if (w < 0 || (size_t)w >= sizeof list - used)
			return api_fail(err, E_INVALID_PARAMS, "%s has a value that is not allowed",
			                key);
		used += (size_t)w;
	}
	return api_fail(err, E_INVALID_PARAMS, "%s must be one of %s", key, list);
}

int form_read_enum(const struct evkeyvalq *q, const char *key,
                   const char *const *allowed, size_t n, size_t default_index,
                   size_t *out, struct api_error *err)
{
	const char *s = NULL;
	size_t i;

	assert(default_index < n);
	*out = default_index;
	if (form_get(q, key, &s, err) < 0)
		return -1;
	if (s == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		if (strcmp(s, allowed[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return enum_fail(key, allowed, n, err);
}
