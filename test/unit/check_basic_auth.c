/*
 * Client credentials (basic_auth.c): the Basic header as OAuth clients
 * send it (RFC 6749 §2.3.1), the form's client_secret (client_secret_post),
 * never both, and which client asks (docs/tokens.md §"Token endpoint", §"Client authentication").
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

/* docs/tokens.md §"Client authentication": a secret sent both ways, or without a client_id. */
START_TEST(test_refused)
{
	int rc = client_credentials_read(BASIC_APP, "app", "s3cr!", &fx.basic, &fx.c, &fx.err);

	check_invalid_params(&fx.err, rc, "Send the client secret once");
	basic_auth_release(&fx.basic);
	rc = client_credentials_read(NULL, NULL, "s3cr!", &fx.basic, &fx.c, &fx.err);
	check_invalid_params(&fx.err, rc, "client_secret needs client_id");
	rc = client_credentials_read("Basic !!", NULL, NULL, &fx.basic, &fx.c, &fx.err);
	check_invalid_params(&fx.err, rc, "The Authorization header is malformed");
}
END_TEST

/* issue33.1: an Authorization header of another scheme where client
 * credentials are expected is a failed client authentication (401), found
 * after the form's own errors; a Basic header that does not decode, or a
 * value with no scheme, stays invalid_params. */
static const struct {
	const char *header;
	int parsed;   /* basic_auth_parse's answer */
} schemes[] = {
	{ "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln", BASIC_OTHER_SCHEME },
	{ "bearer x", BASIC_OTHER_SCHEME },
	{ "Bearer", BASIC_OTHER_SCHEME },
	{ "Digest username=\"app\", realm=\"edgeauth\", nonce=\"n\"", BASIC_OTHER_SCHEME },
	{ "X-Unknown-Scheme abc", BASIC_OTHER_SCHEME },
	{ "Basicx YXBwOnMzY3IlMjE=", BASIC_OTHER_SCHEME },
	{ "eyJhbGciOiJFUzI1NiJ9.e30.c2ln", BASIC_OTHER_SCHEME },   /* a token, no scheme */
	{ "BASIC YXBwOnMzY3IlMjE=", BASIC_PARSED },
	{ "basic   YXBwOnMzY3IlMjE=", BASIC_PARSED },
	{ "Basic !!", BASIC_MALFORMED },
	{ "Basic Zm9v", BASIC_MALFORMED },                           /* "foo": no colon */
	{ "Basic", BASIC_MALFORMED },
	{ "Basic\tYXBwOnMzY3IlMjE=", BASIC_MALFORMED },
	{ " Basic YXBwOnMzY3IlMjE=", BASIC_MALFORMED },
	{ "", BASIC_MALFORMED },
	{ "Bearer, x", BASIC_MALFORMED },
};

START_TEST(test_scheme)
{
	const char *header = schemes[_i].header, *id = NULL;
	int rc = basic_auth_parse(header, &fx.basic);

	ck_assert_msg(rc == schemes[_i].parsed, "issue33.1: \"%s\" parsed as %d, expected %d",
	              header, rc, schemes[_i].parsed);
	basic_auth_release(&fx.basic);
	rc = client_credentials_read(header, "app", NULL, &fx.basic, &fx.c, &fx.err);
	if (schemes[_i].parsed == BASIC_MALFORMED) {
		check_invalid_params(&fx.err, rc, "The Authorization header is malformed");
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert(fx.c.other_scheme == (schemes[_i].parsed == BASIC_OTHER_SCHEME));
	if (schemes[_i].parsed == BASIC_PARSED) {
		ck_assert_int_eq(client_credentials_scheme(&fx.c, &fx.err), 0);
		return;
	}
	ck_assert_ptr_null(fx.c.secret);
	ck_assert_ptr_null(fx.c.basic_client_id);
	ck_assert_int_eq(client_credentials_scheme(&fx.c, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "invalid_client_credentials");
	ck_assert_int_eq(fx.err.status, 401);
	/* the client that asks is not taken from the form either */
	ck_assert_int_eq(client_credentials_id(&fx.c, &id, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "invalid_client_credentials");
	ck_assert_ptr_null(id);
}
END_TEST

/* issue33.1: a form secret beside another scheme authenticates nothing. */
START_TEST(test_scheme_with_post)
{
	const char *id = NULL;

	ck_assert_int_eq(client_credentials_read("Bearer x", "app", "s3cr!", &fx.basic, &fx.c,
	                                         &fx.err), 0);
	ck_assert_int_eq(client_credentials_id(&fx.c, &id, &fx.err), -1);
	ck_assert_str_eq(fx.err.code, "invalid_client_credentials");
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
	tcase_add_loop_test(tc, test_scheme, 0, (int)N_ELEMS(schemes));
	tcase_add_test(tc, test_scheme_with_post);
	tcase_add_test(tc, test_client_id);
	tcase_add_test(tc, test_form);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
