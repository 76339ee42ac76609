/* What the browser's endpoints share (html.h). Every value from a request
 * goes through html_escape_into; the pages run no script and load nothing. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <openssl/evp.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "config.h"
#include "crypto.h"
#include "html.h"
#include "request.h"
#include "session.h"
#include "util.h"
#include "validate.h"

static const char style[] =
	"body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}"
	"main{max-width:22rem;margin:10vh auto;background:#fff;padding:2rem;border-radius:8px;"
	"box-shadow:0 1px 4px rgba(0,0,0,.15)}"
	"h1{font-size:1.4rem;margin:0 0 1rem}"
	"label{display:block;margin:.8rem 0 .3rem;font-weight:600}"
	"input{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #8a93a6;"
	"border-radius:4px}"
	"button,input{font:inherit}"
	"@media (max-width:30rem){main{margin:1rem;padding:1.2rem}}"
	"button{margin-top:1.2rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:4px;"
	"background:#2456c7;color:#fff;cursor:pointer}"
	".error{color:#a4161a;background:#fde8e8;padding:.6rem;border-radius:4px}";

/* Plain runs go in one add each: a console page escapes every value. */
void html_escape_into(struct evbuffer *buf, const char *s)
{
	while (s && *s) {
		size_t run = strcspn(s, "&<>\"'");

		if (run)
			evbuffer_add(buf, s, run);
		s += run;
		switch (*s) {
		case '&': evbuffer_add(buf, "&amp;", 5); break;
		case '<': evbuffer_add(buf, "&lt;", 4); break;
		case '>': evbuffer_add(buf, "&gt;", 4); break;
		case '"': evbuffer_add(buf, "&quot;", 6); break;
		case '\'': evbuffer_add(buf, "&#39;", 5); break;
		default: return;   /* the end */
		}
		s++;
	}
}

const char *html_style(void)
{
	return style;
}

/* CSP Level 2 hash source: base64 (standard alphabet) of SHA-256. */
void html_csp_for(const char *sheet, const char *extra, char *out, size_t size)
{
	unsigned char digest[32];
	unsigned char b64[48];
	unsigned int n = 0;

	EVP_Digest(sheet, strlen(sheet), digest, &n, EVP_sha256(), NULL);
	EVP_EncodeBlock(b64, digest, (int)n);
	/* img-src data: for <link rel="icon" href="data:,">, which keeps
	 * browsers from asking for /favicon.ico */
	snprintf(out, size, "default-src 'none'; style-src 'sha256-%s'; img-src data:; "
	         "frame-ancestors 'none'; base-uri 'none'%s", b64, extra);
}

const char *html_csp(void)
{
	static char csp[HTML_CSP_MAX];

	if (!csp[0])
		html_csp_for(style, "", csp, sizeof csp);
	return csp;
}

struct evbuffer *html_page_begin(const char *title)
{
	return html_page_begin_styled(title, style);
}

struct evbuffer *html_page_begin_styled(const char *title, const char *sheet)
{
	struct evbuffer *buf = evbuffer_new();

	evbuffer_add_printf(buf, "<!doctype html>\n<html lang=\"en\">\n<head>\n"
	                    "<meta charset=\"utf-8\">\n"
	                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                    "<title>");
	html_escape_into(buf, title);
	evbuffer_add_printf(buf, "</title>\n<link rel=\"icon\" href=\"data:,\">\n"
	                    "<style>%s</style>\n</head>\n<body>\n<main>\n", sheet);
	return buf;
}

struct evbuffer *html_error_page(const char *title, const char *heading, const char *reason)
{
	struct evbuffer *buf = html_page_begin(title);

	evbuffer_add_printf(buf, "<h1>%s</h1>\n<p class=\"error\" role=\"alert\">%s</p>\n"
	                    "<p>Go back to the application and try again.</p>\n", heading, reason);
	return buf;
}

void html_add_hidden(struct evbuffer *buf, const char *name, const char *value)
{
	if (!value)
		return;
	evbuffer_add_printf(buf, "<input type=\"hidden\" name=\"%s\" value=\"", name);
	html_escape_into(buf, value);
	evbuffer_add(buf, "\">\n", 3);
}

/* docs/signin.md §"Cross-site posts": same-origin, never no-referrer: with no-referrer a
 * browser sends "Origin: null" on the page's own form post, which the
 * Origin check must refuse. */
void html_reply(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	html_reply_csp(ctx, status, buf, html_csp());
}

void html_reply_csp(struct request_ctx *ctx, int status, struct evbuffer *buf, const char *csp)
{
	size_t len;
	char *text;

	evbuffer_add_printf(buf, "</main>\n</body>\n</html>\n");
	len = evbuffer_get_length(buf);
	text = xmalloc(len + 1);
	evbuffer_remove(buf, text, len);
	evbuffer_free(buf);
	http_add_header(ctx, "Content-Security-Policy", csp);
	http_add_header(ctx, "X-Frame-Options", "DENY");
	http_add_header(ctx, "X-Content-Type-Options", "nosniff");
	http_add_header(ctx, "Referrer-Policy", "same-origin");
	http_reply_raw(ctx, status, "text/html; charset=utf-8", text, len);
	crypto_free_wiped(text);   /* the form carries the request's state, a login_hint */
}

char *html_redirect_url(const char *base, const char *const *names, const char *const *values,
                        size_t n)
{
	struct evbuffer *buf = evbuffer_new();
	char sep = strchr(base, '?') ? '&' : '?';
	char *url;
	size_t len;

	evbuffer_add(buf, base, strlen(base));
	for (size_t i = 0; i < n; i++) {
		char *enc;

		if (!values[i])
			continue;
		enc = evhttp_uriencode(values[i], -1, 0);
		evbuffer_add_printf(buf, "%c%s=%s", sep, names[i], enc ? enc : "");
		crypto_free_wiped(enc);   /* a code */
		sep = '&';
	}
	len = evbuffer_get_length(buf);
	url = xmalloc(len + 1);
	evbuffer_remove(buf, url, len);
	url[len] = '\0';
	evbuffer_free(buf);
	return url;
}

void html_redirect(struct request_ctx *ctx, char *location)
{
	http_add_header(ctx, "Location", location);
	http_add_header(ctx, "Referrer-Policy", "no-referrer");
	http_reply_raw(ctx, 302, NULL, NULL, 0);
	crypto_free_wiped(location);
}

/* ---- the Origin check ---- */

/* An origin's parts: scheme and host lower-cased, the port with the
 * scheme's default filled in. */
struct origin {
	char scheme[6];
	char host[256];
	long port;
};

/* Reads "scheme://host[:port]" from s, then a path when path_ok (the
 * issuer may have one; an Origin never does). 0, or -1 when malformed. */
static int origin_parse(const char *s, bool path_ok, struct origin *o)
{
	const char *host, *end, *port;
	size_t len;

	memset(o, 0, sizeof *o);
	if (!strncasecmp(s, "https://", 8)) {
		strcpy(o->scheme, "https");
		o->port = 443;
		host = s + 8;
	} else if (!strncasecmp(s, "http://", 7)) {
		strcpy(o->scheme, "http");
		o->port = 80;
		host = s + 7;
	} else {
		return -1;
	}
	/* an IPv6 literal keeps its colons inside brackets */
	end = *host == '[' ? strchr(host, ']') : host + strcspn(host, ":/");
	if (!end)
		return -1;
	if (*host == '[')
		end++;
	len = (size_t)(end - host);
	if (len == 0 || len >= sizeof o->host || memchr(host, '@', len))
		return -1;
	for (size_t i = 0; i < len; i++)
		o->host[i] = (char)tolower((unsigned char)host[i]);
	if (*end == ':') {
		port = end + 1;
		end = port + strcspn(port, "/");
		if (end > port) {
			char digits[8];
			if ((size_t)(end - port) >= sizeof digits)
				return -1;
			memcpy(digits, port, (size_t)(end - port));
			digits[end - port] = '\0';
			if (parse_long_range(digits, 1, 65535, &o->port) < 0)
				return -1;
		}
	}
	return *end == '\0' || (path_ok && *end == '/') ? 0 : -1;
}

bool html_same_origin(const char *origin, const char *issuer)
{
	struct origin a, b;

	return origin && issuer && origin_parse(origin, false, &a) == 0 &&
	       origin_parse(issuer, true, &b) == 0 && !strcmp(a.scheme, b.scheme) &&
	       !strcmp(a.host, b.host) && a.port == b.port;
}

bool html_post_origin_check(struct request_ctx *ctx)
{
	const char *origin = request_header(ctx, "Origin");

	if (!origin || html_same_origin(origin, ctx->http.srv->cfg->issuer))
		return true;
	html_reply(ctx, 403, html_error_page("Request refused", "This request came from another site",
	                                     "A form of this server was posted from another site. "
	                                     "Open the application and sign in from there."));
	return false;
}

/* ---- the session cookie ---- */

#define COOKIE_HEADERS_MAX 16

/* The request's Cookie header values into values[COOKIE_HEADERS_MAX]: their
 * number, or SIZE_MAX past that many. HTTP/2 gateways send each cookie in a
 * header of its own (RFC 9113 §8.2.3); past COOKIE_HEADERS_MAX of them the
 * request has no session. */
static size_t cookie_headers(struct request_ctx *ctx, const char **values)
{
	const struct evkeyvalq *in = evhttp_request_get_input_headers(ctx->http.req);
	const struct evkeyval *h;
	size_t n = 0;

	TAILQ_FOREACH(h, in, next) {
		if (strcasecmp(h->key, "Cookie") != 0)
			continue;
		if (n == COOKIE_HEADERS_MAX)
			return SIZE_MAX;
		values[n++] = h->value;
	}
	return n;
}

char *html_cookie(struct request_ctx *ctx, const char *name)
{
	const char *values[COOKIE_HEADERS_MAX];
	size_t n = cookie_headers(ctx, values);

	return n == SIZE_MAX ? NULL : session_cookie_value(values, n, name);
}

char *html_session_cookie(struct request_ctx *ctx, const char *project_id)
{
	char *name = session_cookie_name(project_id,
	                                 session_cookie_secure(ctx->http.srv->cfg->issuer));
	char *value = html_cookie(ctx, name);

	free(name);
	return value;
}

/* Until 0.1.0 the http cookie was for Path=/api/v1/ (CHANGELOG.md "Unreleased"):
 * a browser that kept it beside the Path=/ one sends the name twice, which
 * is no session, so such a request's new cookie comes with the old one's
 * removal. Only then: a second Set-Cookie of the same name confuses cookie
 * jars that ignore paths. */
static bool sends_two_cookies(struct request_ctx *ctx, const char *name)
{
	const char *values[COOKIE_HEADERS_MAX];
	size_t n = cookie_headers(ctx, values);

	return n != SIZE_MAX && session_cookie_count(values, n, name) > 1;
}

void html_set_session_cookie(struct request_ctx *ctx, const char *project_id, const char *value)
{
	const struct config *cfg = ctx->http.srv->cfg;
	bool secure = session_cookie_secure(cfg->issuer);
	char *name = session_cookie_name(project_id, secure);
	char *header = session_cookie_header(name, value, secure, cfg->session_ttl_s);

	http_add_header(ctx, "Set-Cookie", header);
	crypto_free_wiped(header);
	if (!secure && sends_two_cookies(ctx, name)) {
		header = session_cookie_legacy_clear(name);
		http_add_header(ctx, "Set-Cookie", header);
		free(header);
	}
	free(name);
}
