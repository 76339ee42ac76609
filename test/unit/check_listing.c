/*
 * Unit tests for listing.c (list parameters, LIKE patterns, the list
 * envelope). Nothing here needs a loop or a socket. Every test owns what it
 * allocates through the fixture `fx`, released by the checked teardown even
 * when an assertion fails.
 */
#include <sys/queue.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "check_suite.h"
#include "error.h"
#include "form.h"
#include "list_params.h"


static struct {
	struct evkeyvalq q;
	struct list_query lq;
	struct api_error err;
	char *str;
	json_t *json;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	TAILQ_INIT(&fx.q);
	fx.lq = (struct list_query)LIST_QUERY_INIT;
}

static void teardown(void)
{
	evhttp_clear_headers(&fx.q);
	free(fx.str);
	json_decref(fx.json);
}

/* --- list_read_query ---------------------------------------------------------- */

static const char *const sort_keys[] = { "created_at", "updated_at", "name", "is_active" };

/* Parses a query string into fx.q (the query itself must be well formed). */
static void query(const char *qs)
{
	ck_assert_msg(form_parse(qs, strlen(qs), &fx.q) == 0, "bad test query: %s", qs);
}

START_TEST(test_list_defaults)
{
	ck_assert_int_eq(list_read_query(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lq, &fx.err), 0);
	ck_assert_int_eq(fx.lq.page_num, 1);
	ck_assert_int_eq(fx.lq.page_size, 10);
	ck_assert_uint_eq(fx.lq.sort, 0);
	ck_assert(fx.lq.desc);
	ck_assert_ptr_null(fx.lq.search);
	ck_assert_int_eq(fx.lq.is_active, -1);
	ck_assert_int_eq(fx.lq.is_default, -1);
	ck_assert_ptr_null(fx.lq.role_id);
	ck_assert_int_eq(list_offset(&fx.lq), 0);
}
END_TEST

static const struct {
	const char *qs;
	long page_num, page_size;
	size_t sort;
	bool desc;
	const char *search;   /* the raw term; NULL: none */
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
	{ "search=bob", 1, 10, 0, true, "bob" },
	{ "search=50%25_off", 1, 10, 0, true, "50%_off" },
	{ "search=a+b", 1, 10, 0, true, "a b" },
	{ "search=back%5Cslash", 1, 10, 0, true, "back\\slash" },
	{ "search=", 1, 10, 0, true, NULL },   /* an empty search is no search */
	{ "other=1&page_num=4", 4, 10, 0, true, NULL },   /* unknown keys ignored */
};

START_TEST(test_list_ok)
{
	query(list_ok_cases[_i].qs);
	ck_assert_msg(list_read_query(&fx.q, sort_keys, N_ELEMS(sort_keys), &fx.lq, &fx.err) == 0,
	              "%s: %s", list_ok_cases[_i].qs, fx.err.description);
	ck_assert_int_eq(fx.lq.page_num, list_ok_cases[_i].page_num);
	ck_assert_int_eq(fx.lq.page_size, list_ok_cases[_i].page_size);
	ck_assert_uint_eq(fx.lq.sort, list_ok_cases[_i].sort);
	ck_assert_int_eq(fx.lq.desc, list_ok_cases[_i].desc);
	if (list_ok_cases[_i].search)
		ck_assert_pstr_eq(fx.lq.search, list_ok_cases[_i].search);
	else
		ck_assert_ptr_null(fx.lq.search);
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


/* list_query: the same rules; the search term is handed on raw. */
START_TEST(test_query_bad)
{
	struct list_query lq = LIST_QUERY_INIT;

	query(list_bad_cases[_i]);
	ck_assert_msg(list_read_query(&fx.q, sort_keys, N_ELEMS(sort_keys), &lq, &fx.err) == -1,
	              "%s: accepted", list_bad_cases[_i]);
	ck_assert_str_eq(fx.err.code, "invalid_params");
}
END_TEST

START_TEST(test_query_ok)
{
	struct list_query lq = LIST_QUERY_INIT;
	struct page pg = { .data = NULL, .total = 42 };

	query("page_num=3&page_size=7&sort_by=name&sort_dir=asc&search=50%25_x");
	ck_assert_int_eq(list_read_query(&fx.q, sort_keys, N_ELEMS(sort_keys), &lq, &fx.err), 0);
	ck_assert_int_eq(lq.page_num, 3);
	ck_assert_int_eq(lq.page_size, 7);
	ck_assert_uint_eq(lq.sort, 2);
	ck_assert(!lq.desc);
	ck_assert_str_eq(lq.search, "50%_x");
	ck_assert_int_eq(list_offset(&lq), 14);
	ck_assert_int_eq(lq.is_active, -1);
	pg.data = strdup("[{\"a\":1}]");
	fx.str = list_render(&lq, &pg);
	ck_assert_str_eq(fx.str, "{\"data\":[{\"a\":1}],\"page_num\":3,\"page_size\":7,\"total\":42}");
	page_release(&pg);
	ck_assert_ptr_null(pg.data);
	evhttp_clear_headers(&fx.q);
	lq = (struct list_query)LIST_QUERY_INIT;
	query("search=");
	ck_assert_int_eq(list_read_query(&fx.q, sort_keys, N_ELEMS(sort_keys), &lq, &fx.err), 0);
	ck_assert_ptr_null(lq.search);   /* an empty search is no filter */
	ck_assert_int_eq(lq.page_num, 1);
	ck_assert_int_eq(lq.page_size, 10);
	ck_assert(lq.desc);
}
END_TEST

/* With no sort keys, the endpoint has no sort: sort_by and sort_dir are not read. */
START_TEST(test_list_no_sort_keys)
{
	query("sort_by=anything&sort_dir=sideways&page_num=2");
	ck_assert_int_eq(list_read_query(&fx.q, NULL, 0, &fx.lq, &fx.err), 0);
	ck_assert_int_eq(fx.lq.page_num, 2);
	ck_assert_uint_eq(fx.lq.sort, 0);
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
	struct list_query q = LIST_QUERY_INIT;

	q.page_num = offset_cases[_i].page_num;
	q.page_size = offset_cases[_i].page_size;
	ck_assert_int_eq(list_offset(&q), offset_cases[_i].offset);
}
END_TEST

/* The envelope around a page's data, as written by list_render. */
START_TEST(test_list_render_empty_page)
{
	struct page pg = { .data = strdup("[]"), .total = 0 };

	fx.lq.page_num = 5;
	fx.str = list_render(&fx.lq, &pg);
	ck_assert_str_eq(fx.str, "{\"data\":[],\"page_num\":5,\"page_size\":10,\"total\":0}");
	page_release(&pg);
}
END_TEST

static Suite *listing_suite(void)
{
	Suite *s = suite_create("listing");
	TCase *tc;

	tc = tcase_create("listing");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_list_defaults);
	tcase_add_loop_test(tc, test_list_ok, 0, N_ELEMS(list_ok_cases));
	tcase_add_loop_test(tc, test_query_bad, 0, N_ELEMS(list_bad_cases));
	tcase_add_test(tc, test_query_ok);
	tcase_add_test(tc, test_list_no_sort_keys);
	tcase_add_loop_test(tc, test_list_offset, 0, N_ELEMS(offset_cases));
	tcase_add_test(tc, test_list_render_empty_page);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return check_run(srunner_create(listing_suite()));
}
