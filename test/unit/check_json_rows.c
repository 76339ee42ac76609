/*
 * json_rows.c: a list page's records read field by field give what jansson
 * reads of the same text (escapes, surrogate pairs, nested values skipped,
 * literals as their text), and a text that is not an array of objects, or
 * a string with U+0000 or a broken escape, is refused.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "json_rows.h"

static const char *const keys[] = { "id", "name", "active", "n", "factors" };
#define N N_ELEMS(keys)

/* Every record of text, each value beside jansson's reading of it. */
static void agrees(const char *text, size_t records)
{
	json_t *all = json_loads(text, 0, NULL);
	struct json_rows r;
	const char *v[N];
	size_t seen = 0;
	int rc;

	ck_assert_msg(json_is_array(all), "jansson refused %s", text);
	json_rows_open(&r, text);
	while ((rc = json_rows_next(&r, keys, N, v)) == 1) {
		json_t *o = json_array_get(all, seen++);
		for (size_t i = 0; i < N; i++) {
			json_t *j = json_object_get(o, keys[i]);
			if (json_is_string(j)) {
				ck_assert_ptr_nonnull(v[i]);
				ck_assert_str_eq(v[i], json_string_value(j));
			} else if (json_is_true(j)) {
				ck_assert_str_eq(v[i], "true");
			} else if (json_is_false(j)) {
				ck_assert_str_eq(v[i], "false");
			} else if (json_is_integer(j)) {
				ck_assert_int_eq(atoll(v[i]), json_integer_value(j));
			} else {   /* absent, null, array, object */
				ck_assert_ptr_null(v[i]);
			}
		}
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(seen, records);
	ck_assert_int_eq(json_rows_next(&r, keys, N, v), 0);
	json_rows_close(&r);
	json_decref(all);
}

START_TEST(test_records)
{
	agrees("[]", 0);
	agrees(" [ ] ", 0);
	agrees("[{}]", 1);
	agrees("[{\"id\":\"u1\",\"name\":\"Ann\",\"active\":true,\"n\":12,\"factors\":[]},"
	       "{\"id\":\"u2\",\"name\":null,\"active\":false,\"n\":-3,\"factors\":[\"totp\"]}]", 2);
	/* nested values with brackets and quotes in their strings, skipped */
	agrees("[ { \"factors\" : [ \"]\", {\"x\": \"}\\\"\"}, [1, [2]] ] , \"id\" : \"after\" } ]", 1);
	/* the escapes of RFC 8259 §7, a two-byte, a three-byte and a pair */
	agrees("[{\"name\":\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u00e9 \\u20AC \\ud83d\\ude00\"}]", 1);
	/* UTF-8 as it is, and keys the caller did not ask for */
	agrees("[{\"other\":\"x\",\"name\":\"Søren Ünal\",\"id\":\"\"}]", 1);
}
END_TEST

START_TEST(test_no_text)
{
	struct json_rows r;
	const char *v[N];

	json_rows_open(&r, NULL);
	ck_assert_int_eq(json_rows_next(&r, keys, N, v), 0);
	json_rows_close(&r);
}
END_TEST

static const char *const refused[] = {
	"", "{}", "[", "[{]", "[{\"id\"}]", "[{\"id\":}]", "[{\"id\":1,}]", "[{\"id\":1},]",
	"[{\"id\":1}],", "[{\"id\":1}] x", "[{\"id\":1}{\"id\":2}]", "[1]", "[{id:1}]",
	"[{\"id\":\"x}]", "[{\"id\":\"a\\u0000b\"}]", "[{\"id\":\"\\ud800\"}]",
	"[{\"id\":\"\\udc00\"}]", "[{\"id\":\"\\ud800\\u0041\"}]", "[{\"id\":\"\\u12G4\"}]",
	"[{\"id\":\"\\x\"}]", "[{\"id\":\"a\tb\"}]", "[{\"f\":[\"]\"}]", "[{\"f\":[1}]",
	"[{\"f\":[1},\"id\":\"x\"}]", "[{\"f\":{\"a\":[}]}]",
};

START_TEST(test_refused)
{
	struct json_rows r;
	const char *v[N];
	int rc;

	json_rows_open(&r, refused[_i]);
	while ((rc = json_rows_next(&r, keys, N, v)) == 1)
		;
	ck_assert_msg(rc == -1, "%s: %d", refused[_i], rc);
	for (size_t i = 0; i < N; i++)
		ck_assert_ptr_null(v[i]);
	ck_assert_int_eq(json_rows_next(&r, keys, N, v), -1);
	json_rows_close(&r);
}
END_TEST

/* A skipped value nested 32 deep is read past; one nested 33 deep refused. */
START_TEST(test_deep)
{
	for (int depth = 32; depth <= 33; depth++) {
		char text[128] = "[{\"f\":";
		struct json_rows r;
		const char *v[N];
		size_t n = strlen(text);

		for (int i = 0; i < depth; i++)
			text[n++] = '[';
		for (int i = 0; i < depth; i++)
			text[n++] = ']';
		memcpy(text + n, ",\"id\":\"x\"}]", sizeof ",\"id\":\"x\"}]");
		json_rows_open(&r, text);
		ck_assert_int_eq(json_rows_next(&r, keys, N, v), depth == 32 ? 1 : -1);
		if (depth == 32)
			ck_assert_str_eq(v[0], "x");
		json_rows_close(&r);
	}
}
END_TEST

static Suite *json_rows_suite(void)
{
	Suite *s = suite_create("json_rows");
	TCase *tc = tcase_create("json_rows");

	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_no_text);
	tcase_add_test(tc, test_deep);
	tcase_add_loop_test(tc, test_refused, 0, N_ELEMS(refused));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(json_rows_suite()));
}
