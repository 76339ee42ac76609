#ifndef EDGEAUTH_CONSOLE_PAGE_H
#define EDGEAUTH_CONSOLE_PAGE_H
/*
 * The one renderer of the admin console's pages (docs/console.md): headings,
 * text, links, tables and forms. Callers hand in values, never HTML: every
 * string is escaped here, so no page can inject markup. The pages run no
 * script and load nothing; their one stylesheet is inline, allowed by hash
 * (the sign-in page's CSP family, plus form-action 'self').
 */
#include <stdbool.h>
#include <stddef.h>
#include <event2/buffer.h>

#include "request.h"

/* A page being written; console_page_reply sends and frees it. */
struct console_page {
	struct evbuffer *buf;
};

/* The page's head (title), then the navigation links hrefs[i] with
 * labels[i] (n of them; n 0: none) and, when signout is not NULL, a
 * sign-out button posting to it with token; then <h1>heading. */
void console_page_begin(struct console_page *p, const char *title, const char *const *hrefs,
                        const char *const *labels, size_t n, const char *signout,
                        const char *token);
/* A heading of level 2, a paragraph, an error (role=alert), a link. */
void console_page_heading(struct console_page *p, const char *text);
void console_page_text(struct console_page *p, const char *text);
void console_page_error(struct console_page *p, const char *text);
void console_page_link(struct console_page *p, const char *href, const char *text);

/* text as a QR code (qr_svg.h: inline SVG, no script, no style), labelled
 * label for assistive technology; nothing when text cannot be encoded. */
void console_page_qr(struct console_page *p, const char *text, const char *label);
/* text in a <code> element (a value to copy: a URI, a secret). */
void console_page_code(struct console_page *p, const char *text);

/* A table: caption, then n column heads; rows of n cells each (a NULL cell
 * is shown empty); then the end. */
void console_page_table_begin(struct console_page *p, const char *caption,
                              const char *const *heads, size_t n);
void console_page_table_row(struct console_page *p, const char *const *cells, size_t n);
/* A row whose first cell is a link (href, text), then n cells. */
void console_page_table_row_link(struct console_page *p, const char *href, const char *text,
                                 const char *const *cells, size_t n);
/* A row as console_page_table_row_link's whose last cell is left open (for
 * a form, console_page_form_begin ...) until console_page_table_row_close. */
void console_page_table_row_open(struct console_page *p, const char *href, const char *text,
                                 const char *const *cells, size_t n);
void console_page_table_row_close(struct console_page *p);
void console_page_table_end(struct console_page *p);

/* A form to action: method "get" (no token) or "post", which carries token
 * (the console session's, console.h) in the hidden field
 * CONSOLE_TOKEN_FIELD. */
#define CONSOLE_TOKEN_FIELD "form_token"
void console_page_form_begin(struct console_page *p, const char *action, const char *method,
                             const char *token);
/* A labelled input: type "text", "email", "password", "search", "url",
 * "textarea" (lines), "hidden" (no label); value may be NULL; error (NULL: none) is shown
 * beside it and tied to it with aria-describedby. A field repeated in a
 * form (rows of a table) gives each its own id. */
struct console_field {
	const char *name;
	const char *id;        /* the input's (unique) id; NULL: the name */
	const char *label;
	const char *type;
	const char *value;
	const char *error;
	bool required;
};
void console_page_field(struct console_page *p, const struct console_field *f);
/* A labelled choice of n values (labels[i] shown for values[i]); the one
 * equal to selected (may be NULL) is chosen. */
void console_page_select(struct console_page *p, const char *name, const char *label,
                         const char *const *values, const char *const *labels, size_t n,
                         const char *selected);
/* A group of n checkboxes named name under legend: values[i], labelled
 * labels[i], ticked when checked[i]. */
void console_page_checkboxes(struct console_page *p, const char *name, const char *legend,
                             const char *const *values, const char *const *labels,
                             const bool *checked, size_t n);
/* A group of the form's fields under legend, to its end. */
void console_page_fieldset_begin(struct console_page *p, const char *legend);
void console_page_fieldset_end(struct console_page *p);
void console_page_submit(struct console_page *p, const char *label);
void console_page_form_end(struct console_page *p);

/* Sends the page with status and the console's headers: its CSP,
 * X-Frame-Options DENY, and (the routes' no_store) Cache-Control:
 * no-store. Frees the page. */
void console_page_reply(struct request_ctx *ctx, int status, struct console_page *p);
/* The console's Content-Security-Policy (static). */
const char *console_page_csp(void);

#endif
