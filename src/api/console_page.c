/*
 * The console's renderer (console_page.h). Every string a caller passes
 * goes through html_escape_into; the markup around it is ours alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_page.h"
#include "html.h"
#include "qr_svg.h"

/* Wider than the sign-in page's card (tables), still one column on a
 * phone; focus is always visible for keyboard use. */
static const char style[] =
	"body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}"
	"main{max-width:60rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;"
	"box-shadow:0 1px 4px rgba(0,0,0,.15)}"
	"nav ul{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:1rem;"
	"align-items:center}nav button{margin:0;padding:.3rem .8rem}"
	"h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}"
	"table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}"
	"th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d5d9e0;"
	"overflow-wrap:anywhere}"
	"label{display:block;margin:.8rem 0 .3rem;font-weight:600}"
	"input,select,textarea{width:100%;max-width:30rem;box-sizing:border-box;padding:.5rem;font:inherit;"
	"border:1px solid #8a93a6;border-radius:4px}"
	"button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;border:0;border-radius:4px;"
	"background:#2456c7;color:#fff;cursor:pointer}"
	"a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f0b400;outline-offset:1px}"
	"fieldset{border:1px solid #d5d9e0;border-radius:4px;margin:.8rem 0}"
	"input[type=checkbox]{width:auto}label.inline{display:inline;font-weight:400}"
	".error{color:#a4161a;background:#fde8e8;padding:.5rem;border-radius:4px}"
	"code{overflow-wrap:anywhere}"
	"@media (max-width:40rem){main{margin:0;padding:1rem;border-radius:0}}";

const char *console_page_csp(void)
{
	static char csp[HTML_CSP_MAX];

	if (!csp[0])
		html_csp_for(style, "; form-action 'self'", csp, sizeof csp);
	return csp;
}

static void tag_text(struct console_page *p, const char *open, const char *text, const char *close)
{
	evbuffer_add(p->buf, open, strlen(open));
	html_escape_into(p->buf, text);
	evbuffer_add(p->buf, close, strlen(close));
}

void console_page_begin(struct console_page *p, const char *title, const char *const *hrefs,
                        const char *const *labels, size_t n, const char *signout,
                        const char *token)
{
	p->buf = html_page_begin_styled(title, style);
	if (n) {
		evbuffer_add_printf(p->buf, "<nav aria-label=\"Console\"><ul>\n");
		for (size_t i = 0; i < n; i++) {
			evbuffer_add_printf(p->buf, "<li>");
			console_page_link(p, hrefs[i], labels[i]);
			evbuffer_add_printf(p->buf, "</li>\n");
		}
		if (signout) {
			evbuffer_add_printf(p->buf, "<li>");
			console_page_form_begin(p, signout, "post", token);
			console_page_submit(p, "Sign out");
			console_page_form_end(p);
			evbuffer_add_printf(p->buf, "</li>\n");
		}
		evbuffer_add_printf(p->buf, "</ul></nav>\n");
	}
	tag_text(p, "<h1>", title, "</h1>\n");
}

void console_page_heading(struct console_page *p, const char *text)
{
	tag_text(p, "<h2>", text, "</h2>\n");
}

void console_page_text(struct console_page *p, const char *text)
{
	tag_text(p, "<p>", text, "</p>\n");
}

void console_page_error(struct console_page *p, const char *text)
{
	tag_text(p, "<p class=\"error\" role=\"alert\">", text, "</p>\n");
}

void console_page_link(struct console_page *p, const char *href, const char *text)
{
	tag_text(p, "<a href=\"", href, "\">");
	tag_text(p, "", text, "</a>");
}

void console_page_qr(struct console_page *p, const char *text, const char *label)
{
	char *svg = qr_svg_of_text(text);

	if (!svg)
		return;
	tag_text(p, "<div role=\"img\" aria-label=\"", label, "\">");
	evbuffer_add(p->buf, svg, strlen(svg));   /* ours alone: numbers and fixed markup */
	evbuffer_add_printf(p->buf, "</div>\n");
	free(svg);
}

void console_page_code(struct console_page *p, const char *text)
{
	tag_text(p, "<p><code>", text, "</code></p>\n");
}

void console_page_table_begin(struct console_page *p, const char *caption,
                              const char *const *heads, size_t n)
{
	tag_text(p, "<table>\n<caption>", caption, "</caption>\n<thead><tr>");
	for (size_t i = 0; i < n; i++)
		tag_text(p, "<th scope=\"col\">", heads[i], "</th>");
	evbuffer_add_printf(p->buf, "</tr></thead>\n<tbody>\n");
}

static void cells_add(struct console_page *p, const char *const *cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tag_text(p, "<td>", cells[i], "</td>");
	evbuffer_add_printf(p->buf, "</tr>\n");
}

void console_page_table_row(struct console_page *p, const char *const *cells, size_t n)
{
	evbuffer_add_printf(p->buf, "<tr>");
	cells_add(p, cells, n);
}

/* A row's first cell, a link, and its n cells; the row left open. */
static void row_start(struct console_page *p, const char *href, const char *text,
                      const char *const *cells, size_t n)
{
	evbuffer_add_printf(p->buf, "<tr><td>");
	console_page_link(p, href, text);
	evbuffer_add_printf(p->buf, "</td>");
	for (size_t i = 0; i < n; i++)
		tag_text(p, "<td>", cells[i], "</td>");
}

void console_page_table_row_link(struct console_page *p, const char *href, const char *text,
                                 const char *const *cells, size_t n)
{
	row_start(p, href, text, cells, n);
	evbuffer_add_printf(p->buf, "</tr>\n");
}

void console_page_table_row_open(struct console_page *p, const char *href, const char *text,
                                 const char *const *cells, size_t n)
{
	row_start(p, href, text, cells, n);
	evbuffer_add_printf(p->buf, "<td>");
}

void console_page_table_row_close(struct console_page *p)
{
	evbuffer_add_printf(p->buf, "</td></tr>\n");
}

void console_page_table_end(struct console_page *p)
{
	evbuffer_add_printf(p->buf, "</tbody>\n</table>\n");
}

void console_page_form_begin(struct console_page *p, const char *action, const char *method,
                             const char *token)
{
	tag_text(p, "<form method=\"", method, "\" action=\"");
	tag_text(p, "", action, "\">\n");
	if (strcmp(method, "post") == 0)
		html_add_hidden(p->buf, CONSOLE_TOKEN_FIELD, token);
}

/* The end of a field's opening tag: required, and err tied to it. */
#define FIELD_ID(f) ((f)->id ? (f)->id : (f)->name)

static void field_attrs(struct console_page *p, const struct console_field *f)
{
	if (f->required)
		evbuffer_add_printf(p->buf, " required");
	if (f->error)
		tag_text(p, " aria-invalid=\"true\" aria-describedby=\"e-", FIELD_ID(f), "\"");
	evbuffer_add_printf(p->buf, ">");
}

static void field_error(struct console_page *p, const struct console_field *f)
{
	evbuffer_add_printf(p->buf, "\n");
	if (f->error) {
		tag_text(p, "<p class=\"error\" id=\"e-", FIELD_ID(f), "\">");
		tag_text(p, "", f->error, "</p>\n");
	}
}

void console_page_field(struct console_page *p, const struct console_field *f)
{
	bool area = strcmp(f->type, "textarea") == 0;

	if (strcmp(f->type, "hidden") == 0) {
		html_add_hidden(p->buf, f->name, f->value);
		return;
	}
	tag_text(p, "<label for=\"f-", FIELD_ID(f), "\">");
	tag_text(p, "", f->label, "</label>\n");
	tag_text(p, area ? "<textarea rows=\"3\" id=\"f-" : "<input id=\"f-", FIELD_ID(f), "\" name=\"");
	tag_text(p, "", f->name, "\"");
	if (!area) {
		tag_text(p, " type=\"", f->type, "\"");
		if (f->value && strcmp(f->type, "password") != 0)
			tag_text(p, " value=\"", f->value, "\"");
	}
	field_attrs(p, f);
	if (area)
		tag_text(p, "", f->value ? f->value : "", "</textarea>");
	field_error(p, f);
}

void console_page_select(struct console_page *p, const char *name, const char *label,
                         const char *const *values, const char *const *labels, size_t n,
                         const char *selected)
{
	tag_text(p, "<label for=\"f-", name, "\">");
	tag_text(p, "", label, "</label>\n");
	tag_text(p, "<select id=\"f-", name, "\" name=\"");
	tag_text(p, "", name, "\">\n");
	for (size_t i = 0; i < n; i++) {
		tag_text(p, "<option value=\"", values[i], "\"");
		if (selected && strcmp(selected, values[i]) == 0)
			evbuffer_add_printf(p->buf, " selected");
		tag_text(p, ">", labels[i], "</option>\n");
	}
	evbuffer_add_printf(p->buf, "</select>\n");
}

void console_page_checkboxes(struct console_page *p, const char *name, const char *legend,
                             const char *const *values, const char *const *labels,
                             const bool *checked, size_t n)
{
	console_page_fieldset_begin(p, legend);
	for (size_t i = 0; i < n; i++) {
		/* the value is an ID: URL-safe, so it names the input too */
		tag_text(p, "<div><input type=\"checkbox\" id=\"c-", values[i], "\" name=\"");
		tag_text(p, "", name, "\" value=\"");
		tag_text(p, "", values[i], checked[i] ? "\" checked>" : "\">");
		tag_text(p, " <label class=\"inline\" for=\"c-", values[i], "\">");
		tag_text(p, "", labels[i], "</label></div>\n");
	}
	console_page_fieldset_end(p);
}

void console_page_fieldset_begin(struct console_page *p, const char *legend)
{
	tag_text(p, "<fieldset>\n<legend>", legend, "</legend>\n");
}

void console_page_fieldset_end(struct console_page *p)
{
	evbuffer_add_printf(p->buf, "</fieldset>\n");
}

void console_page_submit(struct console_page *p, const char *label)
{
	tag_text(p, "<button type=\"submit\">", label, "</button>\n");
}

void console_page_form_end(struct console_page *p)
{
	evbuffer_add_printf(p->buf, "</form>\n");
}

void console_page_reply(struct request_ctx *ctx, int status, struct console_page *p)
{
	html_reply_csp(ctx, status, p->buf, console_page_csp());
	p->buf = NULL;
}
