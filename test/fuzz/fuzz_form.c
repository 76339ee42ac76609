/*
 * libFuzzer harness: form_parse (form.c) on a form body or query string, then
 * the readers the token, revocation and authorize endpoints run on it
 * (form_get for each of their parameters, with the checks of
 * api_tokens.c's read_form). The pairs are compared with a reading of the
 * form encoding written here; a parsed form is re-encoded and parsed again,
 * which must give the same pairs. The input is also read as the Content-Type
 * header that decides whether a body is a form at all (form_content_type_is).
 */
#include <stdbool.h>
#include <strings.h>
#include <sys/queue.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "form.h"
#include "fuzz.h"
#include "validate.h"

/* The parameters of POST /api/v1/tokens, /tokens/revoke and /authorize. */
static const char *const form_keys[] = {
	"grant_type", "client_id", "authorization_code", "code", "redirect_uri",
	"code_verifier", "refresh_token", "token", "token_type_hint",
	"response_type", "code_challenge", "code_challenge_method", "state",
	"email", "password",
};

/*
 * form_parse's contract, read independently: pairs split at '&' (empty ones
 * skipped), key and value at the first '=', each decoded as text, the key
 * never empty. Checks that q holds exactly the good pairs before the first
 * bad one, in order, and returns whether there was no bad one.
 */
static bool check_pairs(const char *data, size_t len, const struct evkeyvalq *q)
{
	const struct evkeyval *kv = TAILQ_FIRST(q);
	size_t i = 0;

	while (i < len) {
		size_t end = i, eq;
		char *key, *value;
		bool good;

		while (end < len && data[end] != '&')
			end++;
		if (end == i) {
			i++;
			continue;
		}
		for (eq = i; eq < end && data[eq] != '='; eq++)
			;
		key = fuzz_decode_text(data + i, eq - i);
		value = eq < end ? fuzz_decode_text(data + eq + 1, end - eq - 1)
		                 : fuzz_decode_text("", 0);
		good = key && value && *key;
		if (good) {
			FUZZ_CHECK(kv != NULL);
			FUZZ_CHECK(strcmp(kv->key, key) == 0 && strcmp(kv->value, value) == 0);
			kv = TAILQ_NEXT(kv, next);
		}
		free(key);
		free(value);
		if (!good) {
			FUZZ_CHECK(kv == NULL);
			return false;
		}
		i = end + 1;
	}
	FUZZ_CHECK(kv == NULL);
	return true;
}

/* How often key occurs in q (exact match; evhttp_find_header ignores case). */
static size_t count_key(const struct evkeyvalq *q, const char *key, const char **last)
{
	const struct evkeyval *kv;
	size_t n = 0;

	TAILQ_FOREACH(kv, q, next) {
		if (strcmp(kv->key, key) == 0) {
			n++;
			if (last)
				*last = kv->value;
		}
	}
	return n;
}

/* form_get: a key given twice fails, once gives its value, absent leaves
 * the default. The error is invalid_params and never quotes the value. */
static void check_form_get(const struct evkeyvalq *q, const char *key)
{
	struct api_error err = { 0 };
	const char *sentinel = "unset", *v = sentinel, *found = NULL;
	size_t n = count_key(q, key, &found);
	int rc = form_get(q, key, &v, &err);

	if (n > 1) {
		FUZZ_CHECK(rc == -1 && err.api_code == E_INVALID_PARAMS && v == sentinel);
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(n == 1 ? v == found : v == sentinel);
}

/* api_tokens.c's read_form, step by step: grant_type required, the code
 * given as code or authorization_code, not both. */
static void check_token_form(const struct evkeyvalq *q)
{
	static const char *const keys[] = { "grant_type", "client_id", "authorization_code",
	                                    "code", "redirect_uri", "code_verifier",
	                                    "refresh_token" };
	const char *v[7] = { NULL };
	struct api_error err = { 0 };
	bool failed = false;

	for (size_t i = 0; i < 7 && !failed; i++)
		failed = form_get(q, keys[i], &v[i], &err) < 0;
	if (failed) {
		FUZZ_CHECK(err.api_code == E_INVALID_PARAMS && err.description[0]);
		return;
	}
	for (size_t i = 0; i < 7; i++)
		FUZZ_CHECK((v[i] != NULL) == (count_key(q, keys[i], NULL) == 1));
}

/* Serialises q as application/x-www-form-urlencoded. Caller frees. */
static char *form_encode(const struct evkeyvalq *q)
{
	const struct evkeyval *kv;
	size_t cap = 1, len = 0;
	char *out;

	TAILQ_FOREACH(kv, q, next)
		cap += 3 * (strlen(kv->key) + strlen(kv->value)) + 2;
	out = malloc(cap);
	if (!out)
		abort();
	out[0] = '\0';
	TAILQ_FOREACH(kv, q, next) {
		char *k = evhttp_uriencode(kv->key, -1, 1), *v = evhttp_uriencode(kv->value, -1, 1);

		FUZZ_CHECK(k && v);
		len += (size_t)snprintf(out + len, cap - len, "%s%s=%s", len ? "&" : "", k, v);
		FUZZ_CHECK(len < cap);
		free(k);
		free(v);
	}
	return out;
}

/* Parse, encode, parse again: the same pairs in the same order. */
static void check_round_trip(const struct evkeyvalq *q)
{
	struct evkeyvalq again;
	const struct evkeyval *a, *b;
	char *text = form_encode(q);

	TAILQ_INIT(&again);
	FUZZ_CHECK(form_parse(text, strlen(text), &again) == 0);
	for (a = TAILQ_FIRST(q), b = TAILQ_FIRST(&again); a && b;
	     a = TAILQ_NEXT(a, next), b = TAILQ_NEXT(b, next))
		FUZZ_CHECK(strcmp(a->key, b->key) == 0 && strcmp(a->value, b->value) == 0);
	FUZZ_CHECK(a == NULL && b == NULL);
	evhttp_clear_headers(&again);
	free(text);
}

/* form_content_type_is: optional blanks, the media type in any case, optional
 * blanks, then the end or parameters. */
static void check_content_type(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "application/x-www-form-urlencoded",
	                                     "application/json" };
	char *header = fuzz_cstring(data, size);

	for (size_t i = 0; i < 2; i++) {
		const char *p = header + strspn(header, " \t");
		size_t n = strlen(types[i]);
		bool want = strncasecmp(p, types[i], n) == 0 &&
		            strchr(";", p[n + strspn(p + n, " \t")]) != NULL;

		FUZZ_CHECK(form_content_type_is(header, types[i]) == want);
	}
	FUZZ_CHECK(!form_content_type_is(NULL, types[0]));
	free(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evkeyvalq q;
	int rc;

	/* The router refuses a raw NUL in a body before form_parse; form_parse
	 * must refuse it too (its values are C strings), and so does check_pairs. */
	TAILQ_INIT(&q);
	rc = form_parse((const char *)data, size, &q);
	FUZZ_CHECK(rc == 0 || rc == -1);
	/* What was appended before a failure is the caller's to free. */
	FUZZ_CHECK((rc == 0) == check_pairs((const char *)data, size, &q));
	if (rc == 0) {
		for (size_t i = 0; i < sizeof form_keys / sizeof form_keys[0]; i++)
			check_form_get(&q, form_keys[i]);
		check_token_form(&q);
		check_round_trip(&q);
	}
	evhttp_clear_headers(&q);
	check_content_type(data, size);
	return 0;
}
