/*
 * Tables and JSON for the everyday commands (cli_output.h). A cell shows a
 * null as "-", an array's items joined by commas, a string as it is; the
 * table pads by characters (utf8_chars), not bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "cli_output.h"
#include "crypto.h"
#include "secret_file.h"
#include "util.h"
#include "validate.h"

/* The text is an evbuffer: main hands libevent the wiping allocator, so
 * its chunks are wiped when freed (a client's secret passes through). */
static void out_str(struct evbuffer *o, const char *s)
{
	evbuffer_add(o, s, strlen(s));
}

/* s padded with spaces to width characters. */
static void out_padded(struct evbuffer *o, const char *s, size_t width)
{
	out_str(o, s);
	for (size_t n = utf8_chars(s); n < width; n++)
		evbuffer_add(o, " ", 1);
}

/* The cell of v: a new string (crypto_free_wiped). */
static char *cell(const json_t *v)
{
	struct evbuffer *o;
	const json_t *item;
	char *joined;
	size_t i;

	if (!v || json_is_null(v))
		return xstrdup("-");
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_array(v)) {
		o = evbuffer_new();
		json_array_foreach(v, i, item) {
			char *s = cell(item);
			if (i)
				out_str(o, ",");
			out_str(o, s);
			crypto_free_wiped(s);
		}
		i = evbuffer_get_length(o);   /* an empty array: no chunk, pullup gives NULL */
		joined = i ? xstrndup((const char *)evbuffer_pullup(o, -1), i) : xstrdup("");
		evbuffer_free(o);
		return joined;
	}
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void object_table(struct evbuffer *o, const json_t *obj)
{
	const char *key;
	const json_t *v;
	size_t width = 0;

	json_object_foreach((json_t *)obj, key, v)
		if (strlen(key) > width)
			width = strlen(key);
	json_object_foreach((json_t *)obj, key, v) {
		char *s = cell(v);
		out_padded(o, key, width + 2);
		out_str(o, s);
		out_str(o, "\n");
		crypto_free_wiped(s);
	}
}

static void list_table(struct evbuffer *o, const json_t *list, const char *const *columns)
{
	size_t n_cols = 0, width[16] = { 0 }, i;
	const json_t *row;

	while (columns[n_cols] && n_cols < 16)
		n_cols++;
	for (size_t k = 0; k < n_cols; k++)
		width[k] = strlen(columns[k]);
	json_array_foreach(list, i, row)
		for (size_t k = 0; k < n_cols; k++) {
			char *s = cell(json_object_get(row, columns[k]));
			size_t w = utf8_chars(s);
			width[k] = w > width[k] ? w : width[k];
			crypto_free_wiped(s);
		}
	for (size_t k = 0; k < n_cols; k++)
		out_padded(o, columns[k], k + 1 < n_cols ? width[k] + 2 : 0);
	out_str(o, "\n");
	json_array_foreach(list, i, row) {
		for (size_t k = 0; k < n_cols; k++) {
			char *s = cell(json_object_get(row, columns[k]));
			out_padded(o, s, k + 1 < n_cols ? width[k] + 2 : 0);
			crypto_free_wiped(s);
		}
		out_str(o, "\n");
	}
}

int cli_print(const struct cli_call *c, json_t *value, const char *const *columns)
{
	struct evbuffer *o = evbuffer_new();
	size_t len;
	int rc = 0;

	if (c->json) {
		char *text = json_dumps(value, JSON_COMPACT);
		out_str(o, text);
		out_str(o, "\n");
		crypto_free_wiped(text);
	} else if (json_is_array(value)) {
		list_table(o, value, columns);
	} else {
		object_table(o, value);
	}
	json_decref(value);
	fflush(stdout);
	len = evbuffer_get_length(o);
	if (secret_file_write_fd(STDOUT_FILENO, (const char *)evbuffer_pullup(o, -1), len) != 0) {
		fprintf(stderr, "edgeauth: the answer could not be written to stdout\n");
		rc = 1;
	}
	evbuffer_free(o);
	return rc;
}

json_t *cli_record(const char *text, struct api_error *err)
{
	json_t *v = json_loads(text, 0, NULL);

	if (!v)
		api_fail(err, E_SYSTEM_ERROR, "The store failed.");
	return v;
}

void cli_body_set(json_t *body, const char *key, const char *value)
{
	if (value)
		json_object_set_new(body, key, json_stringn_nocheck(value, strlen(value)));
}

int cli_print_json(json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT);

	printf("%s\n", text);
	fflush(stdout);
	free(text);
	json_decref(value);
	return 0;
}
