/*
 * Client credentials (basic_auth.c): the Basic header as OAuth clients
 * send it (RFC 6749 §2.3.1), the form's client_secret (client_secret_post),
 * never both, and which client asks (CONTRACT.md §5, §8).
 */
#include <sys/queue.h>
#include <check.h>
#include "check_suite.h"
#include <event2/keyvalq_struct.h>
#include <event2/http.h>

#include "basic_auth.h"
#include "error.h"
#include "form.h"

static struct {
	struct basic_credentials basic;
	struct client_credentials c;
	struct api_error err;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
}

static void teardown(void)
{
	basic_auth_release(&fx.basic);
}

/* "Basic base64(id:secret)", each form-encoded first. */
#define BASIC_APP "Basic YXBwOnMzY3IlMjE="   /* app:s3cr%21 -> app, s3cr! */

START_TEST(test_basic)
{
	ck_assert_int_eq(client_credentials_read(BASIC_APP, NULL, NULL, &fx.basic, &fx.c, &fx.err), 0);
	ck_assert_str_eq(fx.c.basic_client_id, "app");
	ck_assert_str_eq(fx.c.secret, "s3cr!");
	ck_assert_ptr_null(fx.c.form_client_id);
}
END_TEST

START_TEST(test_post)
{
	const char *id;

	ck_assert_int_eq(client_credentials_read(NULL, "app", "s3cr!", &fx.basic, &fx.c, &fx.err), 0);
	ck_assert_ptr_null(fx.c.basic_client_id);
	ck_assert_str_eq(fx.c.secret, "s3cr!");
	ck_assert_int_eq(client_credentials_id(&fx.c, &id, &fx.err), 0);
	ck_assert_str_eq(id, "app");
	/* an empty client_secret is none (some public clients send it) */
	ck_assert_int_eq(client_credentials_read(NULL, "app", "", &fx.basic, &fx.c, &fx.err), 0);
	ck_assert_ptr_null(fx.c.secret);
}
END_TEST

/* CONTRACT.md §8: a secret sent both ways, or without a client_id. */
START_TEST(test_refused)
{
	int rc = client_credentials_read(BASIC_APP, "app", "s3cr!", &fx.basic, &fx.c, &fx.err);

	check_invalid_params(&fx.err, rc, "Send the client secret once");
	basic_auth_release(&fx.basic);
	rc = client_credentials_read(NULL, NULL, "s3cr!", &fx.basic, &fx.c, &fx.err);
	check_invalid_params(&fx.err, rc, "client_secret needs client_id");
	rc = client_credentials_read("Basic !!", NULL, NULL, &fx.basic, &fx.c, &fx.err);
	check_invalid_params(&fx.err, rc, "The Authorization header is malformed");
	rc = client_credentials_read("Bearer x", NULL, NULL, &fx.basic, &fx.c, &fx.err);
	check_invalid_params(&fx.err, rc, "The Authorization header is malformed");
}
END_TEST

/* Which client asks: Basic's, the form's, both only when they agree. */
START_TEST(test_client_id)
{
	const char *id = NULL;

	ck_assert_int_eq(client_credentials_read(BASIC_APP, "app", NULL, &fx.basic, &fx.c, &fx.err), 0);
	ck_assert_int_eq(client_credentials_id(&fx.c, &id, &fx.err), 0);
	ck_assert_str_eq(id, "app");
	fx.c.form_client_id = "other";
	check_invalid_params(&fx.err, client_credentials_id(&fx.c, &id, &fx.err),
	                     "client_id differs from the Basic credentials");
	memset(&fx.c, 0, sizeof fx.c);
	check_invalid_params(&fx.err, client_credentials_id(&fx.c, &id, &fx.err),
	                     "client_id is required");
}
END_TEST

/* From a form: each of client_id and client_secret at most once. */
START_TEST(test_form)
{
	struct evkeyvalq form;
	const char body[] = "client_id=app&client_secret=s3cr%21";
	const char twice[] = "client_id=app&client_secret=a&client_secret=b";
	int rc;

	TAILQ_INIT(&form);
	ck_assert_int_eq(form_parse(body, strlen(body), &form), 0);
	ck_assert_int_eq(client_credentials_form(NULL, &form, &fx.basic, &fx.c, &fx.err), 0);
	ck_assert_str_eq(fx.c.form_client_id, "app");
	ck_assert_str_eq(fx.c.secret, "s3cr!");
	evhttp_clear_headers(&form);
	TAILQ_INIT(&form);
	ck_assert_int_eq(form_parse(twice, strlen(twice), &form), 0);
	rc = client_credentials_form(NULL, &form, &fx.basic, &fx.c, &fx.err);
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(fx.err.code, "invalid_params");
	evhttp_clear_headers(&form);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("basic_auth");
	TCase *tc = check_tcase("credentials", setup, teardown);

	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_post);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_client_id);
	tcase_add_test(tc, test_form);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
