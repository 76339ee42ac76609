/*
 * libFuzzer harness: form_percent_decode (form.c) and the single-value
 * checks of validate.c, each compared with an independent reading of its contract:
 * the decoder of fuzz.h, jansson's UTF-8 check, the C library's multibyte
 * count, strtol and libevent's URI parser. The validators run on the raw input and on its decoding,
 * as the server runs them on decoded query and form values.
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <strings.h>
#include <event2/http.h>
#include <jansson.h>

#include "form.h"
#include "fuzz.h"
#include "validate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* mbstowcs counts code points only in a UTF-8 locale. */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		abort();
	return 0;
}

static void check_percent_decode(const char *s, size_t len, bool plus_is_space)
{
	size_t ref_len = 0;
	char *ref = fuzz_percent_decode(s, len, plus_is_space, &ref_len);
	char *got = form_percent_decode(s, len, plus_is_space);
	bool ref_ok = ref && strlen(ref) == ref_len && utf8_valid(ref, ref_len);

	FUZZ_CHECK(ref_ok == (got != NULL));
	if (got) {
		FUZZ_CHECK(strlen(got) == ref_len);
		FUZZ_CHECK(memcmp(got, ref, ref_len) == 0);
	}
	free(got);
	free(ref);
}

/* validate_code's contract: 1 to CODE_MAX_CHARS of [A-Za-z0-9_-]. */
static bool ref_code(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= CODE_MAX_CHARS &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* What every accepted URL must look like, whatever else the parser checks:
 * http(s)://, a non-empty host, only RFC 3986 characters, no control
 * character or space, and at most URL_MAX_CHARS. */
static void check_url_accepted(const char *s)
{
	size_t len = strlen(s), skip;
	const char *host;
	struct evhttp_uri *uri;

	FUZZ_CHECK(len <= URL_MAX_CHARS);
	FUZZ_CHECK(strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0);
	skip = strncasecmp(s, "http://", 7) == 0 ? 7 : 8;
	FUZZ_CHECK(strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                     "-._~:/?#[]@!$&'()*+,;=%") == len);
	/* libevent's own RFC 3986 parser (strict) agrees it is a URI. */
	uri = evhttp_uri_parse_with_flags(s, 0);
	FUZZ_CHECK(uri != NULL);
	FUZZ_CHECK(evhttp_uri_get_host(uri) && *evhttp_uri_get_host(uri));
	FUZZ_CHECK(strncasecmp(evhttp_uri_get_scheme(uri), "http", 4) == 0);
	evhttp_uri_free(uri);

	host = s + skip;
	if (memchr(host, '@', strcspn(host, "/?#")))
		host = (const char *)memchr(host, '@', strcspn(host, "/?#")) + 1;
	FUZZ_CHECK(*host != '\0' && *host != '/' && *host != '?' && *host != '#' &&
	           *host != ':');
	for (const char *p = s; (p = strchr(p, '%')) != NULL; p++)
		FUZZ_CHECK(fuzz_hex_value((unsigned char)p[1]) >= 0 &&
		           fuzz_hex_value((unsigned char)p[2]) >= 0);
}

/* What every accepted email must look like: one '@' with text on both sides,
 * valid UTF-8 of at most EMAIL_MAX_CHARS, no ASCII space or control. */
static void check_email_accepted(const char *s)
{
	size_t len = strlen(s);
	const char *at = strchr(s, '@');

	FUZZ_CHECK(utf8_valid(s, len));
	FUZZ_CHECK(utf8_chars(s) <= EMAIL_MAX_CHARS);
	FUZZ_CHECK(at && at != s && at[1] != '\0' && strchr(at + 1, '@') == NULL);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK((unsigned char)s[i] > 0x20 && (unsigned char)s[i] != 0x7f);
}

/* parse_long_range against strtol. */
static void check_parse_long(const char *s, long min, long max)
{
	long got = 0, want;
	char *end;
	bool digits = *s != '\0' && strspn(s, "0123456789") == strlen(s);
	int rc = parse_long_range(s, min, max, &got);

	errno = 0;
	want = strtol(s, &end, 10);
	if (!digits || errno == ERANGE || want < min || want > max) {
		FUZZ_CHECK(rc == -1);
		return;
	}
	FUZZ_CHECK(rc == 0 && got == want);
}

static void check_validators(const char *s, size_t len)
{
	bool b = false;
	json_t *j;

	/* jansson's own UTF-8 check (it accepts U+0000, as utf8_valid does). */
	j = json_stringn(s, len);
	FUZZ_CHECK(utf8_valid(s, len) == (j != NULL));
	json_decref(j);
	if (utf8_valid(s, len) && strlen(s) == len)
		FUZZ_CHECK(mbstowcs(NULL, s, 0) == utf8_chars(s));

	FUZZ_CHECK(validate_code(s) == ref_code(s));
	if (validate_email(s))
		check_email_accepted(s);
	if (validate_http_url(s))
		check_url_accepted(s);

	FUZZ_CHECK((parse_bool(s, &b) == 0) == (!strcmp(s, "true") || !strcmp(s, "false")));
	if (parse_bool(s, &b) == 0)
		FUZZ_CHECK(b == !strcmp(s, "true"));
	check_parse_long(s, 1, PAGE_SIZE_MAX);
	check_parse_long(s, 1, LONG_MAX / PAGE_SIZE_MAX);
	check_parse_long(s, 0, LONG_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *raw = (const char *)data;
	char *s = fuzz_cstring(data, size), *decoded;

	check_percent_decode(raw, size, true);
	check_percent_decode(raw, size, false);

	utf8_valid(raw, size);   /* on the raw bytes, NULs included */
	check_validators(s, strlen(s));

	decoded = form_percent_decode(raw, size, true);
	if (decoded)
		check_validators(decoded, strlen(decoded));
	free(decoded);
	free(s);
	return 0;
}
