/*
 * QR codes drawn as SVG (qr_svg.h). The only markup written here is numbers
 * and fixed text: nothing of the encoded text reaches the SVG but its
 * modules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <qrencode.h>

#include "qr_svg.h"
#include "util.h"

/* Appends to a growing string (*buf, *len). */
static void add(char **buf, size_t *len, const char *fmt, int a, int b, int c)
{
	int n = snprintf(NULL, 0, fmt, a, b, c);

	*buf = xrealloc(*buf, *len + (size_t)n + 1);
	snprintf(*buf + *len, (size_t)n + 1, fmt, a, b, c);
	*len += (size_t)n;
}

/* One subpath per horizontal run of dark modules: "M x y h run v1 h -run z". */
char *qr_svg_render(const unsigned char *modules, int width)
{
	int size = width + 2 * QR_SVG_QUIET;
	char *buf = NULL;
	size_t len = 0;

	add(&buf, &len, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
	    "width=\"%d\"", size, size, size * 6);
	add(&buf, &len, " height=\"%d\" shape-rendering=\"crispEdges\">", size * 6, 0, 0);
	add(&buf, &len, "<path fill=\"#fff\" d=\"M0 0h%dv%dh-%dz\"/><path fill=\"#000\" d=\"",
	    size, size, size);
	for (int y = 0; y < width; y++)
		for (int x = 0; x < width; x++) {
			int run = 0;
			while (x + run < width && (modules[y * width + x + run] & 1))
				run++;
			if (!run)
				continue;
			add(&buf, &len, "M%d %dh%d", x + QR_SVG_QUIET, y + QR_SVG_QUIET, run);
			add(&buf, &len, "v1h-%dz", run, 0, 0);
			x += run - 1;
		}
	add(&buf, &len, "\"/></svg>", 0, 0, 0);
	return buf;
}

char *qr_svg_of_text(const char *text)
{
	QRcode *qr = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
	char *svg;

	if (!qr)
		return NULL;
	svg = qr_svg_render(qr->data, qr->width);
	QRcode_free(qr);
	return svg;
}
