#ifndef EDGEAUTH_HTML_H
#define EDGEAUTH_HTML_H
/* What the browser's endpoints (sign-in, logout) share: the pages and their
 * escaping, the headers every page carries (docs/signin.md §"Password sign-in", §"Logout"), the
 * redirects they end in, the session cookie as the browser sends it, and
 * the Origin check of their forms' posts (login CSRF). */
#include <stdbool.h>
#include <event2/buffer.h>

#include "http.h"

/* Appends s to buf with & < > " ' escaped; NULL appends nothing. */
void html_escape_into(struct evbuffer *buf, const char *s);
/* The page's inline stylesheet and the CSP header value that allows it by
 * hash and nothing else. Both static. */
const char *html_style(void);
const char *html_csp(void);
/* The CSP of a page whose only stylesheet is sheet: the sign-in page's
 * family (nothing but that sheet, by hash), then extra ("" or
 * "; form-action 'self'"), into out. */
#define HTML_CSP_MAX 256
void html_csp_for(const char *sheet, const char *extra, char *out, size_t size);

/* A new page: its head (title escaped), then <body><main>. The caller adds
 * the content and answers with html_reply, which closes the page. */
struct evbuffer *html_page_begin(const char *title);
/* The same with another stylesheet (static), for pages that answer with
 * html_reply_csp and its hash. */
struct evbuffer *html_page_begin_styled(const char *title, const char *sheet);
/* A page that says why a request cannot be served: heading and reason are
 * our own static text. */
struct evbuffer *html_error_page(const char *title, const char *heading, const char *reason);
/* A hidden form field (name ours, value escaped); a NULL value adds none. */
void html_add_hidden(struct evbuffer *buf, const char *name, const char *value);

/* Answers with the page in buf (closed and freed here) as text/html with
 * the security headers. The routes answer with Cache-Control: no-store
 * (router.c). */
void html_reply(struct request_ctx *ctx, int status, struct evbuffer *buf);
/* The same with csp as the Content-Security-Policy (html_csp_for). */
void html_reply_csp(struct request_ctx *ctx, int status, struct evbuffer *buf, const char *csp);
/* base (a registered URI, which may have a query) with the pairs
 * names[i]=values[i] added, URL-encoded, joined with '&'; a NULL value is
 * left out. Caller frees (html_redirect does). */
char *html_redirect_url(const char *base, const char *const *names, const char *const *values,
                        size_t n);
/* Answers 302 to location (wiped and freed here: it may carry a code),
 * which must not leak to the next page as a Referer. */
void html_redirect(struct request_ctx *ctx, char *location);

/* Whether origin (an Origin header's value) is the issuer's origin:
 * scheme, host without regard to case, and port, a default port (80 for
 * http, 443 for https) the same as none (RFC 6454). "null", anything
 * malformed and any path are not. Pure: no request. */
bool html_same_origin(const char *origin, const char *issuer);
/* docs/signin.md §"Cross-site posts": a post of one of our forms may come from our own pages
 * only. True when the request has no Origin (curl, old browsers) or the
 * issuer's; else false, and the request is answered with the 403 page. */
bool html_post_origin_check(struct request_ctx *ctx);

/* The value of the request's cookie called name (session_cookie_value's
 * rules; NULL: none, or past as many Cookie headers as we read). Caller
 * frees. */
char *html_cookie(struct request_ctx *ctx, const char *name);
/* The value of project_id's session cookie (session.h) across the
 * request's Cookie headers, or NULL (none, empty, or more than one). Caller
 * frees with crypto_free_wiped: it is a session secret. */
char *html_session_cookie(struct request_ctx *ctx, const char *project_id);
/* Adds the Set-Cookie header that gives the browser project_id's session
 * cookie with value for [sessions] ttl_s, or (value NULL) removes it. */
void html_set_session_cookie(struct request_ctx *ctx, const char *project_id, const char *value);

#endif
