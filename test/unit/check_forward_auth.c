/*
 * issue31.2: forward authentication's rules (forward_auth.c): the original
 * request read only from a trusted proxy's headers, and only when they name
 * an absolute http(s) URL without tricks; a URL matched to an app's base
 * URLs on a boundary; the callback URI a base registers; the PKCE pair;
 * and the sealed state of a sign-in: of its client and its time only.
 */
#include <check.h>
#include "sqlite_store.h"
#include "check_suite.h"
#include "keyring_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "forward_auth.h"
#include "keyring.h"
#include "store.h"

/* ---- the original request ---- */

static const struct {
	const char *desc;
	struct forward_headers h;
	bool trusted;
	const char *url;      /* NULL: refused */
	bool nginx;
} reads[] = {
	{ "traefik/caddy", { .method = "GET", .proto = "https", .host = "dash.example",
	  .uri = "/a?b=1" }, true, "https://dash.example/a?b=1", false },
	{ "nginx", { .original_url = "http://box.example:8080/red/x", .original_method = "POST" },
	  true, "http://box.example:8080/red/x", true },
	{ "nginx wins over the rest", { .original_url = "https://a.example/", .proto = "https",
	  .host = "b.example", .uri = "/" }, true, "https://a.example/", true },
	{ "untrusted: ignored", { .proto = "https", .host = "dash.example", .uri = "/" }, false,
	  NULL, false },
	{ "untrusted nginx: ignored", { .original_url = "https://dash.example/" }, false, NULL,
	  false },
	{ "none", { 0 }, true, NULL, false },
	{ "ftp", { .proto = "ftp", .host = "a.example", .uri = "/" }, true, NULL, false },
	{ "host with a path", { .proto = "https", .host = "a.example/evil", .uri = "/" }, true,
	  NULL, false },
	{ "host with userinfo", { .proto = "https", .host = "evil@a.example", .uri = "/" }, true,
	  NULL, false },
	{ "host with a space", { .proto = "https", .host = "a.example x", .uri = "/" }, true,
	  NULL, false },
	{ "uri without /", { .proto = "https", .host = "a.example", .uri = "x" }, true, NULL,
	  false },
	{ "uri //evil", { .proto = "https", .host = "a.example", .uri = "//evil.example/" },
	  true, "https://a.example//evil.example/", false },
	{ "dot-segment", { .proto = "https", .host = "a.example", .uri = "/app/../admin" }, true,
	  NULL, false },
	{ "encoded dot-segment", { .proto = "https", .host = "a.example",
	  .uri = "/app/%2E%2e/admin" }, true, NULL, false },
	{ "backslash", { .proto = "https", .host = "a.example", .uri = "/app\\..\\x" }, true,
	  NULL, false },
	{ "nginx relative", { .original_url = "/x" }, true, NULL, false },
	{ "nginx javascript", { .original_url = "javascript:alert(1)" }, true, NULL, false },
	{ "dots in a name are fine", { .proto = "https", .host = "a.example",
	  .uri = "/a/.well-known/..x/f.txt" }, true, "https://a.example/a/.well-known/..x/f.txt",
	  false },
};

START_TEST(test_request_read)
{
	struct forward_request r;
	int rc = forward_request_read(&reads[_i].h, reads[_i].trusted, &r);

	if (!reads[_i].url) {
		ck_assert_msg(rc == -1, "%s: read", reads[_i].desc);
		ck_assert_ptr_null(r.url);
		return;
	}
	ck_assert_msg(rc == 0, "%s: refused", reads[_i].desc);
	ck_assert_str_eq(r.url, reads[_i].url);
	ck_assert_int_eq(r.nginx, reads[_i].nginx);
	forward_request_release(&r);
}
END_TEST

/* ---- base URLs ---- */

static const struct {
	const char *url, *base;
	bool under;
} unders[] = {
	{ "https://a.example/", "https://a.example/", true },
	{ "https://a.example/x/y?z", "https://a.example/", true },
	{ "https://a.example", "https://a.example", true },
	{ "https://a.example/x", "https://a.example", true },
	{ "https://a.example?x", "https://a.example", true },
	{ "https://A.Example/x", "https://a.example", true },
	{ "HTTPS://a.example/x", "https://a.example/", true },
	{ "https://a.example.evil/", "https://a.example", false },
	{ "https://a.example:8443/", "https://a.example", false },
	{ "https://a.example@evil/", "https://a.example", false },
	{ "http://a.example/", "https://a.example/", false },
	{ "https://box/apps", "https://box/app", false },
	{ "https://box/app/x", "https://box/app", true },
	{ "https://box/app", "https://box/app/", false },
	{ "https://box/App/x", "https://box/app/", false },
	{ "https://box/", "https://box/app/", false },
};

START_TEST(test_url_under)
{
	ck_assert_msg(forward_url_under(unders[_i].url, unders[_i].base) == unders[_i].under,
	              "%s under %s", unders[_i].url, unders[_i].base);
}
END_TEST

START_TEST(test_url_base)
{
	const char *const bases[] = { "https://box/", "https://box/red/", "https://other/" };

	ck_assert_str_eq(forward_url_base("https://box/red/ui", bases, 3), "https://box/red/");
	ck_assert_str_eq(forward_url_base("https://box/redder", bases, 3), "https://box/");
	ck_assert_ptr_null(forward_url_base("https://evil/", bases, 3));
	ck_assert_ptr_null(forward_url_base("https://box/", bases, 0));
}
END_TEST

START_TEST(test_callback_uri)
{
	char *u = forward_callback_uri("https://a.example/");

	ck_assert_str_eq(u, "https://a.example/.edgeauth/callback");
	free(u);
	u = forward_callback_uri("http://box/red");
	ck_assert_str_eq(u, "http://box/red/.edgeauth/callback");
	free(u);
}
END_TEST

START_TEST(test_pkce)
{
	char *v, *c, *v2, *c2;

	forward_pkce_new(&v, &c);
	forward_pkce_new(&v2, &c2);
	ck_assert_int_ge(strlen(v), 43);   /* RFC 7636 §4.1 */
	ck_assert_int_eq(crypto_pkce_s256_verify(v, c), 1);
	ck_assert_int_ne(crypto_pkce_s256_verify(v2, c), 1);
	ck_assert_str_ne(v, v2);
	free(v);
	free(c);
	free(v2);
	free(c2);
}
END_TEST

/* ---- the sealed state, over a real key ring ---- */

static struct keyring_fixture fx;

static void setup(void)
{
	keyring_fixture_open(&fx, "check_forward_auth");
}

static void teardown(void)
{
	keyring_fixture_close(&fx);
}

START_TEST(test_state)
{
	struct forward_state s = { "verifier-1", "https://a.example/x?y=1\nz", "nonce-1", 1000 }, out;
	char *text = forward_state_seal(fx.ring, "client-a", &s), *tampered;

	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, "verifier-1"));
	ck_assert_int_eq(forward_state_open(fx.ring, "client-a", text, 999, &out), 0);
	ck_assert_str_eq(out.verifier, "verifier-1");
	ck_assert_str_eq(out.url, "https://a.example/x?y=1\nz");
	ck_assert_str_eq(out.nonce, "nonce-1");
	ck_assert_int_eq(out.expires_at, 1000);
	forward_state_release(&out);
	ck_assert_int_eq(forward_state_open(fx.ring, "client-a", text, 1000, &out), -1);
	ck_assert_ptr_null(out.verifier);
	ck_assert_int_eq(forward_state_open(fx.ring, "client-b", text, 999, &out), -1);
	ck_assert_int_eq(forward_state_open(fx.ring, "client-a", NULL, 999, &out), -1);
	ck_assert_int_eq(forward_state_open(fx.ring, "client-a", "", 999, &out), -1);
	tampered = strdup(text);
	tampered[strlen(tampered) / 2] ^= 1;
	ck_assert_int_eq(forward_state_open(fx.ring, "client-a", tampered, 999, &out), -1);
	free(tampered);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("forward_auth");
	TCase *tc = check_tcase("rules", NULL, NULL);

	tcase_add_loop_test(tc, test_request_read, 0, sizeof reads / sizeof reads[0]);
	tcase_add_loop_test(tc, test_url_under, 0, sizeof unders / sizeof unders[0]);
	tcase_add_test(tc, test_url_base);
	tcase_add_test(tc, test_callback_uri);
	tcase_add_test(tc, test_pkce);
	suite_add_tcase(s, tc);
	tc = check_tcase("state", setup, teardown);
	/* the setup makes a key ring, whose RSA key takes seconds on a busy machine */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_state);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
