#ifndef EDGEAUTH_HEADER_SCAN_H
#define EDGEAUTH_HEADER_SCAN_H
/*
 * Watches a request's raw header section for what evhttp accepts and then
 * hides: a line folded onto the one above (obs-fold, RFC 9112 §5.2), which
 * evhttp joins to the value above with a space. Fed the bytes of one
 * request from its first byte (conn_guard.c feeds what a connection reads);
 * it stops at the blank line that ends the header section, so a body is
 * never read as headers. Not a parser: it only tells lines apart.
 */
#include <stdbool.h>
#include <stddef.h>

struct header_scan {
	unsigned char state;   /* HS_* of header_scan.c */
	bool folded;           /* a folded header line was seen */
};

/* Starts over at the first byte of a request. */
void header_scan_reset(struct header_scan *s);
/* Takes the next n bytes of the request. */
void header_scan_feed(struct header_scan *s, const char *p, size_t n);
/* True once the blank line ending the header section was seen. */
bool header_scan_done(const struct header_scan *s);

#endif
