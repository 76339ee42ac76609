#ifndef EDGEAUTH_QR_SVG_H
#define EDGEAUTH_QR_SVG_H
/*
 * QR codes as inline SVG (docs/signin.md §"Second factors": the TOTP
 * enrollment's otpauth:// URI). libqrencode makes the module matrix; this
 * file only draws it: black squares on white, one path, no text, no script,
 * no style attribute (the pages' CSP allows none), so the markup is ours
 * alone and holds nothing a caller handed in.
 */
#include <stddef.h>

/* Modules of white around the code (ISO/IEC 18004 §6.3.8: 4). */
#define QR_SVG_QUIET 4

/* The SVG of a width x width module matrix in libqrencode's layout
 * (row-major, a module dark when bit 0 of its byte is set), with the quiet
 * zone around it, each module one unit of its viewBox. Caller frees. */
char *qr_svg_render(const unsigned char *modules, int width);
/* text (8-bit mode, error correction level M, the smallest version that
 * holds it) as qr_svg_render's SVG; NULL when libqrencode cannot encode it
 * (too long, no memory). Caller frees. */
char *qr_svg_of_text(const char *text);

#endif
