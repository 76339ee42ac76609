#ifndef EDGEAUTH_HTML_H
#define EDGEAUTH_HTML_H
/* HTML output for the sign-in pages: escaping, the headers every page
 * carries (CONTRACT.md §6), and the redirect that ends a sign-in. */
#include <event2/buffer.h>

#include "http.h"

/* Appends s to buf with & < > " ' escaped; NULL appends nothing. */
void html_escape_into(struct evbuffer *buf, const char *s);
/* The page's inline stylesheet and the CSP header value that allows it by
 * hash and nothing else. Both static. */
const char *html_style(void);
const char *html_csp(void);
/* Answers with buf (freed here) as a text/html page with the security
 * headers. The routes answer with Cache-Control: no-store (router.c). */
void html_reply(struct request_ctx *ctx, int status, struct evbuffer *buf);
/* Answers 302 to location (wiped and freed here: it may carry a code),
 * which must not leak to the next page as a Referer. */
void html_redirect(struct request_ctx *ctx, char *location);

#endif
