/*
 * input_names: unknown body fields and query parameters of the management
 * API (issue 27, strict input), the nearest known name, and what an error
 * quotes.
 */
#include <sys/queue.h>
#include <event2/http.h>

#include "check_suite.h"
#include "form.h"
#include "input_names.h"
#include "validate.h"

static const char *const role_taken[] = { "code", "name", "description", "permission_ids", NULL };
static const char *const role_record[] = {
	"id", "code", "name", "description", "permission_ids", "created_at", "updated_at", NULL,
};
static const struct input_names role_names = { .taken = role_taken, .ignored = role_record };

static const struct input_names item_names = {
	.taken = (const char *const[]){ "name", "code", "description", NULL },
	.ignored = (const char *const[]){ "id", NULL },
};
static const struct input_names resource_names = {
	.taken = (const char *const[]){ "name", "code", "description", "permissions", NULL },
	.ignored = (const char *const[]){ "id", "is_default", "created_at", "updated_at", NULL },
	.items_key = "permissions", .items = &item_names,
};

static const char *const list_taken[] = {
	"page_num", "page_size", "search", "sort_by", "sort_dir", "is_active", "role_id", NULL,
};

static const struct {
	const char *name;
	const char *nearest;   /* NULL: none near */
} nearest_cases[] = {
	{ "permissions", "permission_ids" },   /* the issue's own example */
	{ "nmae", "name" },                    /* two letters swapped */
	{ "Name", "name" },
	{ "desc", "description" },             /* a prefix */
	{ "descriptions", "description" },
	{ "code_", "code" },
	{ "x", NULL },
	{ "email", NULL },
	{ "", NULL },
	{ "id_list", NULL },
};

START_TEST(test_nearest)
{
	const char *got = input_names_nearest(nearest_cases[_i].name, role_taken);

	if (nearest_cases[_i].nearest == NULL)
		ck_assert_msg(got == NULL, "%s: suggested %s", nearest_cases[_i].name, got);
	else
		ck_assert_msg(got && strcmp(got, nearest_cases[_i].nearest) == 0, "%s: got %s, want %s",
		              nearest_cases[_i].name, got ? got : "(none)", nearest_cases[_i].nearest);
}
END_TEST

START_TEST(test_nearest_query)
{
	ck_assert_str_eq(input_names_nearest("page", list_taken), "page_num");
	ck_assert_str_eq(input_names_nearest("pagesize", list_taken), "page_size");
	ck_assert_str_eq(input_names_nearest("sort", list_taken), "sort_by");
	ck_assert_str_eq(input_names_nearest("active", list_taken), "is_active");
	ck_assert_ptr_null(input_names_nearest("email", list_taken));
	ck_assert_ptr_null(input_names_nearest("limit", list_taken));
}
END_TEST

/* A long unknown name is not compared (the distance's rows are bounded). */
START_TEST(test_nearest_long_name)
{
	char name[200];

	memset(name, 'a', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	ck_assert_ptr_null(input_names_nearest(name, role_taken));
}
END_TEST

static const struct {
	const char *desc;
	const struct input_names *names;
	const char *body;
	const char *msg;   /* NULL: accepted */
} body_cases[] = {
	{ "taken fields", &role_names, "{\"code\":\"c\",\"name\":\"n\",\"permission_ids\":[]}", NULL },
	{ "the whole record back", &role_names,
	  "{\"id\":\"r\",\"code\":\"c\",\"name\":\"n\",\"description\":null,\"permission_ids\":[],"
	  "\"created_at\":\"x\",\"updated_at\":\"y\"}", NULL },
	{ "empty", &role_names, "{}", NULL },
	{ "issue27 permissions for permission_ids", &role_names,
	  "{\"code\":\"c\",\"name\":\"n\",\"permissions\":[\"orders:read\"]}",
	  "unknown field \"permissions\"; did you mean \"permission_ids\"?" },
	{ "no near name", &role_names, "{\"code\":\"c\",\"zzzzzz\":1}", "unknown field \"zzzzzz\"" },
	{ "items: an item's id ignored", &resource_names,
	  "{\"name\":\"n\",\"permissions\":[{\"id\":\"p\",\"name\":\"r\",\"code\":\"r\"}]}", NULL },
	{ "items: unknown field of an item", &resource_names,
	  "{\"name\":\"n\",\"permissions\":[{\"name\":\"r\"},{\"name\":\"r\",\"desc\":\"d\"}]}",
	  "unknown field \"permissions[1].desc\"; did you mean \"description\"?" },
	{ "items: not an array, left to the endpoint", &resource_names,
	  "{\"name\":\"n\",\"permissions\":\"x\"}", NULL },
	{ "items: not objects, left to the endpoint", &resource_names,
	  "{\"name\":\"n\",\"permissions\":[1,null]}", NULL },
	{ "a control character quoted as ?", &role_names, "{\"a\\nb\":1}", "unknown field \"a?b\"" },
};

START_TEST(test_check_body)
{
	struct api_error err;
	json_t *body = json_loads(body_cases[_i].body, 0, NULL);
	int rc;

	ck_assert_ptr_nonnull(body);
	rc = input_names_check_body(body, body_cases[_i].names, &err);
	json_decref(body);
	if (body_cases[_i].msg == NULL) {
		ck_assert_msg(rc == 0, "%s: refused: %s", body_cases[_i].desc, err.description);
		return;
	}
	check_invalid_params(&err, rc, body_cases[_i].msg);
	ck_assert_str_eq(err.description, body_cases[_i].msg);
}
END_TEST

/* A long name is cut, at a character boundary, so the sentence fits. */
START_TEST(test_check_body_long_name)
{
	struct api_error err;
	json_t *body = json_object();
	char name[300] = "";

	for (int i = 0; i < 99; i++)
		strcat(name, "\xc3\xa9");   /* é: two bytes each */
	json_object_set_new(body, name, json_true());
	check_invalid_params(&err, input_names_check_body(body, &role_names, &err), "unknown field");
	json_decref(body);
	ck_assert(utf8_valid(err.description, strlen(err.description)));
	ck_assert_ptr_nonnull(strstr(err.description, "...\""));
}
END_TEST

static const struct {
	const char *query;
	const char *msg;   /* NULL: accepted */
} query_cases[] = {
	{ "", NULL },
	{ "page_num=2&page_size=5&search=a&sort_by=name&sort_dir=asc", NULL },
	{ "is_active=true&role_id=r", NULL },
	{ "email=alice%40example.com", "unknown query parameter \"email\"" },
	{ "page_num=1&page=2", "unknown query parameter \"page\"; did you mean \"page_num\"?" },
};

START_TEST(test_check_query)
{
	struct evkeyvalq q;
	struct api_error err;
	int rc;

	TAILQ_INIT(&q);
	ck_assert_int_eq(form_parse(query_cases[_i].query, strlen(query_cases[_i].query), &q), 0);
	rc = input_names_check_query(&q, list_taken, &err);
	if (query_cases[_i].msg == NULL)
		ck_assert_msg(rc == 0, "%s: refused: %s", query_cases[_i].query, err.description);
	else
		check_invalid_params(&err, rc, query_cases[_i].msg);
	evhttp_clear_headers(&q);
}
END_TEST

START_TEST(test_check_query_none)
{
	struct evkeyvalq q;
	struct api_error err;

	TAILQ_INIT(&q);
	ck_assert_int_eq(input_names_check_query(&q, input_query_none, &err), 0);
	ck_assert_int_eq(form_parse("x=1", 3, &q), 0);
	check_invalid_params(&err, input_names_check_query(&q, input_query_none, &err),
	                     "unknown query parameter \"x\"");
	evhttp_clear_headers(&q);
}
END_TEST

static Suite *input_names_suite(void)
{
	Suite *s = suite_create("input_names");
	TCase *tc = tcase_create("nearest");

	tcase_add_loop_test(tc, test_nearest, 0, N_ELEMS(nearest_cases));
	tcase_add_test(tc, test_nearest_query);
	tcase_add_test(tc, test_nearest_long_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_loop_test(tc, test_check_body, 0, N_ELEMS(body_cases));
	tcase_add_test(tc, test_check_body_long_name);
	tcase_add_loop_test(tc, test_check_query, 0, N_ELEMS(query_cases));
	tcase_add_test(tc, test_check_query_none);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(input_names_suite()));
}
