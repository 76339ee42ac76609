/*
 * libFuzzer harness: basic_auth_parse (basic_auth.c), on the input as an
 * Authorization header value and on "Basic " + base64(input), the latter
 * checked against RFC 7617 / RFC 6749 §2.3.1 read independently: split at the
 * first colon, then form-urldecode each side (fuzz.h's decoder) into UTF-8
 * without U+0000.
 */
#include <stdbool.h>

#include "b64url.h"
#include "basic_auth.h"
#include "fuzz.h"
#include "validate.h"

/* Whatever basic_auth_parse accepts holds a non-empty ID and a secret, both
 * UTF-8 without U+0000; what it leaves holds nothing. */
static void check_parsed(int rc, const struct basic_credentials *c)
{
	FUZZ_CHECK(rc == BASIC_MALFORMED || rc == BASIC_PARSED || rc == BASIC_OTHER_SCHEME);
	if (rc != BASIC_PARSED) {
		FUZZ_CHECK(c->client_id == NULL && c->secret == NULL);
		return;
	}
	FUZZ_CHECK(c->client_id && *c->client_id && c->secret);
	FUZZ_CHECK(utf8_valid(c->client_id, strlen(c->client_id)));
	FUZZ_CHECK(utf8_valid(c->secret, strlen(c->secret)));
}

/* "Basic " + the standard Base64 of raw, with padding, as curl -u sends it. */
static char *basic_header(const uint8_t *raw, size_t len)
{
	char *b64 = b64url_encode(raw, len), *h;
	size_t n = strlen(b64), pad = (4 - n % 4) % 4;

	for (size_t i = 0; i < n; i++)
		b64[i] = b64[i] == '-' ? '+' : b64[i] == '_' ? '/' : b64[i];
	h = malloc(6 + n + pad + 1);
	if (!h)
		abort();
	memcpy(h, "Basic ", 6);
	memcpy(h + 6, b64, n);
	memset(h + 6 + n, '=', pad);
	h[6 + n + pad] = '\0';
	free(b64);
	return h;
}

/* The credentials in raw, decoded as RFC 6749 §2.3.1 says, must be what
 * basic_auth_parse found. */
static void check_round_trip(const uint8_t *raw, size_t len)
{
	struct basic_credentials c = { 0 };
	char *header = basic_header(raw, len);
	const char *colon = memchr(raw, ':', len);
	char *id = NULL, *secret = NULL;
	bool expect_ok = false;
	int rc;

	if (colon) {
		id = fuzz_decode_text((const char *)raw, (size_t)(colon - (const char *)raw));
		secret = fuzz_decode_text(colon + 1, len - (size_t)(colon + 1 - (const char *)raw));
		expect_ok = id && secret && *id;
	}
	rc = basic_auth_parse(header, &c);
	check_parsed(rc, &c);
	FUZZ_CHECK((rc == BASIC_PARSED) == expect_ok);
	if (rc == BASIC_PARSED) {
		FUZZ_CHECK(strcmp(c.client_id, id) == 0);
		FUZZ_CHECK(strcmp(c.secret, secret) == 0);
		basic_auth_release(&c);
		FUZZ_CHECK(c.client_id == NULL && c.secret == NULL);
	}
	free(id);
	free(secret);
	free(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct basic_credentials c = { 0 };
	char *header = fuzz_cstring(data, size);
	int rc = basic_auth_parse(header, &c);

	check_parsed(rc, &c);
	if (rc == BASIC_PARSED)
		basic_auth_release(&c);
	free(header);

	FUZZ_CHECK(basic_auth_parse(NULL, &c) == BASIC_NONE);
	check_round_trip(data, size);
	return 0;
}
