/* The log's lines: today's text line unchanged, and JSON objects whose
 * strings are escaped so that no path from the network breaks a line. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "check_suite.h"
#include "log.h"

static char line[LOG_LINE_MAX];

/* The JSON line parses as one object, ending in one newline. */
static json_t *parse_line(size_t n)
{
	json_error_t e;
	json_t *v;

	ck_assert_uint_eq(strlen(line), n);
	ck_assert_msg(n > 0 && strchr(line, '\n') == line + n - 1, "not one line: %s", line);
	v = json_loads(line, 0, &e);
	ck_assert_msg(v && json_is_object(v), "%s: %s", e.text, line);
	return v;
}

START_TEST(test_text_line_as_before)
{
	size_t n = log_format_request(line, LOG_TEXT, 0, "GET", "/healthz", 200, 42);

	ck_assert_str_eq(line, "GET /healthz 200 42us\n");
	ck_assert_uint_eq(n, strlen(line));
	log_format_request(line, LOG_TEXT, 0, "GET", "/a\x01" "b\x7f", 400, 7);
	ck_assert_str_eq(line, "GET /a?b? 400 7us\n");
	log_format_request(line, LOG_TEXT, 0, NULL, NULL, 413, -1);
	ck_assert_str_eq(line, "? ? 413 -\n");
}
END_TEST

START_TEST(test_text_line_cuts_long_paths)
{
	char path[600];

	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	log_format_request(line, LOG_TEXT, 0, "GET", path, 404, 1);
	ck_assert_ptr_nonnull(strstr(line, "... 404 1us\n"));
	ck_assert_uint_eq(strlen(line), strlen("GET ") + 255 + strlen("... 404 1us\n"));
}
END_TEST

START_TEST(test_json_request_line)
{
	json_t *v = parse_line(log_format_request(line, LOG_JSON, 1700000000123LL, "POST",
	                                          "/api/v1/tokens", 200, 1234));

	ck_assert_str_eq(json_string_value(json_object_get(v, "time")), "2023-11-14T22:13:20.123Z");
	ck_assert_str_eq(json_string_value(json_object_get(v, "method")), "POST");
	ck_assert_str_eq(json_string_value(json_object_get(v, "path")), "/api/v1/tokens");
	ck_assert_int_eq(json_integer_value(json_object_get(v, "status")), 200);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "us")), 1234);
	ck_assert_uint_eq(json_object_size(v), 5);
	json_decref(v);
	v = parse_line(log_format_request(line, LOG_JSON, 0, NULL, NULL, 400, -1));
	ck_assert(json_is_null(json_object_get(v, "method")));
	ck_assert(json_is_null(json_object_get(v, "path")));
	ck_assert(json_is_null(json_object_get(v, "us")));
	ck_assert_int_eq(json_integer_value(json_object_get(v, "status")), 400);
	json_decref(v);
}
END_TEST

/* What a path from the network may hold comes back as sent, or (for bytes
 * that are not UTF-8) as U+FFFD, and the line stays one JSON object. */
static const struct {
	const char *path;
	const char *decoded;
} hostile_paths[] = {
	{ "/a\"b", "/a\"b" },
	{ "/back\\slash\\", "/back\\slash\\" },
	{ "/x\"}\n{\"status\":200", "/x\"}\n{\"status\":200" },
	{ "/ctl\x01\x1f\x7f", "/ctl\x01\x1f\x7f" },
	{ "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80", "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80" },
	{ "/bad\xe9", "/bad\xef\xbf\xbd" },
	{ "/overlong\xc0\xaf", "/overlong\xef\xbf\xbd\xef\xbf\xbd" },
	{ "/cut\xe2\x82", "/cut\xef\xbf\xbd\xef\xbf\xbd" },
	{ "/surrogate\xed\xa0\x80", "/surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
};

START_TEST(test_json_escapes_paths)
{
	json_t *v = parse_line(log_format_request(line, LOG_JSON, 0, "GET", hostile_paths[_i].path,
	                                          404, 1));

	ck_assert_str_eq(json_string_value(json_object_get(v, "path")), hostile_paths[_i].decoded);
	json_decref(v);
}
END_TEST

/* A long path is cut at a character boundary, never inside one. */
START_TEST(test_json_cuts_at_a_character)
{
	char path[2000] = "/";
	json_t *v;
	const char *got;

	while (strlen(path) + 3 < sizeof path)
		strcat(path, "\xc3\xa9");
	v = parse_line(log_format_request(line, LOG_JSON, 0, "GET", path, 404, 1));
	got = json_string_value(json_object_get(v, "path"));
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_lt(strlen(got), 520);
	ck_assert_str_eq(got + strlen(got) - 3, "...");
	ck_assert_uint_eq((strlen(got) - 1 - 3) % 2, 0);   /* whole é's */
	json_decref(v);
}
END_TEST

START_TEST(test_json_string_small_buffer)
{
	char out[16];

	ck_assert_uint_eq(log_json_string(out, sizeof out, "/abc"), 4);
	ck_assert_str_eq(out, "/abc");
	log_json_string(out, sizeof out, "/abcdefghijklmnop");
	ck_assert_uint_lt(strlen(out), sizeof out);
	ck_assert_str_eq(out + strlen(out) - 3, "...");
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("lines");

	tcase_add_test(tc, test_text_line_as_before);
	tcase_add_test(tc, test_text_line_cuts_long_paths);
	tcase_add_test(tc, test_json_request_line);
	tcase_add_loop_test(tc, test_json_escapes_paths, 0, N_ELEMS(hostile_paths));
	tcase_add_test(tc, test_json_cuts_at_a_character);
	tcase_add_test(tc, test_json_string_small_buffer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(log_suite()));
}
