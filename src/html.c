/* HTML helpers for the sign-in pages. Every value from a request goes
 * through html_escape_into; the pages run no script and load nothing. */
#include <string.h>
#include <openssl/evp.h>
#include <event2/buffer.h>

#include "crypto.h"
#include "html.h"
#include "util.h"

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

void html_escape_into(struct evbuffer *buf, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': evbuffer_add(buf, "&amp;", 5); break;
		case '<': evbuffer_add(buf, "&lt;", 4); break;
		case '>': evbuffer_add(buf, "&gt;", 4); break;
		case '"': evbuffer_add(buf, "&quot;", 6); break;
		case '\'': evbuffer_add(buf, "&#39;", 5); break;
		default: evbuffer_add(buf, s, 1);
		}
	}
}

const char *html_style(void)
{
	return style;
}

/* CSP Level 2 hash source: base64 (standard alphabet) of SHA-256. */
const char *html_csp(void)
{
	static char csp[200];

	if (!csp[0]) {
		unsigned char digest[32];
		unsigned char b64[48];
		unsigned int n = 0;
		EVP_Digest(style, strlen(style), digest, &n, EVP_sha256(), NULL);
		EVP_EncodeBlock(b64, digest, (int)n);
		/* img-src data: for <link rel="icon" href="data:,">, which keeps
		 * browsers from asking for /favicon.ico */
		snprintf(csp, sizeof csp, "default-src 'none'; style-src 'sha256-%s'; img-src data:; "
		         "frame-ancestors 'none'; base-uri 'none'", b64);
	}
	return csp;
}

void html_reply(struct request_ctx *ctx, int status, struct evbuffer *buf)
{
	size_t len = evbuffer_get_length(buf);
	char *text = xmalloc(len + 1);

	evbuffer_remove(buf, text, len);
	evbuffer_free(buf);
	http_add_header(ctx, "Content-Security-Policy", html_csp());
	http_add_header(ctx, "X-Frame-Options", "DENY");
	http_add_header(ctx, "X-Content-Type-Options", "nosniff");
	http_add_header(ctx, "Referrer-Policy", "no-referrer");
	http_reply_raw(ctx, status, "text/html; charset=utf-8", text, len);
	free(text);
}

void html_redirect(struct request_ctx *ctx, char *location)
{
	http_add_header(ctx, "Location", location);
	http_add_header(ctx, "Referrer-Policy", "no-referrer");
	http_reply_raw(ctx, 302, NULL, NULL, 0);
	crypto_wipe_free(location);
}
