/*
 * Unit tests for form.c: form_parse, form_percent_decode,
 * form_content_type_is, and the readers of a parsed form or query string
 * (form_get, form_read_page, form_read_bool, form_read_enum). Nothing here
 * needs a loop or a socket. Every test owns what it allocates through the
 * fixture `fx`, released by the checked teardown even when an assertion
 * fails.
 *
 * The "regressions" case keeps the inputs of bugs found and fixed.
 */
#include <sys/queue.h>
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "check_suite.h"
#include "error.h"
#include "form.h"

#define LEN_STRLEN ((size_t)-1)

static struct {
	struct evkeyvalq q;
	struct api_error err;
	char *str;
	char pairs[512];   /* the parsed pairs, "k=v|k=v" */
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	TAILQ_INIT(&fx.q);
}

static void teardown(void)
{
	evhttp_clear_headers(&fx.q);
	free(fx.str);
}

/* Writes fx.q as "k=v|k=v" into fx.pairs. */
static const char *dump_pairs(void)
{
	struct evkeyval *kv;
	size_t n = 0;

	fx.pairs[0] = '\0';
	TAILQ_FOREACH(kv, &fx.q, next) {
		n += (size_t)snprintf(fx.pairs + n, sizeof fx.pairs - n, "%s%s=%s", n ? "|" : "",
		                      kv->key, kv->value);
		ck_assert_uint_lt(n, sizeof fx.pairs);
	}
	return fx.pairs;
}

static size_t count_pairs(void)
{
	struct evkeyval *kv;
	size_t n = 0;

	TAILQ_FOREACH(kv, &fx.q, next)
		n++;
	return n;
}

/* Parses a query string into fx.q with libevent's own parser, so that the
 * readers are tested apart from form_parse. */
static void query(const char *qs)
{
	ck_assert_msg(evhttp_parse_query_str(qs, &fx.q) == 0, "bad test query: %s", qs);
}

#define expect_invalid(rc, msg) check_invalid_params(&fx.err, (rc), (msg))

/* --- form_parse ------------------------------------------------------------- */

static const struct {
	const char *desc;
	const char *data;
	size_t len;          /* LEN_STRLEN: strlen(data) */
	int rc;
	const char *pairs;   /* when rc is 0 */
} form_cases[] = {
	{ "two pairs", "a=1&b=2", LEN_STRLEN, 0, "a=1|b=2" },
	{ "empty body", "", LEN_STRLEN, 0, "" },
	{ "plus is a space", "name=John+Smith", LEN_STRLEN, 0, "name=John Smith" },
	{ "plus in a key", "a+b=c", LEN_STRLEN, 0, "a b=c" },
	{ "%20 is a space", "q=a%20b", LEN_STRLEN, 0, "q=a b" },
	{ "%2B is a plus", "q=a%2Bb", LEN_STRLEN, 0, "q=a+b" },
	{ "lower-case hex", "q=%2b%2f", LEN_STRLEN, 0, "q=+/" },
	{ "escaped key", "%61=1", LEN_STRLEN, 0, "a=1" },
	{ "escaped & and =", "a=%26%3D", LEN_STRLEN, 0, "a=&=" },
	{ "UTF-8 escaped", "n=caf%C3%A9", LEN_STRLEN, 0, "n=caf\xc3\xa9" },
	{ "UTF-8 raw", "n=caf\xc3\xa9", LEN_STRLEN, 0, "n=caf\xc3\xa9" },
	{ "second '=' is in the value", "a=1=2", LEN_STRLEN, 0, "a=1=2" },
	{ "empty value", "a=&b=2", LEN_STRLEN, 0, "a=|b=2" },
	{ "key without '='", "a&b=2", LEN_STRLEN, 0, "a=|b=2" },
	{ "only a key", "flag", LEN_STRLEN, 0, "flag=" },
	{ "empty pair in the middle", "a=1&&b=2", LEN_STRLEN, 0, "a=1|b=2" },
	{ "leading and trailing '&'", "&a=1&", LEN_STRLEN, 0, "a=1" },
	{ "only '&'", "&&&", LEN_STRLEN, 0, "" },
	{ "duplicates kept", "a=1&a=2", LEN_STRLEN, 0, "a=1|a=2" },
	{ "duplicates kept, in order", "x=1&y=2&x=3", LEN_STRLEN, 0, "x=1|y=2|x=3" },
	{ "len cuts the data", "a=1&b=2", 3, 0, "a=1" },
	{ "len cuts an escape", "a=%41", 4, -1, NULL },
	{ "empty key", "=1", LEN_STRLEN, -1, NULL },
	{ "empty key after a good pair", "a=1&=2", LEN_STRLEN, -1, NULL },
	{ "bare '='", "=", LEN_STRLEN, -1, NULL },
	{ "%zz", "a=%zz", LEN_STRLEN, -1, NULL },
	{ "%4 at the end", "a=%4", LEN_STRLEN, -1, NULL },
	{ "%4 before '&'", "a=%4&b=1", LEN_STRLEN, -1, NULL },
	{ "% at the end", "a=%", LEN_STRLEN, -1, NULL },
	{ "% alone in a key", "%=1", LEN_STRLEN, -1, NULL },
	{ "%g1", "a=%g1", LEN_STRLEN, -1, NULL },
	{ "%00", "a=%00", LEN_STRLEN, -1, NULL },
	{ "%00 in a key", "a%00b=1", LEN_STRLEN, -1, NULL },
	{ "%ff is not UTF-8", "a=%ff", LEN_STRLEN, -1, NULL },
	{ "%C3 truncated UTF-8", "a=%C3", LEN_STRLEN, -1, NULL },
	{ "%C0%AF overlong", "a=%C0%AF", LEN_STRLEN, -1, NULL },
	{ "%ED%A0%80 surrogate", "a=%ED%A0%80", LEN_STRLEN, -1, NULL },
	{ "raw invalid UTF-8", "a=\xff", LEN_STRLEN, -1, NULL },
	{ "raw invalid UTF-8 in a key", "\xc3=1", LEN_STRLEN, -1, NULL },
};

START_TEST(test_form_parse)
{
	size_t len = form_cases[_i].len == LEN_STRLEN ? strlen(form_cases[_i].data)
	                                               : form_cases[_i].len;
	int rc = form_parse(form_cases[_i].data, len, &fx.q);

	ck_assert_msg(rc == form_cases[_i].rc, "%s: form_parse returned %d", form_cases[_i].desc,
	              rc);
	if (rc == 0)
		ck_assert_msg(!strcmp(dump_pairs(), form_cases[_i].pairs),
		              "%s: pairs \"%s\", expected \"%s\"", form_cases[_i].desc, fx.pairs,
		              form_cases[_i].pairs);
}
END_TEST

/* form_parse appends to what q holds. */
START_TEST(test_form_parse_appends)
{
	ck_assert_int_eq(form_parse("a=1", 3, &fx.q), 0);
	ck_assert_int_eq(form_parse("b=2&a=3", 7, &fx.q), 0);
	ck_assert_str_eq(dump_pairs(), "a=1|b=2|a=3");
	ck_assert_uint_eq(count_pairs(), 3);
	/* the values are readable through libevent's own lookup */
	ck_assert_str_eq(evhttp_find_header(&fx.q, "b"), "2");
}
END_TEST

/* A failure part-way leaves the pairs before it in q; clearing frees them. */
START_TEST(test_form_parse_failure_after_pairs)
{
	ck_assert_int_eq(form_parse("a=1&b=2&c=%zz&d=4", 17, &fx.q), -1);
	ck_assert_uint_le(count_pairs(), 2);
}
END_TEST

/* --- form_percent_decode -------------------------------------------------- */

static const struct {
	const char *in;
	size_t len;          /* LEN_STRLEN: strlen(in) */
	bool plus;
	const char *out;     /* NULL: fails */
} decode_cases[] = {
	{ "", LEN_STRLEN, true, "" },
	{ "abc", LEN_STRLEN, true, "abc" },
	{ "a+b", LEN_STRLEN, true, "a b" },
	{ "a+b", LEN_STRLEN, false, "a+b" },
	{ "a%20b", LEN_STRLEN, false, "a b" },
	{ "a%2Bb", LEN_STRLEN, true, "a+b" },
	{ "%41%42%43", LEN_STRLEN, true, "ABC" },
	{ "%e2%82%ac", LEN_STRLEN, true, "\xe2\x82\xac" },
	{ "%F0%9F%98%80", LEN_STRLEN, false, "\xf0\x9f\x98\x80" },
	{ "%2525", LEN_STRLEN, true, "%25" },   /* decoded once */
	{ "abc%41", 3, true, "abc" },            /* len is honoured */
	{ "%41zz", 3, true, "A" },
	{ "%41", 2, true, NULL },                /* the escape is cut by len */
	{ "%zz", LEN_STRLEN, true, NULL },
	{ "%4", LEN_STRLEN, true, NULL },
	{ "%", LEN_STRLEN, true, NULL },
	{ "a%", LEN_STRLEN, false, NULL },
	{ "%%41", LEN_STRLEN, true, NULL },
	{ "% 1", LEN_STRLEN, true, NULL },
	{ "%00", LEN_STRLEN, true, NULL },
	{ "a%00", LEN_STRLEN, false, NULL },
	{ "%ff", LEN_STRLEN, true, NULL },
	{ "%c3%28", LEN_STRLEN, true, NULL },
	{ "%f4%90%80%80", LEN_STRLEN, true, NULL },   /* U+110000 */
	{ "\xe2\x82", LEN_STRLEN, true, NULL },
};

START_TEST(test_form_percent_decode)
{
	size_t len = decode_cases[_i].len == LEN_STRLEN ? strlen(decode_cases[_i].in)
	                                                 : decode_cases[_i].len;

	fx.str = form_percent_decode(decode_cases[_i].in, len, decode_cases[_i].plus);
	if (decode_cases[_i].out == NULL)
		ck_assert_msg(fx.str == NULL, "form_percent_decode(\"%s\", %zu): \"%s\", expected NULL",
		              decode_cases[_i].in, len, fx.str);
	else {
		ck_assert_msg(fx.str != NULL, "form_percent_decode(\"%s\", %zu) failed",
		              decode_cases[_i].in, len);
		ck_assert_str_eq(fx.str, decode_cases[_i].out);
	}
}
END_TEST

/* --- form_content_type_is --------------------------------------------------- */

static const struct {
	const char *header;
	const char *type;
	bool is;
} ctype_cases[] = {
	{ "application/json", "application/json", true },
	{ "application/json; charset=utf-8", "application/json", true },
	{ "application/json;charset=UTF-8", "application/json", true },
	{ "APPLICATION/JSON", "application/json", true },
	{ "Application/Json", "application/json", true },
	{ " application/json ;x=y", "application/json", true },
	{ "\tapplication/json\t", "application/json", true },
	{ "application/x-www-form-urlencoded; charset=UTF-8", "application/x-www-form-urlencoded",
	  true },
	{ "application/jsonp", "application/json", false },
	{ "application/json-patch+json", "application/json", false },
	{ "text/json", "application/json", false },
	{ "application/jso", "application/json", false },
	{ "application", "application/json", false },
	{ "", "application/json", false },
	{ " ", "application/json", false },
	{ ";application/json", "application/json", false },
	{ "application/json, text/plain", "application/json", false },
	{ "multipart/form-data", "application/x-www-form-urlencoded", false },
	{ "application/json", "application/x-www-form-urlencoded", false },
	{ NULL, "application/json", false },
};

START_TEST(test_form_content_type_is)
{
	ck_assert_msg(form_content_type_is(ctype_cases[_i].header, ctype_cases[_i].type) ==
	              ctype_cases[_i].is, "form_content_type_is(\"%s\", \"%s\"): expected %s",
	              ctype_cases[_i].header ? ctype_cases[_i].header : "(null)",
	              ctype_cases[_i].type, ctype_cases[_i].is ? "true" : "false");
}
END_TEST

/* --- readers: form_get, form_read_* --------------------------------------- */

static const struct {
	const char *qs;
	const char *value;   /* on success: NULL when absent (the default stays) */
	const char *msg;     /* NULL: succeeds */
} get_cases[] = {
	{ "", NULL, NULL },
	{ "other=1", NULL, NULL },
	{ "Search=x", NULL, NULL },
	{ "search=abc", "abc", NULL },
	{ "search=", "", NULL },
	{ "search=a%20b", "a b", NULL },
	{ "search=caf%C3%A9", "caf\xc3\xa9", NULL },
	{ "search=a&search=b", NULL, "search must not be given more than once" },
	{ "search=a&search=a", NULL, "search must not be given more than once" },
	{ "search=a&x=1&search=", NULL, "search must not be given more than once" },
	{ "search=%FF", NULL, "search must be valid UTF-8" },
	{ "search=%C0%AF", NULL, "search must be valid UTF-8" },
};

START_TEST(test_form_get)
{
	const char *dflt = "default";
	const char *out = dflt;
	int rc;

	query(get_cases[_i].qs);
	rc = form_get(&fx.q, "search", &out, &fx.err);
	if (get_cases[_i].msg != NULL) {
		expect_invalid(rc, get_cases[_i].msg);
		return;
	}
	ck_assert_int_eq(rc, 0);
	if (get_cases[_i].value == NULL)
		ck_assert_ptr_eq(out, dflt);
	else
		ck_assert_str_eq(out, get_cases[_i].value);
}
END_TEST

#define PAGE_SIZE_MSG "page_size must be an integer from 1 to 100"
#define PAGE_NUM_MSG "page_num must be an integer from 1 to "

static const struct {
	const char *qs;
	long num, size;      /* on success */
	const char *msg;     /* NULL: succeeds */
} page_cases[] = {
	{ "", 1, 10, NULL },
	{ "page_num=2&page_size=100", 2, 100, NULL },
	{ "page_size=1", 1, 1, NULL },
	{ "page_num=3", 3, 10, NULL },
	{ "page_num=1000000", 1000000, 10, NULL },
	{ "page_size=007", 1, 7, NULL },
	{ "page_size=0", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=101", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=-1", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=abc", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=1e3", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=1e1", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=%2B5", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=%205", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=5%20", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=5.0", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=0x10", 0, 0, PAGE_SIZE_MSG },
	{ "page_size=99999999999999999999999", 0, 0, PAGE_SIZE_MSG },
	{ "page_num=0", 0, 0, PAGE_NUM_MSG },
	{ "page_num=-1", 0, 0, PAGE_NUM_MSG },
	{ "page_num=abc", 0, 0, PAGE_NUM_MSG },
	{ "page_num=1e3", 0, 0, PAGE_NUM_MSG },
	{ "page_num=", 0, 0, PAGE_NUM_MSG },
	{ "page_num=99999999999999999999999", 0, 0, PAGE_NUM_MSG },
	{ "page_size=10&page_size=10", 0, 0, "page_size must not be given more than once" },
	{ "page_num=1&page_num=2", 0, 0, "page_num must not be given more than once" },
};

START_TEST(test_form_read_page)
{
	long num = -7, size = -7;
	int rc;

	query(page_cases[_i].qs);
	rc = form_read_page(&fx.q, &num, &size, &fx.err);
	if (page_cases[_i].msg != NULL) {
		expect_invalid(rc, page_cases[_i].msg);
		return;
	}
	ck_assert_msg(rc == 0, "\"%s\" failed: %s", page_cases[_i].qs, fx.err.description);
	ck_assert_int_eq(num, page_cases[_i].num);
	ck_assert_int_eq(size, page_cases[_i].size);
}
END_TEST

/* No page_num is so large that (page_num - 1) * page_size overflows a long. */
START_TEST(test_form_read_page_offset_fits)
{
	char qs[96];
	long num, size;

	snprintf(qs, sizeof qs, "page_num=%ld&page_size=100", LONG_MAX / 100);
	query(qs);
	ck_assert_int_eq(form_read_page(&fx.q, &num, &size, &fx.err), 0);
	ck_assert(num - 1 <= LONG_MAX / size);
	evhttp_clear_headers(&fx.q);
	snprintf(qs, sizeof qs, "page_num=%ld", LONG_MAX / 100 + 1);
	query(qs);
	expect_invalid(form_read_page(&fx.q, &num, &size, &fx.err), PAGE_NUM_MSG);
}
END_TEST

static const struct {
	const char *qs;
	int out;           /* on success */
	const char *msg;   /* NULL: succeeds */
} qbool_cases[] = {
	{ "", -1, NULL },
	{ "is_active=true", 1, NULL },
	{ "is_active=false", 0, NULL },
	{ "is_active=TRUE", 0, "is_active must be true or false" },
	{ "is_active=True", 0, "is_active must be true or false" },
	{ "is_active=1", 0, "is_active must be true or false" },
	{ "is_active=0", 0, "is_active must be true or false" },
	{ "is_active=yes", 0, "is_active must be true or false" },
	{ "is_active=", 0, "is_active must be true or false" },
	{ "is_active=true%20", 0, "is_active must be true or false" },
	{ "is_active=true&is_active=true", 0, "is_active must not be given more than once" },
};

START_TEST(test_form_read_bool)
{
	int out = 42;
	int rc;

	query(qbool_cases[_i].qs);
	rc = form_read_bool(&fx.q, "is_active", &out, &fx.err);
	if (qbool_cases[_i].msg != NULL) {
		expect_invalid(rc, qbool_cases[_i].msg);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(out, qbool_cases[_i].out);
}
END_TEST

static const char *const sort_by[] = { "created_at", "updated_at", "name", "code" };
#define SORT_BY_MSG "sort_by must be one of created_at, updated_at, name, code"

static const struct {
	const char *qs;
	size_t out;        /* on success */
	const char *msg;   /* NULL: succeeds */
} enum_cases[] = {
	{ "", 0, NULL },
	{ "sort_by=created_at", 0, NULL },
	{ "sort_by=name", 2, NULL },
	{ "sort_by=code", 3, NULL },
	{ "sort_by=NAME", 0, SORT_BY_MSG },
	{ "sort_by=", 0, SORT_BY_MSG },
	{ "sort_by=nam", 0, SORT_BY_MSG },
	{ "sort_by=name%20", 0, SORT_BY_MSG },
	{ "sort_by=name;drop", 0, SORT_BY_MSG },
	{ "sort_by=name&sort_by=code", 0, "sort_by must not be given more than once" },
};

START_TEST(test_form_read_enum)
{
	size_t out = 42;
	int rc;

	query(enum_cases[_i].qs);
	rc = form_read_enum(&fx.q, "sort_by", sort_by, N_ELEMS(sort_by), 0, &out, &fx.err);
	if (enum_cases[_i].msg != NULL) {
		expect_invalid(rc, enum_cases[_i].msg);
		ck_assert_str_eq(fx.err.description, enum_cases[_i].msg);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(out, enum_cases[_i].out);
}
END_TEST

START_TEST(test_form_read_enum_default_and_long_list)
{
	static const char *const dir[] = { "asc", "desc" };
	static const char *const many[] = {
		"a_rather_long_value_number_01", "a_rather_long_value_number_02",
		"a_rather_long_value_number_03", "a_rather_long_value_number_04",
		"a_rather_long_value_number_05", "a_rather_long_value_number_06",
	};
	size_t out = 42;

	query("sort_by=x");
	ck_assert_int_eq(form_read_enum(&fx.q, "sort_dir", dir, 2, 1, &out, &fx.err), 0);
	ck_assert_uint_eq(out, 1);
	expect_invalid(form_read_enum(&fx.q, "sort_by", many, N_ELEMS(many), 0, &out, &fx.err),
	               "sort_by has a value that is not allowed");
}
END_TEST

/* --- regressions ------------------------------------------------------------ */

/* form_percent_decode (then http.c's percent_decode) once copied s with
 * strndup, which stops at a NUL byte, and then scanned len bytes of the
 * copy: a read past the allocation and a value silently cut. A raw NUL now
 * fails, as form.h promises. */
START_TEST(regression_raw_nul_byte)
{
	fx.str = form_percent_decode("a\0bcdef", 7, true);
	ck_assert_msg(fx.str == NULL, "form_percent_decode(\"a\\0bcdef\", 7) gave \"%s\"", fx.str);
	ck_assert_int_eq(form_parse("k=a\0bcdef", 9, &fx.q), -1);
}
END_TEST

#define tcase_new(name) check_tcase((name), setup, teardown)

static Suite *form_suite(void)
{
	Suite *s = suite_create("form");
	TCase *tc;

	tc = tcase_new("parse");
	tcase_add_loop_test(tc, test_form_parse, 0, N_ELEMS(form_cases));
	tcase_add_test(tc, test_form_parse_appends);
	tcase_add_test(tc, test_form_parse_failure_after_pairs);
	tcase_add_loop_test(tc, test_form_percent_decode, 0, N_ELEMS(decode_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("content_type");
	tcase_add_loop_test(tc, test_form_content_type_is, 0, N_ELEMS(ctype_cases));
	suite_add_tcase(s, tc);

	tc = tcase_new("readers");
	tcase_add_loop_test(tc, test_form_get, 0, N_ELEMS(get_cases));
	tcase_add_loop_test(tc, test_form_read_page, 0, N_ELEMS(page_cases));
	tcase_add_test(tc, test_form_read_page_offset_fits);
	tcase_add_loop_test(tc, test_form_read_bool, 0, N_ELEMS(qbool_cases));
	tcase_add_loop_test(tc, test_form_read_enum, 0, N_ELEMS(enum_cases));
	tcase_add_test(tc, test_form_read_enum_default_and_long_list);
	suite_add_tcase(s, tc);

	tc = tcase_new("regressions");
	tcase_add_test(tc, regression_raw_nul_byte);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(form_suite()));
}
