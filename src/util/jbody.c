/*
 * Reading JSON request bodies into checked values, and the few helpers that
 * build response records. An error names the field and the rule it breaks
 * and never repeats the value: it could be a password.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "jbody.h"
#include "log.h"
#include "util.h"
#include "validate.h"

/* Jansson's reason for refusing a body, as a sentence that quotes nothing of it. */
static const char *parse_error_sentence(enum json_error_code code)
{
	switch (code) {
	case json_error_invalid_utf8:
		return "request body is not valid UTF-8";
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return "request body must not contain U+0000";
	case json_error_duplicate_key:
		return "request body has a duplicate key";
	case json_error_stack_overflow:
		return "request body is nested too deeply";
	case json_error_numeric_overflow:
		return "request body holds a number out of range";
	default:
		return "request body is not valid JSON";
	}
}

/* docs/api.md §"No escalation": the top level is an object; a wrong document, invalid
 * UTF-8 or U+0000 is invalid_params. Jansson refuses the last two by default
 * (no JSON_ALLOW_NUL); trailing data is refused (no JSON_DISABLE_EOF_CHECK). */
json_t *jbody_parse(const char *data, size_t len, struct api_error *err)
{
	json_error_t jerr;
	json_t *body;

	if (data == NULL || len == 0) {
		api_fail(err, E_INVALID_PARAMS, "request body must be a JSON object");
		return NULL;
	}
	/* JSON_DECODE_ANY so that "1" or "null" is told "must be a JSON object". */
	body = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (body == NULL) {
		if (json_error_code(&jerr) == json_error_out_of_memory)
			api_fail(err, E_SYSTEM_ERROR, "out of memory");
		else   /* docs/api.md §"Conventions": where, never what (it could be a password) */
			api_fail(err, E_INVALID_PARAMS, "%s (line %d, column %d)",
			         parse_error_sentence(json_error_code(&jerr)), jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(body)) {
		json_decref(body);
		api_fail(err, E_INVALID_PARAMS, "request body must be a JSON object");
		return NULL;
	}
	return body;
}

/* The length limit a value check implies, so that an over-long value is
 * reported as too long rather than as malformed. 0: none. */
static size_t check_max_chars(enum str_check check)
{
	switch (check) {
	case CHECK_CODE:
		return CODE_MAX_CHARS;
	case CHECK_EMAIL:
		return EMAIL_MAX_CHARS;
	case CHECK_URL:
		return URL_MAX_CHARS;
	default:
		return 0;
	}
}

int jbody_read_string(const json_t *body, const struct str_rule *rule,
                     struct str_field *out, struct api_error *err)
{
	const json_t *v;
	const char *s;
	size_t len, chars, max;

	assert(json_is_object(body));
	out->state = FIELD_ABSENT;
	out->value = NULL;
	v = json_object_get(body, rule->key);
	if (v != NULL && !json_is_null(v) && !json_is_string(v))
		return api_fail(err, E_INVALID_PARAMS, "%s must be a string", rule->key);
	/* docs/api.md §"Conventions": a required string field must be non-empty. */
	if (v == NULL || json_is_null(v) || json_string_length(v) == 0) {
		if (rule->required)
			return api_fail(err, E_INVALID_PARAMS, "%s is required", rule->key);
		out->state = v == NULL ? FIELD_ABSENT : FIELD_CLEAR;
		return 0;
	}

	s = json_string_value(v);
	len = json_string_length(v);
	/* jbody_parse already refused these; a json_t built another way may not have. */
	if (strlen(s) != len || !utf8_valid(s, len))
		return api_fail(err, E_INVALID_PARAMS,
		                "%s must be UTF-8 text without U+0000", rule->key);

	chars = utf8_chars(s);
	max = rule->max_chars;
	if (check_max_chars(rule->check) != 0 &&
	    (max == 0 || max > check_max_chars(rule->check)))
		max = check_max_chars(rule->check);
	if (rule->min_chars != 0 && chars < rule->min_chars)
		return api_fail(err, E_INVALID_PARAMS, "%s must be at least %zu characters",
		                rule->key, rule->min_chars);
	if (max != 0 && chars > max)
		return api_fail(err, E_INVALID_PARAMS, "%s must be at most %zu characters",
		                rule->key, max);

	switch (rule->check) {
	case CHECK_NONE:
		break;
	case CHECK_CODE:
		if (!validate_code(s))
			return api_fail(err, E_INVALID_PARAMS,
			                "%s must contain only letters, digits, '-' and '_'",
			                rule->key);
		break;
	case CHECK_EMAIL:
		if (!validate_email(s))
			return api_fail(err, E_INVALID_PARAMS,
			                "%s must be an email address (local@domain, no spaces)",
			                rule->key);
		break;
	case CHECK_URL:
		if (!validate_http_url(s))
			return api_fail(err, E_INVALID_PARAMS,
			                "%s must be an absolute http or https URL", rule->key);
		break;
	}
	out->state = FIELD_SET;
	out->value = s;
	return 0;
}

int jbody_read_bool(const json_t *body, const char *key, bool required, int *out,
                   struct api_error *err)
{
	const json_t *v;

	assert(json_is_object(body));
	*out = -1;
	v = json_object_get(body, key);
	if (v == NULL) {
		if (required)
			return api_fail(err, E_INVALID_PARAMS, "%s is required", key);
		return 0;
	}
	if (!json_is_boolean(v))
		return api_fail(err, E_INVALID_PARAMS, "%s must be true or false", key);
	*out = json_is_true(v) ? 1 : 0;
	return 0;
}

/* True when id is among ids[0..n). Quadratic overall, but n is bounded by
 * max_count, and the body by max_body_bytes. */
static bool id_seen(const char *const *ids, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

int jbody_read_id_list(const json_t *body, const char *key, size_t max_count,
                      struct jbody_id_list *out, struct api_error *err)
{
	const json_t *v, *item;
	size_t n, i, cap;

	assert(json_is_object(body));
	out->present = false;
	out->count = 0;
	out->ids = NULL;
	v = json_object_get(body, key);
	if (v == NULL)
		return 0;
	if (json_is_null(v)) {
		out->present = true;
		return 0;
	}
	if (!json_is_array(v))
		return api_fail(err, E_INVALID_PARAMS, "%s must be an array of IDs", key);

	n = json_array_size(v);
	cap = n < max_count ? n : max_count;
	if (n > 0)
		out->ids = xmalloc((cap ? cap : 1) * sizeof *out->ids);
	for (i = 0; i < n; i++) {
		const char *id;
		size_t len;

		item = json_array_get(v, i);
		if (!json_is_string(item)) {
			api_fail(err, E_INVALID_PARAMS, "%s must contain only strings", key);
			goto fail;
		}
		id = json_string_value(item);
		len = json_string_length(item);
		if (len == 0) {
			api_fail(err, E_INVALID_PARAMS, "%s must not contain an empty ID", key);
			goto fail;
		}
		if (strlen(id) != len || !utf8_valid(id, len) ||
		    utf8_chars(id) > ID_MAX_CHARS) {
			api_fail(err, E_INVALID_PARAMS,
			         "%s must contain IDs of at most %d characters", key,
			         ID_MAX_CHARS);
			goto fail;
		}
		/* docs/api.md §"Conventions": duplicate IDs count once. */
		if (id_seen(out->ids, out->count, id))
			continue;
		if (out->count == max_count) {
			api_fail(err, E_INVALID_PARAMS, "%s must hold at most %zu IDs", key,
			         max_count);
			goto fail;
		}
		out->ids[out->count++] = id;
	}
	out->present = true;
	return 0;

fail:
	jbody_id_list_release(out);
	return -1;
}

void jbody_id_list_release(struct jbody_id_list *list)
{
	if (list == NULL)
		return;
	free(list->ids);
	list->present = false;
	list->count = 0;
	list->ids = NULL;
}

/* Jansson returns NULL only when out of memory (or for invalid UTF-8, refused
 * before it gets here): abort as xmalloc does. */
static json_t *json_or_abort(json_t *v)
{
	if (v == NULL) {
		log_error("out of memory");
		abort();
	}
	return v;
}

/* Text that is not valid UTF-8 must never have been stored (every input is
 * checked); should some reach a response anyway, it is sent as null rather
 * than as JSON no client could parse. */
json_t *jbody_string_or_null(const char *s)
{
	size_t n;

	if (s == NULL || !utf8_valid(s, n = strlen(s)))
		return json_null();
	return json_or_abort(json_stringn_nocheck(s, n));   /* checked just above */
}

json_t *jbody_timestamp(long long ms)
{
	char buf[TIMESTAMP_LEN];

	format_timestamp((int64_t)ms, buf);
	return json_or_abort(json_stringn_nocheck(buf, TIMESTAMP_LEN - 1));
}

/* True when none of the n bytes at p is '"', '\\' or a control character,
 * tested eight bytes a word (the SWAR "has a zero byte" tests): byte by
 * byte, the test was 1.3% of a client_credentials grant. */
static bool json_bytes_plain(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t x, q, b;

		memcpy(&x, p + i, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		if (((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x & highs)
			return false;
	}
	for (; i < n; i++)
		if (p[i] == '"' || p[i] == '\\' || (unsigned char)p[i] < 0x20)
			return false;
	return true;
}

/* Room for n more bytes and the NUL. */
static void writer_reserve(struct jbody_writer *w, size_t n)
{
	if (w->cap - w->len <= n) {
		w->cap = (w->len + n + 1) * 2;
		w->buf = xrealloc(w->buf, w->cap);
	}
}

/* ,"name": (no comma before the first member), with room for n bytes of
 * value after it. Returns where the value goes. */
static char *writer_member(struct jbody_writer *w, const char *name, size_t n)
{
	size_t nl = strlen(name);
	char *p;

	writer_reserve(w, nl + n + 4);
	p = w->buf + w->len;
	if (w->len > 1)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, name, nl);
	p += nl;
	*p++ = '"';
	*p++ = ':';
	return p;
}

static void writer_raw_bytes(struct jbody_writer *w, const char *p, size_t n)
{
	writer_reserve(w, n);
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void jbody_writer_init(struct jbody_writer *w, size_t hint)
{
	w->cap = hint + 2;
	w->buf = xmalloc(w->cap);
	w->buf[0] = '{';
	w->len = 1;
	w->plain = true;
}

void jbody_writer_string(struct jbody_writer *w, const char *name, const char *value)
{
	size_t n;
	char *p;

	if (!value)
		return;
	n = strlen(value);
	w->plain = w->plain && json_bytes_plain(value, n);
	p = writer_member(w, name, n + 2);
	*p++ = '"';
	memcpy(p, value, n);
	p += n;
	*p++ = '"';
	w->len = (size_t)(p - w->buf);
}

/* Digits by hand: snprintf was a third of a small object's cost. */
void jbody_writer_int(struct jbody_writer *w, const char *name, long long n)
{
	char digits[24], *d = digits + sizeof digits, *p;
	unsigned long long u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
	size_t k;

	do {
		*--d = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (n < 0)
		*--d = '-';
	k = (size_t)(digits + sizeof digits - d);
	p = writer_member(w, name, k);
	memcpy(p, d, k);
	w->len = (size_t)(p + k - w->buf);
}

void jbody_writer_raw(struct jbody_writer *w, const char *name, const char *json)
{
	size_t n = strlen(json);
	char *p = writer_member(w, name, n);

	memcpy(p, json, n);
	w->len = (size_t)(p + n - w->buf);
}

/* value[0..n) as a JSON string, escaped by jansson when it must be; false
 * when jansson refuses it. p: where it goes (room for n + 2 reserved). */
static bool writer_text_value(struct jbody_writer *w, const char *value, size_t n)
{
	json_t *s;
	char *enc, *p;
	size_t k;

	if (json_bytes_plain(value, n) && utf8_valid(value, n)) {
		writer_reserve(w, n + 2);
		p = w->buf + w->len;
		*p++ = '"';
		memcpy(p, value, n);
		p[n] = '"';
		w->len += n + 2;
		return true;
	}
	s = json_stringn(value, n);
	if (!s)
		return false;
	enc = json_dumps(s, JSON_ENCODE_ANY);
	json_decref(s);
	if (!enc)
		abort();   /* out of memory: jansson allocates through xmalloc */
	k = strlen(enc);
	writer_reserve(w, k);
	memcpy(w->buf + w->len, enc, k);
	w->len += k;
	free(enc);
	return true;
}

void jbody_writer_text(struct jbody_writer *w, const char *name, const char *value)
{
	size_t at = w->len, n;

	if (!value)
		return;
	n = strlen(value);
	w->len = (size_t)(writer_member(w, name, 0) - w->buf);
	if (!writer_text_value(w, value, n))
		w->len = at;   /* left out, as jansson leaves it */
}

void jbody_writer_words(struct jbody_writer *w, const char *name, const char *list)
{
	bool open = false;
	size_t words = 0;

	while (list && *list) {
		size_t n = strcspn(list, " "), before;

		if (n > 0) {
			if (!open) {   /* as jansson's array: there once a word is */
				char *p = writer_member(w, name, 1);

				*p++ = '[';
				w->len = (size_t)(p - w->buf);
				open = true;
			}
			before = w->len;
			if (words > 0)
				writer_raw_bytes(w, ",", 1);
			if (writer_text_value(w, list, n))
				words++;
			else
				w->len = before;
		}
		list += n;
		list += strspn(list, " ");
	}
	if (open)
		writer_raw_bytes(w, "]", 1);
}

char *jbody_writer_finish(struct jbody_writer *w, size_t *len)
{
	char *text;

	writer_reserve(w, 1);
	text = w->buf;   /* after the reserve, which may have moved it */
	text[w->len++] = '}';
	text[w->len] = '\0';
	if (!w->plain) {
		OPENSSL_cleanse(text, w->len);   /* a token answer holds secrets */
		free(text);
		text = NULL;
	}
	if (len)
		*len = text ? w->len : 0;
	w->buf = NULL;
	return text;
}
