/*
 * libFuzzer harness: forward authentication's reading of what a proxy says
 * the original request was, and its base-URL match (forward_auth.c), over
 * headers an attacker may send. The input's lines are X-Original-URL,
 * X-Forwarded-Proto, -Host, -Uri and a base URL ("" for an absent header).
 * An untrusted peer's headers are never read; a URL read is an http(s) URL
 * of at most URL_MAX_CHARS whose path (after the host, before '?' or '#')
 * has no "/../"; a URL under a base starts with it (its scheme and host in
 * any case), and a base is under itself.
 */
#include <strings.h>

#include "forward_auth.h"
#include "fuzz.h"
#include "util.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstring(data, size), *p = in, *f[5] = { NULL };
	struct forward_request r;

	for (size_t i = 0; i < 5 && p; i++)
		f[i] = strsep(&p, "\n");
	struct forward_headers h = {
		.original_url = f[0] && *f[0] ? f[0] : NULL,
		.proto = f[1] && *f[1] ? f[1] : NULL,
		.host = f[2] && *f[2] ? f[2] : NULL,
		.uri = f[3] && *f[3] ? f[3] : NULL,
	};
	const char *base = f[4] ? f[4] : "https://a.example/";

	FUZZ_CHECK(forward_request_read(&h, false, &r) == -1 && !r.url);
	if (forward_request_read(&h, true, &r) == 0) {
		const char *auth = strstr(r.url, "://") + 3;
		const char *from = auth + strcspn(auth, "/?#");
		char *path = xstrndup(from, strcspn(from, "?#"));

		FUZZ_CHECK(validate_http_url(r.url) && !strstr(path, "/../"));
		free(path);
		FUZZ_CHECK(r.nginx == (h.original_url != NULL));
		if (forward_url_under(r.url, base))
			FUZZ_CHECK(strlen(r.url) >= strlen(base) &&
			           !strncasecmp(r.url, base, strlen(base)));
		forward_request_release(&r);
	}
	if (validate_http_url(base))
		FUZZ_CHECK(forward_url_under(base, base));
	free(in);
	return 0;
}
