/* argon2id on the worker pool: hash, verify right and wrong, and the dummy
 * verification for unknown accounts, which must cost a real hash. */
#include <argon2.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "check_suite.h"
#include "config.h"
#include "passwords.h"
#include "util.h"

struct result {
	struct event_base *base;
	char *encoded;
	int ok;
	int calls;
};

static void on_hashed(void *arg, char *encoded)
{
	struct result *r = arg;
	r->encoded = encoded;
	r->calls++;
	event_base_loopbreak(r->base);
}

static void on_verified(void *arg, int ok)
{
	struct result *r = arg;
	r->ok = ok;
	r->calls++;
	event_base_loopbreak(r->base);
}

static struct config cfg;
static struct event_base *base;
static struct passwords *pw;

static void setup(void)
{
	config_init(&cfg);
	cfg.argon2_memory_kib = 8192;
	cfg.argon2_iterations = 2;
	base = event_base_new();
	pw = passwords_new(base, &cfg);
}

static void teardown(void)
{
	passwords_free(pw);
	event_base_free(base);
	config_release(&cfg);
}

static int verify(const char *encoded, const char *password, int64_t *us)
{
	struct result r = { .base = base };
	struct api_error err;
	int64_t t0 = mono_us();

	ck_assert_int_eq(passwords_verify(pw, encoded, password, on_verified, &r, &err), 0);
	event_base_dispatch(base);
	if (us)
		*us = mono_us() - t0;
	ck_assert_int_eq(r.calls, 1);
	return r.ok;
}

START_TEST(test_hash_and_verify)
{
	struct result r = { .base = base };
	struct api_error err;

	ck_assert_int_eq(passwords_hash(pw, "pässwörd 1", on_hashed, &r, &err), 0);
	event_base_dispatch(base);
	ck_assert_ptr_nonnull(r.encoded);
	ck_assert(strncmp(r.encoded, "$argon2id$v=19$m=8192,t=2,p=1$", 30) == 0);
	ck_assert_int_eq(verify(r.encoded, "pässwörd 1", NULL), 1);
	ck_assert_int_eq(verify(r.encoded, "pässwörd 2", NULL), 0);
	free(r.encoded);
}
END_TEST

START_TEST(test_dummy_costs_a_hash)
{
	/* An unknown account is verified against a dummy: never a match, and a
	 * whole hash of the configured cost (argon2 hashes before it compares;
	 * a dummy that failed to decode would answer at once, telling an
	 * attacker which accounts exist). Checked by what argon2 says of the
	 * dummy, not by a stopwatch. */
	const char *dummy = passwords_dummy(pw);

	ck_assert(strncmp(dummy, "$argon2id$v=19$m=8192,t=2,p=1$", 30) == 0);
	ck_assert_int_eq(argon2id_verify(dummy, "secret password", 15), ARGON2_VERIFY_MISMATCH);
	ck_assert_int_eq(argon2id_verify(dummy, "", 0), ARGON2_VERIFY_MISMATCH);
	ck_assert_int_eq(verify(NULL, "secret password", NULL), 0);
}
END_TEST

START_TEST(test_queue_limit)
{
	struct config small;
	struct passwords *tiny;
	struct result r = { .base = base };
	struct api_error err;

	config_init(&small);
	small.argon2_memory_kib = 8192;
	small.hash_threads = 1;
	small.max_pending_hashes = 1;
	tiny = passwords_new(base, &small);
	ck_assert_int_eq(passwords_hash(tiny, "one password", on_hashed, &r, &err), 0);
	ck_assert_int_eq(passwords_hash(tiny, "two password", on_hashed, &r, &err), -1);
	ck_assert_int_eq(err.status, 503);
	passwords_free(tiny);   /* runs the pending done() */
	ck_assert_int_eq(r.calls, 1);
	free(r.encoded);
	config_release(&small);
}
END_TEST

static Suite *passwords_suite(void)
{
	Suite *s = suite_create("passwords");
	TCase *tc = tcase_create("argon2");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hash_and_verify);
	tcase_add_test(tc, test_dummy_costs_a_hash);
	tcase_add_test(tc, test_queue_limit);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(passwords_suite()));
}
