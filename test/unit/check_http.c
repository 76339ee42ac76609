/*
 * Unit tests for the pure helpers of http.c (form_parse, percent_decode,
 * content_type_is) and of listing.c (list parameters, LIKE patterns, the list
 * envelope). Nothing here needs a loop or a socket. Every test owns what it
 * allocates through the fixture `fx`, released by the checked teardown even
 * when an assertion fails.
 *
 * The "regressions" case keeps the inputs of bugs found and fixed.
 */
#include <sys/queue.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "error.h"
#include "http.h"
#include "listing.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define LEN_STRLEN ((size_t)-1)

static struct {
	struct evkeyvalq q;
	struct list_params lp;
	struct api_error err;
	char *str;
	json_t *json;
	char pairs[512];   /* the parsed pairs, "k=v|k=v" */
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	TAILQ_INIT(&fx.q);
	fx.lp = (struct list_params)LIST_PARAMS_INIT;
}

static void teardown(void)
{
	evhttp_clear_headers(&fx.q);
	list_params_release(&fx.lp);
	free(fx.str);
	json_decref(fx.json);
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

/* --- percent_decode ------------------------------------------------------- */

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

START_TEST(test_percent_decode)
{
	size_t len = decode_cases[_i].len == LEN_STRLEN ? strlen(decode_cases[_i].in)
	                                                 : decode_cases[_i].len;

	fx.str = percent_decode(decode_cases[_i].in, len, decode_cases[_i].plus);
	if (decode_cases[_i].out == NULL)
		ck_assert_msg(fx.str == NULL, "percent_decode(\"%s\", %zu): \"%s\", expected NULL",
		              decode_cases[_i].in, len, fx.str);
	else {
		ck_assert_msg(fx.str != NULL, "percent_decode(\"%s\", %zu) failed",
		              decode_cases[_i].in, len);
		ck_assert_str_eq(fx.str, decode_cases[_i].out);
	}
}
END_TEST

/* --- content_type_is -------------------------------------------------------- */

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

START_TEST(test_content_type_is)
{
	ck_assert_msg(content_type_is(ctype_cases[_i].header, ctype_cases[_i].type) ==
	              ctype_cases[_i].is, "content_type_is(\"%s\", \"%s\"): expected %s",
	              ctype_cases[_i].header ? ctype_cases[_i].header : "(null)",
	              ctype_cases[_i].type, ctype_cases[_i].is ? "true" : "false");
}
END_TEST

/* --- like_pattern ------------------------------------------------------------ */

static const struct {
	const char *term;
	const char *pattern;
} like_cases[] = {
	{ "", "%%" },
	{ "abc", "%abc%" },
	{ "50%", "%50\\%%" },
	{ "a_b", "%a\\_b%" },
	{ "back\\slash", "%back\\\\slash%" },
	{ "%_\\", "%\\%\\_\\\\%" },
	{ "%%", "%\\%\\%%" },
	{ "caf\xc3\xa9", "%caf\xc3\xa9%" },
	{ "it's \"x\"", "%it's \"x\"%" },
};

START_TEST(test_like_pattern)
{
	fx.str = like_pattern(like_cases[_i].term);
	ck_assert_ptr_nonnull(fx.str);
	ck_assert_str_eq(fx.str, like_cases[_i].pattern);
}
END_TEST

/* --- list_read_params ------------------------------------------------------- */

static const char *const sort_keys[] = { "created_at", "updated_at", "name", "is_active" };

/* Parses a query string into fx.q (the query itself must be well formed). */
static void query(const char *qs)
{
	ck_assert_msg(form_parse(qs, strlen(qs), &fx.q) == 0, "bad test query: %s", qs);
}

START_TEST(test_list_defaults)
{
	ck_assert_int_eq(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err), 0);
	ck_assert_int_eq(fx.lp.page_num, 1);
	ck_assert_int_eq(fx.lp.page_size, 10);
	ck_assert_uint_eq(fx.lp.sort, 0);
	ck_assert(fx.lp.desc);
	ck_assert_ptr_null(fx.lp.like);
	ck_assert_int_eq(list_offset(&fx.lp), 0);
}
END_TEST

static const struct {
	const char *qs;
	long page_num, page_size;
	size_t sort;
	bool desc;
	const char *like;   /* NULL: none */
} list_ok_cases[] = {
	{ "page_num=2", 2, 10, 0, true, NULL },
	{ "page_size=1", 1, 1, 0, true, NULL },
	{ "page_size=100", 1, 100, 0, true, NULL },
	{ "page_num=3&page_size=25", 3, 25, 0, true, NULL },
	{ "page_num=007", 7, 10, 0, true, NULL },
	{ "sort_by=name", 1, 10, 2, true, NULL },
	{ "sort_by=is_active&sort_dir=asc", 1, 10, 3, false, NULL },
	{ "sort_dir=asc", 1, 10, 0, false, NULL },
	{ "sort_dir=desc", 1, 10, 0, true, NULL },
	{ "sort_by=created_at&sort_dir=desc", 1, 10, 0, true, NULL },
	{ "sort_by=updated_at", 1, 10, 1, true, NULL },
	{ "search=bob", 1, 10, 0, true, "%bob%" },
	{ "search=50%25_off", 1, 10, 0, true, "%50\\%\\_off%" },
	{ "search=a+b", 1, 10, 0, true, "%a b%" },
	{ "search=", 1, 10, 0, true, NULL },   /* an empty search is no search */
	{ "other=1&page_num=4", 4, 10, 0, true, NULL },   /* unknown keys ignored */
};

START_TEST(test_list_ok)
{
	query(list_ok_cases[_i].qs);
	ck_assert_msg(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err) == 0,
	              "%s: %s", list_ok_cases[_i].qs, fx.err.description);
	ck_assert_int_eq(fx.lp.page_num, list_ok_cases[_i].page_num);
	ck_assert_int_eq(fx.lp.page_size, list_ok_cases[_i].page_size);
	ck_assert_uint_eq(fx.lp.sort, list_ok_cases[_i].sort);
	ck_assert_int_eq(fx.lp.desc, list_ok_cases[_i].desc);
	if (list_ok_cases[_i].like)
		ck_assert_pstr_eq(fx.lp.like, list_ok_cases[_i].like);
	else
		ck_assert_ptr_null(fx.lp.like);
}
END_TEST

static const char *const list_bad_cases[] = {
	"page_num=0",
	"page_num=-1",
	"page_num=abc",
	"page_num=",
	"page_num=1.5",
	"page_num=+2",
	"page_num=99999999999999999999999",
	"page_size=0",
	"page_size=101",
	"page_size=-10",
	"page_size=ten",
	"page_size=",
	"page_num=1&page_num=2",
	"page_size=10&page_size=10",
	"sort_by=email",
	"sort_by=",
	"sort_by=Name",
	"sort_by=name%20",
	"sort_dir=ASC",
	"sort_dir=ascending",
	"sort_dir=",
	"sort_dir=asc&sort_dir=asc",
	"sort_by=name&sort_by=name",
	"search=a&search=b",
};

START_TEST(test_list_bad)
{
	query(list_bad_cases[_i]);
	ck_assert_msg(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err) == -1,
	              "%s: accepted", list_bad_cases[_i]);
	ck_assert_str_eq(fx.err.code, "invalid_params");
	ck_assert_int_eq(fx.err.status, 400);
	ck_assert_str_ne(fx.err.description, "");
}
END_TEST

/* With no sort keys, the endpoint has no sort: sort_by and sort_dir are not read. */
START_TEST(test_list_no_sort_keys)
{
	query("sort_by=anything&sort_dir=sideways&page_num=2");
	ck_assert_int_eq(list_read_params(&fx.q, NULL, 0, &fx.lp, &fx.err), 0);
	ck_assert_int_eq(fx.lp.page_num, 2);
	ck_assert_uint_eq(fx.lp.sort, 0);
}
END_TEST

/* Reading twice into the same params replaces the pattern without leaking it. */
START_TEST(test_list_read_twice)
{
	query("search=x");
	ck_assert_int_eq(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err), 0);
	ck_assert_pstr_eq(fx.lp.like, "%x%");
	evhttp_clear_headers(&fx.q);
	query("search=y_");
	ck_assert_int_eq(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err), 0);
	ck_assert_pstr_eq(fx.lp.like, "%y\\_%");
	evhttp_clear_headers(&fx.q);
	ck_assert_int_eq(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err), 0);
	ck_assert_ptr_null(fx.lp.like);
}
END_TEST

/* --- list_offset and list_response --------------------------------------- */

static const struct {
	long page_num, page_size;
	long long offset;
} offset_cases[] = {
	{ 1, 10, 0 },
	{ 2, 10, 10 },
	{ 3, 25, 50 },
	{ 1, 100, 0 },
	{ 7, 1, 6 },
	{ 100000000, 100, 9999999900LL },   /* does not overflow an int */
};

START_TEST(test_list_offset)
{
	struct list_params p = LIST_PARAMS_INIT;

	p.page_num = offset_cases[_i].page_num;
	p.page_size = offset_cases[_i].page_size;
	ck_assert_int_eq(list_offset(&p), offset_cases[_i].offset);
}
END_TEST

START_TEST(test_list_response)
{
	json_t *data = json_pack("[{s:i}, {s:i}]", "id", 1, "id", 2);

	query("page_num=3&page_size=2");
	ck_assert_int_eq(list_read_params(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lp, &fx.err), 0);
	fx.json = list_response(data, &fx.lp, 7);   /* steals data */
	ck_assert_ptr_nonnull(fx.json);
	ck_assert(json_is_object(fx.json));
	ck_assert_uint_eq(json_object_size(fx.json), 4);
	ck_assert_ptr_eq(json_object_get(fx.json, "data"), data);
	ck_assert_uint_eq(json_array_size(json_object_get(fx.json, "data")), 2);
	ck_assert(json_is_integer(json_object_get(fx.json, "page_num")));
	ck_assert_int_eq(json_integer_value(json_object_get(fx.json, "page_num")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(fx.json, "page_size")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(fx.json, "total")), 7);
	ck_assert_int_eq(data->refcount, 1);   /* held by the envelope only */
}
END_TEST

START_TEST(test_list_response_empty_page)
{
	struct list_params p = LIST_PARAMS_INIT;

	p.page_num = 5;
	fx.json = list_response(json_array(), &p, 0);
	fx.str = json_dumps(fx.json, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_str_eq(fx.str, "{\"data\":[],\"page_num\":5,\"page_size\":10,\"total\":0}");
}
END_TEST

/* --- regressions ------------------------------------------------------------ */

/* percent_decode once copied s with strndup, which stops at a NUL byte, and
 * then scanned len bytes of the copy: a read past the allocation and a value
 * silently cut. A raw NUL now fails, as http.h promises. */
START_TEST(regression_raw_nul_byte)
{
	fx.str = percent_decode("a\0bcdef", 7, true);
	ck_assert_msg(fx.str == NULL, "percent_decode(\"a\\0bcdef\", 7) gave \"%s\"", fx.str);
	ck_assert_int_eq(form_parse("k=a\0bcdef", 9, &fx.q), -1);
}
END_TEST

static Suite *http_suite(void)
{
	Suite *s = suite_create("http");
	TCase *tc;

	tc = tcase_create("form");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_form_parse, 0, N_ELEMS(form_cases));
	tcase_add_test(tc, test_form_parse_appends);
	tcase_add_test(tc, test_form_parse_failure_after_pairs);
	tcase_add_loop_test(tc, test_percent_decode, 0, N_ELEMS(decode_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("content_type");
	tcase_add_loop_test(tc, test_content_type_is, 0, N_ELEMS(ctype_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("listing");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_like_pattern, 0, N_ELEMS(like_cases));
	tcase_add_test(tc, test_list_defaults);
	tcase_add_loop_test(tc, test_list_ok, 0, N_ELEMS(list_ok_cases));
	tcase_add_loop_test(tc, test_list_bad, 0, N_ELEMS(list_bad_cases));
	tcase_add_test(tc, test_list_no_sort_keys);
	tcase_add_test(tc, test_list_read_twice);
	tcase_add_loop_test(tc, test_list_offset, 0, N_ELEMS(offset_cases));
	tcase_add_test(tc, test_list_response);
	tcase_add_test(tc, test_list_response_empty_page);
	suite_add_tcase(s, tc);

	tc = tcase_create("regressions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, regression_raw_nul_byte);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(http_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
