/* The header-section watcher (header_scan.h). */
#include <string.h>

#include "header_scan.h"

enum {
	HS_BEFORE,       /* before the request line: empty lines are skipped (RFC 9112 §2.2) */
	HS_FIRST_LINE,   /* in the request line */
	HS_LINE_START,   /* at the start of a header line, or of the blank line */
	HS_LINE,         /* in a header line */
	HS_BLANK_CR,     /* a CR at a line's start: the blank line, if LF follows */
	HS_DONE,         /* past the blank line: the body, or the next request */
};

void header_scan_reset(struct header_scan *s)
{
	s->state = HS_BEFORE;
	s->folded = false;
}

bool header_scan_done(const struct header_scan *s)
{
	return s->state == HS_DONE;
}

/* A line ends at LF (a CR before it is part of the CRLF; a bare LF is a
 * line end too, as RFC 9112 §2.2 lets a recipient read it). Inside a line
 * only its LF matters, so memchr skips to it: byte by byte, the scan was 2%
 * of a /healthz (docs/BENCHMARKS.md). */
void header_scan_feed(struct header_scan *s, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end && s->state != HS_DONE) {
		char c = *p;

		switch (s->state) {
		case HS_BEFORE:
			if (c != '\r' && c != '\n')
				s->state = HS_FIRST_LINE;
			break;
		case HS_FIRST_LINE:
		case HS_LINE: {
			const char *lf = memchr(p, '\n', (size_t)(end - p));

			if (!lf)
				return;   /* the line goes on in the next bytes */
			p = lf;
			s->state = HS_LINE_START;
			break;
		}
		case HS_LINE_START:
			if (c == ' ' || c == '\t')
				s->folded = true;
			s->state = c == '\r' ? HS_BLANK_CR : c == '\n' ? HS_DONE : HS_LINE;
			break;
		case HS_BLANK_CR:
			s->state = c == '\n' ? HS_DONE : HS_LINE;
			break;
		}
		p++;
	}
}
