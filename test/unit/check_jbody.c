/*
 * Unit tests for jbody.c: body parsing, string/bool/ID-list fields and
 * the response helpers. Every test owns what it allocates through
 * the fixture `fx`, which the checked teardown releases even when an
 * assertion fails, so valgrind stays clean whatever happens.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_suite.h"
#include "error.h"
#include "jbody.h"
#include "util.h"
#include "validate.h"

#define LEN_STRLEN ((size_t)-1)

static struct {
	json_t *body;          /* the parsed or built request body */
	json_t *v;             /* a value built by a response helper */
	struct jbody_id_list ids;
	struct api_error err;
	char *buf;             /* scratch text */
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.ids = (struct jbody_id_list)ID_LIST_INIT;
}

static void teardown(void)
{
	json_decref(fx.body);
	json_decref(fx.v);
	jbody_id_list_release(&fx.ids);
	free(fx.buf);
}

/* Parses text with jbody_parse into fx.body; the text must be valid. */
static void load(const char *text)
{
	fx.body = jbody_parse(text, strlen(text), &fx.err);
	ck_assert_msg(fx.body != NULL, "test body does not parse: %s", text);
}

/* fx.buf = prefix + n copies of unit + suffix. */
static const char *build(const char *prefix, const char *unit, size_t n,
                         const char *suffix)
{
	size_t plen = strlen(prefix), ulen = strlen(unit), slen = strlen(suffix), i;
	char *p;

	free(fx.buf);
	fx.buf = p = malloc(plen + n * ulen + slen + 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p, prefix, plen);
	p += plen;
	for (i = 0; i < n; i++, p += ulen)
		memcpy(p, unit, ulen);
	memcpy(p, suffix, slen + 1);
	return fx.buf;
}

#define expect_invalid(rc, msg) check_invalid_params(&fx.err, (rc), (msg))

/* --- jbody_parse ------------------------------------------------------ */

#define NOT_OBJECT "request body must be a JSON object"
#define NOT_JSON "request body is not valid JSON"
#define NOT_UTF8 "request body is not valid UTF-8"
#define HAS_NUL "request body must not contain U+0000"
#define DUP_KEY "request body has a duplicate key"
#define NUMBER "request body holds a number out of range"

static const struct {
	const char *desc;
	const char *text;
	size_t len;        /* LEN_STRLEN: strlen(text) */
	const char *msg;   /* NULL: parses */
} body_cases[] = {
	{ "empty object", "{}", LEN_STRLEN, NULL },
	{ "nested", "{\"a\":1,\"b\":[1,\"x\"],\"c\":{\"d\":null}}", LEN_STRLEN, NULL },
	{ "white space around", " \n{\"a\":1}\t\n", LEN_STRLEN, NULL },
	{ "UTF-8 text", "{\"name\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}", LEN_STRLEN, NULL },
	{ "escaped non-BMP", "{\"a\":\"\\ud83d\\ude00\"}", LEN_STRLEN, NULL },
	{ "same key in two objects", "{\"a\":{\"k\":1},\"b\":{\"k\":1}}", LEN_STRLEN, NULL },
	{ "empty", "", LEN_STRLEN, NOT_OBJECT },
	{ "empty array", "[]", LEN_STRLEN, NOT_OBJECT },
	{ "array of objects", "[{\"a\":1}]", LEN_STRLEN, NOT_OBJECT },
	{ "string", "\"s\"", LEN_STRLEN, NOT_OBJECT },
	{ "number", "1", LEN_STRLEN, NOT_OBJECT },
	{ "null", "null", LEN_STRLEN, NOT_OBJECT },
	{ "true", "true", LEN_STRLEN, NOT_OBJECT },
	{ "only white space", "  ", LEN_STRLEN, NOT_JSON },
	{ "unclosed", "{", LEN_STRLEN, NOT_JSON },
	{ "unclosed string", "{\"a\":\"x}", LEN_STRLEN, NOT_JSON },
	{ "trailing comma", "{\"a\":1,}", LEN_STRLEN, NOT_JSON },
	{ "single quotes", "{'a':1}", LEN_STRLEN, NOT_JSON },
	{ "bare key", "{a:1}", LEN_STRLEN, NOT_JSON },
	{ "trailing garbage", "{\"a\":1} x", LEN_STRLEN, NOT_JSON },
	{ "two documents", "{\"a\":1}{}", LEN_STRLEN, NOT_JSON },
	{ "NaN", "{\"a\":NaN}", LEN_STRLEN, NOT_JSON },
	{ "comment", "{/* c */}", LEN_STRLEN, NOT_JSON },
	{ "raw newline in string", "{\"a\":\"x\ny\"}", LEN_STRLEN, NOT_JSON },
	{ "bare word value echoes nothing", "{\"password\":hunter2}", LEN_STRLEN, NOT_JSON },
	{ "bad escape echoes nothing", "{\"password\":\"hunter2\\q\"}", LEN_STRLEN, NOT_JSON },
	{ "lone surrogate escape", "{\"a\":\"\\ud800\"}", LEN_STRLEN, NOT_JSON },
	{ "invalid UTF-8 in value", "{\"password\":\"hunter2\xff\"}", LEN_STRLEN, NOT_UTF8 },
	{ "invalid UTF-8 in key", "{\"\xff\":1}", LEN_STRLEN, NOT_UTF8 },
	{ "overlong in value", "{\"a\":\"\xc0\xaf\"}", LEN_STRLEN, NOT_UTF8 },
	{ "raw surrogate in value", "{\"a\":\"\xed\xa0\x80\"}", LEN_STRLEN, NOT_UTF8 },
	{ "above U+10FFFF in value", "{\"a\":\"\xf4\x90\x80\x80\"}", LEN_STRLEN, NOT_UTF8 },
	{ "truncated sequence", "{\"a\":\"\xe2\x82\"}", LEN_STRLEN, NOT_UTF8 },
	{ "\\u0000 in value", "{\"a\":\"x\\u0000y\"}", LEN_STRLEN, HAS_NUL },
	{ "\\u0000 in key", "{\"a\\u0000\":1}", LEN_STRLEN, HAS_NUL },
	{ "raw NUL in string", "{\"a\":\"x\0y\"}", 11, NOT_JSON },
	{ "raw NUL after object", "{}\0", 3, NOT_JSON },
	{ "duplicate key", "{\"a\":1,\"a\":2}", LEN_STRLEN, DUP_KEY },
	{ "duplicate key, nested", "{\"o\":{\"a\":1,\"a\":2}}", LEN_STRLEN, DUP_KEY },
	{ "duplicate key, escaped", "{\"a\":1,\"\\u0061\":2}", LEN_STRLEN, DUP_KEY },
	{ "duplicate password", "{\"password\":\"hunter2\",\"password\":\"x\"}", LEN_STRLEN, DUP_KEY },
	{ "real overflow", "{\"a\":1e400}", LEN_STRLEN, NUMBER },
	{ "integer overflow", "{\"a\":99999999999999999999999}", LEN_STRLEN, NUMBER },
};

START_TEST(test_parse_body)
{
	const char *text = body_cases[_i].text;
	size_t len = body_cases[_i].len == LEN_STRLEN ? strlen(text) : body_cases[_i].len;

	fx.body = jbody_parse(text, len, &fx.err);
	if (body_cases[_i].msg == NULL) {
		ck_assert_msg(fx.body != NULL, "%s: should parse (%s)", body_cases[_i].desc,
		              fx.err.description);
		ck_assert(json_is_object(fx.body));
		return;
	}
	ck_assert_msg(fx.body == NULL, "%s: should not parse", body_cases[_i].desc);
	expect_invalid(-1, body_cases[_i].msg);
	ck_assert_msg(strstr(fx.err.description, "hunter2") == NULL,
	              "%s: description repeats the body", body_cases[_i].desc);
}
END_TEST

/* issue27: a malformed document's message says where, never what. */
START_TEST(test_parse_body_position)
{
	const char *text = "{\n  \"password\": \"hunter2\",\n}";

	fx.body = jbody_parse(text, strlen(text), &fx.err);
	ck_assert_ptr_null(fx.body);
	expect_invalid(-1, NOT_JSON " (line 3, column 1)");
	ck_assert_ptr_null(strstr(fx.err.description, "hunter2"));
}
END_TEST

START_TEST(test_parse_body_null)
{
	fx.body = jbody_parse(NULL, 0, &fx.err);
	ck_assert_ptr_null(fx.body);
	expect_invalid(-1, NOT_OBJECT);
}
END_TEST

/* 100,000 levels must fail cleanly (jansson stops at JSON_PARSER_MAX_DEPTH), not crash. */
START_TEST(test_parse_body_deep)
{
	const size_t depth = 100000;
	char *text;

	build("{\"a\":", "[", depth, "");
	text = malloc(strlen(fx.buf) + depth + 2);
	ck_assert_ptr_nonnull(text);
	strcpy(text, fx.buf);
	memset(text + strlen(fx.buf), ']', depth);
	strcpy(text + strlen(fx.buf) + depth, "}");
	free(fx.buf);
	fx.buf = text;

	fx.body = jbody_parse(fx.buf, strlen(fx.buf), &fx.err);
	ck_assert_ptr_null(fx.body);
	expect_invalid(-1, "request body is nested too deeply");

	/* Deep objects too, even unclosed. */
	build("", "{\"a\":", depth, "");
	fx.body = jbody_parse(fx.buf, strlen(fx.buf), &fx.err);
	ck_assert_ptr_null(fx.body);
	ck_assert_str_eq(fx.err.code, "invalid_params");
}
END_TEST

START_TEST(test_parse_body_moderate_depth)
{
	char *text;

	build("{\"a\":", "[", 100, "");
	text = malloc(strlen(fx.buf) + 100 + 2);
	ck_assert_ptr_nonnull(text);
	strcpy(text, fx.buf);
	memset(text + strlen(fx.buf), ']', 100);
	strcpy(text + strlen(fx.buf) + 100, "}");
	free(fx.buf);
	fx.buf = text;
	fx.body = jbody_parse(fx.buf, strlen(fx.buf), &fx.err);
	ck_assert_ptr_nonnull(fx.body);
}
END_TEST

/* --- jbody_read_string ------------------------------------------------------ */

#define OPT_DESCRIPTION { "description", false, 0, DESCRIPTION_MAX_CHARS, CHECK_NONE }
#define REQ_NAME { "name", true, 0, NAME_MAX_CHARS, CHECK_NONE }
#define OPT_PASSWORD { "password", false, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS, CHECK_NONE }
#define REQ_PASSWORD { "password", true, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS, CHECK_NONE }
#define REQ_CODE { "code", true, 0, CODE_MAX_CHARS, CHECK_CODE }
#define OPT_EMAIL { "email", false, 0, EMAIL_MAX_CHARS, CHECK_EMAIL }
#define OPT_URL { "avatar_url", false, 0, URL_MAX_CHARS, CHECK_URL }

#define E7 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"  /* 7 chars, 14 bytes */

static const struct {
	const char *body;
	struct str_rule rule;
	enum field_state state;   /* on success */
	const char *value;        /* on success, FIELD_SET */
	const char *msg;          /* NULL: succeeds */
} string_cases[] = {
	/* optional: the four states */
	{ "{}", OPT_DESCRIPTION, FIELD_ABSENT, NULL, NULL },
	{ "{\"other\":\"x\"}", OPT_DESCRIPTION, FIELD_ABSENT, NULL, NULL },
	{ "{\"description\":null}", OPT_DESCRIPTION, FIELD_CLEAR, NULL, NULL },
	{ "{\"description\":\"\"}", OPT_DESCRIPTION, FIELD_CLEAR, NULL, NULL },
	{ "{\"description\":\"x\"}", OPT_DESCRIPTION, FIELD_SET, "x", NULL },
	{ "{\"description\":\" \"}", OPT_DESCRIPTION, FIELD_SET, " ", NULL },
	/* optional: wrong types */
	{ "{\"description\":1}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":1.5}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":0}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":true}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":false}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":[]}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":[\"x\"]}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	{ "{\"description\":{}}", OPT_DESCRIPTION, 0, NULL, "description must be a string" },
	/* required: present, a string, non-empty */
	{ "{}", REQ_NAME, 0, NULL, "name is required" },
	{ "{\"name\":null}", REQ_NAME, 0, NULL, "name is required" },
	{ "{\"name\":\"\"}", REQ_NAME, 0, NULL, "name is required" },
	{ "{\"name\":\"x\"}", REQ_NAME, FIELD_SET, "x", NULL },
	{ "{\"name\":5}", REQ_NAME, 0, NULL, "name must be a string" },
	{ "{\"name\":false}", REQ_NAME, 0, NULL, "name must be a string" },
	{ "{\"name\":[]}", REQ_NAME, 0, NULL, "name must be a string" },
	{ "{\"name\":{}}", REQ_NAME, 0, NULL, "name must be a string" },
	/* min_chars applies to a set value only, and counts code points */
	{ "{\"password\":\"\"}", OPT_PASSWORD, FIELD_CLEAR, NULL, NULL },
	{ "{\"password\":null}", OPT_PASSWORD, FIELD_CLEAR, NULL, NULL },
	{ "{}", OPT_PASSWORD, FIELD_ABSENT, NULL, NULL },
	{ "{\"password\":\"S3cret7\"}", OPT_PASSWORD, 0, NULL,
	  "password must be at least 8 characters" },
	{ "{\"password\":\"" E7 "\"}", OPT_PASSWORD, 0, NULL,
	  "password must be at least 8 characters" },
	{ "{\"password\":\"" E7 "x\"}", OPT_PASSWORD, FIELD_SET, E7 "x", NULL },
	{ "{\"password\":\"12345678\"}", OPT_PASSWORD, FIELD_SET, "12345678", NULL },
	{ "{\"password\":\"\"}", REQ_PASSWORD, 0, NULL, "password is required" },
	{ "{\"password\":12345678}", REQ_PASSWORD, 0, NULL, "password must be a string" },
	/* value checks */
	{ "{\"code\":\"abc-1_X\"}", REQ_CODE, FIELD_SET, "abc-1_X", NULL },
	{ "{\"code\":\"a b\"}", REQ_CODE, 0, NULL,
	  "code must contain only letters, digits, '-' and '_'" },
	{ "{\"code\":\"caf\xc3\xa9\"}", REQ_CODE, 0, NULL,
	  "code must contain only letters, digits, '-' and '_'" },
	{ "{\"email\":\"a@b.example\"}", OPT_EMAIL, FIELD_SET, "a@b.example", NULL },
	{ "{\"email\":\"\"}", OPT_EMAIL, FIELD_CLEAR, NULL, NULL },
	{ "{\"email\":\"nobody.example\"}", OPT_EMAIL, 0, NULL, "email must be an email address" },
	{ "{\"email\":\"a b@c\"}", OPT_EMAIL, 0, NULL, "email must be an email address" },
	{ "{\"avatar_url\":\"https://x.example/a.png\"}", OPT_URL, FIELD_SET,
	  "https://x.example/a.png", NULL },
	{ "{\"avatar_url\":null}", OPT_URL, FIELD_CLEAR, NULL, NULL },
	{ "{\"avatar_url\":\"ftp://x.example/a\"}", OPT_URL, 0, NULL,
	  "avatar_url must be an absolute http or https URL" },
	{ "{\"avatar_url\":\"javascript:alert(1)\"}", OPT_URL, 0, NULL,
	  "avatar_url must be an absolute http or https URL" },
};

START_TEST(test_read_string)
{
	struct str_field f = { FIELD_SET, "garbage" };
	int rc;

	load(string_cases[_i].body);
	rc = jbody_read_string(fx.body, &string_cases[_i].rule, &f, &fx.err);
	if (string_cases[_i].msg != NULL) {
		const json_t *v = json_object_get(fx.body, string_cases[_i].rule.key);

		expect_invalid(rc, string_cases[_i].msg);
		ck_assert_int_eq(f.state, FIELD_ABSENT);
		ck_assert_ptr_null(f.value);
		/* never echo the value */
		if (json_is_string(v) && json_string_length(v) >= 3)
			ck_assert_msg(strstr(fx.err.description, json_string_value(v)) == NULL,
			              "description repeats the value: %s", fx.err.description);
		return;
	}
	ck_assert_msg(rc == 0, "case %d failed: %s", _i, fx.err.description);
	ck_assert_int_eq(f.state, string_cases[_i].state);
	if (string_cases[_i].value == NULL) {
		ck_assert_ptr_null(f.value);
	} else {
		ck_assert_str_eq(f.value, string_cases[_i].value);
		/* borrowed from the body, not copied */
		ck_assert_ptr_eq(f.value,
		                 json_string_value(json_object_get(fx.body,
		                                                   string_cases[_i].rule.key)));
	}
}
END_TEST

/* Sets fx.body to {key: text}. */
static void body_with(const char *key, const char *text)
{
	json_decref(fx.body);
	fx.body = json_pack("{s:s}", key, text);
	ck_assert_ptr_nonnull(fx.body);
}

static int read_with(const struct str_rule *rule, const char *text, struct str_field *f)
{
	body_with(rule->key, text);
	return jbody_read_string(fx.body, rule, f, &fx.err);
}

#define EMOJI "\xf0\x9f\x98\x80"

START_TEST(test_read_string_lengths)
{
	const struct str_rule name = REQ_NAME, desc = OPT_DESCRIPTION, pw = REQ_PASSWORD;
	const struct str_rule url = OPT_URL;
	const struct str_rule code_no_max = { "code", true, 0, 0, CHECK_CODE };
	struct str_field f;

	ck_assert_int_eq(read_with(&name, build("", "\xc3\xa9", 50, ""), &f), 0);
	ck_assert_int_eq(f.state, FIELD_SET);
	ck_assert_int_eq(read_with(&name, build("", EMOJI, 50, ""), &f), 0);
	ck_assert_int_eq(f.state, FIELD_SET);
	expect_invalid(read_with(&name, build("", EMOJI, 51, ""), &f),
	               "name must be at most 50 characters");
	expect_invalid(read_with(&name, build("", "a", 51, ""), &f),
	               "name must be at most 50 characters");
	ck_assert_int_eq(read_with(&desc, build("", EMOJI, 200, ""), &f), 0);
	expect_invalid(read_with(&desc, build("", EMOJI, 201, ""), &f),
	               "description must be at most 200 characters");
	ck_assert_int_eq(read_with(&pw, build("", "p", 1024, ""), &f), 0);
	expect_invalid(read_with(&pw, build("", "p", 1025, ""), &f),
	               "password must be at most 1024 characters");
	/* a check's own limit is reported as a length, even with max_chars 0 */
	ck_assert_int_eq(read_with(&code_no_max, build("", "c", 50, ""), &f), 0);
	expect_invalid(read_with(&code_no_max, build("", "c", 51, ""), &f),
	               "code must be at most 50 characters");
	ck_assert_int_eq(read_with(&url, build("https://h/", "a", 2048 - 10, ""), &f), 0);
	expect_invalid(read_with(&url, build("https://h/", "a", 2049 - 10, ""), &f),
	               "avatar_url must be at most 2048 characters");
}
END_TEST

/* A json_t built without jansson's checks must still not let U+0000 through. */
START_TEST(test_read_string_nocheck)
{
	const struct str_rule name = REQ_NAME;
	struct str_field f;

	fx.body = json_object();
	json_object_set_new(fx.body, "name", json_stringn_nocheck("a\0b", 3));
	expect_invalid(jbody_read_string(fx.body, &name, &f, &fx.err),
	               "name must be UTF-8 text without U+0000");
	json_object_set_new(fx.body, "name", json_string_nocheck("a\xff"));
	expect_invalid(jbody_read_string(fx.body, &name, &f, &fx.err),
	               "name must be UTF-8 text without U+0000");
}
END_TEST

/* --- jbody_read_bool ---------------------------------------------------------- */

static const struct {
	const char *body;
	bool required;
	int out;           /* on success */
	const char *msg;   /* NULL: succeeds */
} bool_cases[] = {
	{ "{}", false, -1, NULL },
	{ "{}", true, -1, "is_active is required" },
	{ "{\"is_active\":true}", false, 1, NULL },
	{ "{\"is_active\":false}", false, 0, NULL },
	{ "{\"is_active\":true}", true, 1, NULL },
	{ "{\"is_active\":false}", true, 0, NULL },
	{ "{\"is_active\":null}", false, -1, "is_active must be true or false" },
	{ "{\"is_active\":null}", true, -1, "is_active must be true or false" },
	{ "{\"is_active\":\"true\"}", true, -1, "is_active must be true or false" },
	{ "{\"is_active\":1}", true, -1, "is_active must be true or false" },
	{ "{\"is_active\":0}", true, -1, "is_active must be true or false" },
	{ "{\"is_active\":[]}", true, -1, "is_active must be true or false" },
	{ "{\"is_active\":{}}", true, -1, "is_active must be true or false" },
};

START_TEST(test_read_bool)
{
	int out = 42;
	int rc;

	load(bool_cases[_i].body);
	rc = jbody_read_bool(fx.body, "is_active", bool_cases[_i].required, &out, &fx.err);
	if (bool_cases[_i].msg != NULL) {
		expect_invalid(rc, bool_cases[_i].msg);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(out, bool_cases[_i].out);
}
END_TEST

/* --- jbody_read_id_list ------------------------------------------------------- */

static const struct {
	const char *body;
	size_t max_count;
	bool present;           /* on success */
	const char *ids[4];     /* on success, NULL-terminated */
	const char *msg;        /* NULL: succeeds */
} id_cases[] = {
	{ "{}", 10, false, { NULL }, NULL },
	{ "{\"permission_ids\":null}", 10, true, { NULL }, NULL },
	{ "{\"permission_ids\":[]}", 10, true, { NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",\"b\"]}", 10, true, { "a", "b", NULL }, NULL },
	{ "{\"permission_ids\":[\"b\",\"a\",\"b\",\"a\",\"c\"]}", 10, true,
	  { "b", "a", "c", NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",\"a\",\"a\"]}", 1, true, { "a", NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",\"A\"]}", 10, true, { "a", "A", NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",\"b\"]}", 2, true, { "a", "b", NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",\"b\",\"c\"]}", 2, false, { NULL },
	  "permission_ids must hold at most 2 IDs" },
	{ "{\"permission_ids\":[\"a\"]}", 0, false, { NULL },
	  "permission_ids must hold at most 0 IDs" },
	{ "{\"permission_ids\":[]}", 0, true, { NULL }, NULL },
	{ "{\"permission_ids\":[\"a\",1]}", 10, false, { NULL },
	  "permission_ids must contain only strings" },
	{ "{\"permission_ids\":[\"a\",null]}", 10, false, { NULL },
	  "permission_ids must contain only strings" },
	{ "{\"permission_ids\":[true]}", 10, false, { NULL },
	  "permission_ids must contain only strings" },
	{ "{\"permission_ids\":[[\"a\"]]}", 10, false, { NULL },
	  "permission_ids must contain only strings" },
	{ "{\"permission_ids\":[{\"id\":\"a\"}]}", 10, false, { NULL },
	  "permission_ids must contain only strings" },
	{ "{\"permission_ids\":[\"\"]}", 10, false, { NULL },
	  "permission_ids must not contain an empty ID" },
	{ "{\"permission_ids\":[\"a\",\"\"]}", 10, false, { NULL },
	  "permission_ids must not contain an empty ID" },
	{ "{\"permission_ids\":\"a\"}", 10, false, { NULL },
	  "permission_ids must be an array of IDs" },
	{ "{\"permission_ids\":\"\"}", 10, false, { NULL },
	  "permission_ids must be an array of IDs" },
	{ "{\"permission_ids\":{}}", 10, false, { NULL },
	  "permission_ids must be an array of IDs" },
	{ "{\"permission_ids\":1}", 10, false, { NULL },
	  "permission_ids must be an array of IDs" },
	{ "{\"permission_ids\":true}", 10, false, { NULL },
	  "permission_ids must be an array of IDs" },
};

START_TEST(test_read_id_list)
{
	size_t i, n = 0;
	int rc;

	load(id_cases[_i].body);
	rc = jbody_read_id_list(fx.body, "permission_ids", id_cases[_i].max_count, &fx.ids,
	                       &fx.err);
	if (id_cases[_i].msg != NULL) {
		expect_invalid(rc, id_cases[_i].msg);
		/* nothing left to release, and safe to release anyway */
		ck_assert(!fx.ids.present);
		ck_assert_uint_eq(fx.ids.count, 0);
		ck_assert_ptr_null(fx.ids.ids);
		return;
	}
	ck_assert_msg(rc == 0, "case %d failed: %s", _i, fx.err.description);
	ck_assert_int_eq(fx.ids.present, id_cases[_i].present);
	while (id_cases[_i].ids[n] != NULL)
		n++;
	ck_assert_uint_eq(fx.ids.count, n);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(fx.ids.ids[i], id_cases[_i].ids[i]);
}
END_TEST

START_TEST(test_read_id_list_lengths)
{
	const json_t *arr;

	body_with("x", "");
	json_object_set_new(fx.body, "permission_ids",
	                    json_pack("[s]", build("", "i", ID_MAX_CHARS, "")));
	ck_assert_int_eq(jbody_read_id_list(fx.body, "permission_ids", 10, &fx.ids, &fx.err), 0);
	ck_assert_uint_eq(fx.ids.count, 1);
	/* borrowed from the body */
	arr = json_object_get(fx.body, "permission_ids");
	ck_assert_ptr_eq(fx.ids.ids[0], json_string_value(json_array_get(arr, 0)));
	jbody_id_list_release(&fx.ids);

	json_object_set_new(fx.body, "permission_ids",
	                    json_pack("[s]", build("", EMOJI, ID_MAX_CHARS, "")));
	ck_assert_int_eq(jbody_read_id_list(fx.body, "permission_ids", 10, &fx.ids, &fx.err), 0);
	jbody_id_list_release(&fx.ids);

	json_object_set_new(fx.body, "permission_ids",
	                    json_pack("[ss]", "a", build("", "i", ID_MAX_CHARS + 1, "")));
	expect_invalid(jbody_read_id_list(fx.body, "permission_ids", 10, &fx.ids, &fx.err),
	               "permission_ids must contain IDs of at most 64 characters");
	ck_assert_ptr_null(fx.ids.ids);
}
END_TEST

/* Many duplicates of few IDs stay within max_count. */
START_TEST(test_read_id_list_many_duplicates)
{
	json_t *arr = json_array();
	size_t i;

	fx.body = json_object();
	json_object_set_new(fx.body, "permission_ids", arr);
	for (i = 0; i < 5000; i++)
		json_array_append_new(arr, json_string(i % 2 ? "odd" : "even"));
	ck_assert_int_eq(jbody_read_id_list(fx.body, "permission_ids", 2, &fx.ids, &fx.err), 0);
	ck_assert_uint_eq(fx.ids.count, 2);
	ck_assert_str_eq(fx.ids.ids[0], "even");
	ck_assert_str_eq(fx.ids.ids[1], "odd");
}
END_TEST

START_TEST(test_id_list_release_null)
{
	struct jbody_id_list empty = ID_LIST_INIT;

	jbody_id_list_release(NULL);
	jbody_id_list_release(&empty);
	jbody_id_list_release(&empty);
	ck_assert_ptr_null(empty.ids);
}
END_TEST

/* --- response helpers ----------------------------------------------------------- */

/* jbody_writer: the text jansson would write, members left out for NULL. */
START_TEST(test_writer_object)
{
	struct jbody_writer w;
	size_t len = 0;
	char *text;

	jbody_writer_init(&w, 4);   /* a small hint: the buffer grows */
	jbody_writer_string(&w, "a", "x y");
	jbody_writer_string(&w, "gone", NULL);
	jbody_writer_int(&w, "n", -42);
	jbody_writer_string(&w, "u", "h\xc3\xa9 \xe2\x82\xac ~");
	jbody_writer_int(&w, "big", 9007199254740993LL);
	jbody_writer_int(&w, "zero", 0);
	jbody_writer_int(&w, "min", LLONG_MIN);
	text = jbody_writer_finish(&w, &len);
	ck_assert_str_eq(text, "{\"a\":\"x y\",\"n\":-42,\"u\":\"h\xc3\xa9 \xe2\x82\xac ~\","
	                       "\"big\":9007199254740993,\"zero\":0,\"min\":-9223372036854775808}");
	ck_assert_uint_eq(len, strlen(text));
	free(text);

	jbody_writer_init(&w, 0);
	text = jbody_writer_finish(&w, &len);
	ck_assert_str_eq(text, "{}");
	free(text);
}
END_TEST

/* jbody_writer_text and jbody_writer_words write what jansson writes for
 * the same members, escapes included; what jansson refuses is left out. */
START_TEST(test_writer_text)
{
	struct jbody_writer w;
	json_t *o = json_object(), *a = json_array();
	char *got, *want;

	jbody_writer_init(&w, 8);
	jbody_writer_text(&w, "name", "Ann \"Q\" \\ \x01 \xc3\xa9");
	json_object_set_new(o, "name", json_string("Ann \"Q\" \\ \x01 \xc3\xa9"));
	jbody_writer_text(&w, "bad", "\xff\xfe");   /* invalid UTF-8: left out */
	jbody_writer_text(&w, "plain", "x");
	json_object_set_new(o, "plain", json_string("x"));
	jbody_writer_words(&w, "none", "   ");
	jbody_writer_words(&w, "words", " a:read  b\"c \xff d ");
	json_array_append_new(a, json_string("a:read"));
	json_array_append_new(a, json_string("b\"c"));
	json_array_append_new(a, json_string("d"));
	json_object_set_new(o, "words", a);
	jbody_writer_raw(&w, "flag", "true");
	json_object_set_new(o, "flag", json_true());
	got = jbody_writer_finish(&w, NULL);
	want = json_dumps(o, JSON_COMPACT);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	json_decref(o);
}
END_TEST

/* A byte that needs an escape refuses the object, wherever it stands in a
 * value of any length (the test runs eight bytes a word). */
START_TEST(test_writer_refuses_escapes)
{
	static const char bad[] = { '"', '\\', '\x01', '\n', '\x1f' };
	char value[40];

	for (size_t b = 0; b < sizeof bad; b++)
		for (size_t n = 1; n < sizeof value; n++)
			for (size_t at = 0; at < n; at++) {
				struct jbody_writer w;
				size_t len = 99;

				memset(value, 'a', n);
				value[n] = '\0';
				value[at] = bad[b];
				jbody_writer_init(&w, 16);
				jbody_writer_string(&w, "ok", "fine");
				jbody_writer_string(&w, "v", value);
				ck_assert_ptr_null(jbody_writer_finish(&w, &len));
				ck_assert_uint_eq(len, 0);
			}
}
END_TEST


START_TEST(test_string_or_null)
{
	fx.v = jbody_string_or_null(NULL);
	ck_assert(json_is_null(fx.v));
	json_decref(fx.v);
	fx.v = jbody_string_or_null("");
	ck_assert_str_eq(json_string_value(fx.v), "");
	json_decref(fx.v);
	fx.v = jbody_string_or_null("caf\xc3\xa9");
	ck_assert_str_eq(json_string_value(fx.v), "caf\xc3\xa9");
	json_decref(fx.v);
	fx.v = jbody_string_or_null("bad\xff");
	ck_assert(json_is_null(fx.v));
}
END_TEST

static const struct {
	long long ms;
	const char *text;
} ts_cases[] = {
	/* jbody_timestamp is format_timestamp's text (check_util.c tests the
	 * calendar), for any time the store holds */
	{ 1795348800123LL, "2026-11-22T12:00:00.123Z" },
	{ -1, "1969-12-31T23:59:59.999Z" },
	{ LLONG_MIN, "0000-01-01T00:00:00.000Z" },
	{ LLONG_MAX, "9999-12-31T23:59:59.999Z" },
};

START_TEST(test_timestamp)
{
	fx.v = jbody_timestamp(ts_cases[_i].ms);
	ck_assert(json_is_string(fx.v));
	ck_assert_str_eq(json_string_value(fx.v), ts_cases[_i].text);
}
END_TEST

#define tcase_new(name) check_tcase((name), setup, teardown)

static Suite *jbody_suite(void)
{
	Suite *s = suite_create("jbody");
	TCase *tc;

	tc = tcase_new("parse_body");
	tcase_add_loop_test(tc, test_parse_body, 0, N_ELEMS(body_cases));
	tcase_add_test(tc, test_parse_body_null);
	tcase_add_test(tc, test_parse_body_position);
	tcase_add_test(tc, test_parse_body_deep);
	tcase_add_test(tc, test_parse_body_moderate_depth);
	suite_add_tcase(s, tc);

	tc = tcase_new("read_string");
	tcase_add_loop_test(tc, test_read_string, 0, N_ELEMS(string_cases));
	tcase_add_test(tc, test_read_string_lengths);
	tcase_add_test(tc, test_read_string_nocheck);
	suite_add_tcase(s, tc);

	tc = tcase_new("read_bool");
	tcase_add_loop_test(tc, test_read_bool, 0, N_ELEMS(bool_cases));
	suite_add_tcase(s, tc);

	tc = tcase_new("read_id_list");
	tcase_add_loop_test(tc, test_read_id_list, 0, N_ELEMS(id_cases));
	tcase_add_test(tc, test_read_id_list_lengths);
	tcase_add_test(tc, test_read_id_list_many_duplicates);
	tcase_add_test(tc, test_id_list_release_null);
	suite_add_tcase(s, tc);

	tc = tcase_new("response");
	tcase_add_test(tc, test_string_or_null);
	tcase_add_test(tc, test_writer_object);
	tcase_add_test(tc, test_writer_refuses_escapes);
	tcase_add_test(tc, test_writer_text);
	tcase_add_loop_test(tc, test_timestamp, 0, N_ELEMS(ts_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(jbody_suite()));
}
