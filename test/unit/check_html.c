/*
 * What the browser's endpoints share (html.c), without a socket: the
 * Origin comparison of the cross-site post check (docs/signin.md §"Cross-site posts": scheme,
 * host without regard to case, port with the default dropped; "null" and
 * anything malformed are cross-site), the redirect URL's query, escaping,
 * and the page's frame.
 */
#include <check.h>
#include "check_suite.h"
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>

#include "html.h"

static const struct origin_case {
	const char *origin, *issuer;
	bool same;
} origin_cases[] = {
	{ "http://127.0.0.1:8080", "http://127.0.0.1:8080", true },
	{ "HTTP://127.0.0.1:8080", "http://127.0.0.1:8080", true },
	{ "https://auth.example", "https://Auth.Example", true },
	{ "https://auth.example:443", "https://auth.example", true },
	{ "https://auth.example", "https://auth.example:443", true },
	{ "http://auth.example:80", "http://auth.example", true },
	{ "https://auth.example", "https://auth.example/edge/path", true },   /* the issuer's path */
	{ "http://[::1]:8080", "http://[::1]:8080", true },
	{ "http://[::1]:8080", "http://[::1]:8081", false },
	{ "null", "http://127.0.0.1:8080", false },
	{ "", "http://127.0.0.1:8080", false },
	{ "http://127.0.0.1:8081", "http://127.0.0.1:8080", false },
	{ "https://127.0.0.1:8080", "http://127.0.0.1:8080", false },
	{ "http://auth.example:443", "https://auth.example", false },
	{ "https://auth.example:80", "http://auth.example", false },
	{ "https://auth.example.evil", "https://auth.example", false },
	{ "https://evil.example", "https://auth.example", false },
	{ "https://auth.example/", "https://auth.example", false },    /* an Origin has no path */
	{ "https://auth.example/x", "https://auth.example", false },
	{ "https://user@auth.example", "https://auth.example", false },
	{ "https://auth.example:", "https://auth.example", true },     /* empty port: the default */
	{ "https://auth.example:0443", "https://auth.example", true },
	{ "https://auth.example:65536", "https://auth.example", false },
	{ "https://auth.example:-1", "https://auth.example", false },
	{ "https://auth.example:44x", "https://auth.example", false },
	{ "https://", "https://auth.example", false },
	{ "ftp://auth.example", "ftp://auth.example", false },
	{ "auth.example", "auth.example", false },
	{ "http://[::1", "http://[::1]", false },
	{ "https://auth.example", NULL, false },
	{ NULL, "https://auth.example", false },
};

START_TEST(test_same_origin)
{
	const struct origin_case *c = &origin_cases[_i];

	ck_assert_msg(html_same_origin(c->origin, c->issuer) == c->same, "%s vs %s",
	              c->origin ? c->origin : "NULL", c->issuer ? c->issuer : "NULL");
}
END_TEST

START_TEST(test_redirect_url)
{
	const char *names[] = { "code", "error_description", "state", "iss" };
	const char *values[] = { "c1", NULL, "a b&c=d/é", "http://127.0.0.1:8080" };
	char *url = html_redirect_url("https://app.example/cb", names, values, 4);
	char *joined = html_redirect_url("https://app.example/cb?x=1", names, values, 1);
	char *none = html_redirect_url("https://app.example/cb", names, values + 1, 1);

	ck_assert_str_eq(url, "https://app.example/cb?code=c1&state=a%20b%26c%3Dd%2F%C3%A9"
	                      "&iss=http%3A%2F%2F127.0.0.1%3A8080");
	ck_assert_str_eq(joined, "https://app.example/cb?x=1&code=c1");
	ck_assert_str_eq(none, "https://app.example/cb");
	free(url);
	free(joined);
	free(none);
}
END_TEST

/* The buffer's text (freed). */
static char *take(struct evbuffer *buf)
{
	size_t len = evbuffer_get_length(buf);
	char *s = malloc(len + 1);

	evbuffer_remove(buf, s, len);
	s[len] = '\0';
	evbuffer_free(buf);
	return s;
}

START_TEST(test_escape_and_pages)
{
	struct evbuffer *buf = evbuffer_new();
	char *s;

	html_escape_into(buf, "<a href=\"x\">'&'</a>");
	html_escape_into(buf, NULL);
	html_add_hidden(buf, "state", "\"><script>");
	html_add_hidden(buf, "none", NULL);
	s = take(buf);
	ck_assert_str_eq(s, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
	                    "<input type=\"hidden\" name=\"state\" value=\"&quot;&gt;&lt;script&gt;\">\n");
	free(s);
	s = take(html_page_begin("Sign in to <b>"));
	ck_assert_ptr_nonnull(strstr(s, "<title>Sign in to &lt;b&gt;</title>"));
	ck_assert_ptr_nonnull(strstr(s, "<meta charset=\"utf-8\">"));
	ck_assert_ptr_nonnull(strstr(s, "<link rel=\"icon\" href=\"data:,\">"));
	ck_assert_ptr_null(strstr(s, "<script"));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("html");

	tcase_add_loop_test(tc, test_same_origin, 0, N_ELEMS(origin_cases));
	tcase_add_test(tc, test_redirect_url);
	tcase_add_test(tc, test_escape_and_pages);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
