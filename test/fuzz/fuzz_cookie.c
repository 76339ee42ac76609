/*
 * libFuzzer harness: the session cookie's reading (session.c) and the
 * Origin check's comparison (html.c), both over bytes a browser or an
 * attacker sends. The input is split at its first newline into two Cookie
 * header values. A value found must be the one pair of that exact name:
 * non-empty, no ';', no blanks around it, and in the input; the comparison
 * must be symmetric where both sides are origins, and true only for an
 * http(s) origin.
 */
#include <strings.h>

#include "fuzz.h"
#include "html.h"
#include "session.h"

#define NAME "edgeauth_p"

static void check_cookie(const char *const *headers, size_t n)
{
	char *v = session_cookie_value(headers, n, NAME);
	size_t len;

	if (!v)
		return;
	len = strlen(v);
	FUZZ_CHECK(len > 0 && !strchr(v, ';'));
	FUZZ_CHECK(v[0] != ' ' && v[0] != '\t' && v[len - 1] != ' ' && v[len - 1] != '\t');
	FUZZ_CHECK(strstr(headers[0], v) || (n > 1 && strstr(headers[1], v)));
	FUZZ_CHECK(strstr(headers[0], NAME) || (n > 1 && strstr(headers[1], NAME)));
	free(v);
}

/* Whether s has a '/' after its "//" (a path the issuer may have and an
 * Origin may not), or no "//" at all. */
static bool has_path(const char *s)
{
	const char *p = strstr(s, "//");

	return !p || strchr(p + 2, '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstring(data, size);
	char *nl = strchr(in, '\n');
	const char *headers[2] = { in, NULL };
	size_t n = 1;

	if (nl) {
		*nl = '\0';
		headers[1] = nl + 1;
		n = 2;
	}
	check_cookie(headers, n);
	if (html_same_origin(in, "http://127.0.0.1:8080") ||
	    html_same_origin(in, "https://auth.example/edge"))
		FUZZ_CHECK(!strncasecmp(in, "http://", 7) || !strncasecmp(in, "https://", 8));
	if (nl && !has_path(in) && !has_path(headers[1]))
		FUZZ_CHECK(html_same_origin(in, headers[1]) == html_same_origin(headers[1], in));
	free(in);
	return 0;
}
