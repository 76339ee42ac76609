/* issue30.5: the QR code's SVG renderer (qr_svg.h). Nothing is decoded: the
 * SVG is checked to be well-formed, and the module matrix its path draws is
 * read back and compared with libqrencode's for known inputs. */
#include <check.h>
#include <qrencode.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "qr_svg.h"

static const char *const inputs[] = {
	"otpauth://totp/127.0.0.1%3A8080:rita%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	"&issuer=127.0.0.1%3A8080",
	"A",
	"\x01\x02<>&\"'",
};

/* The matrix (size x size, 1 dark) the dark path of svg draws: each
 * subpath "M x y h run v1 h-run z" is a run of dark modules. */
static unsigned char *drawn(const char *svg, int size)
{
	unsigned char *m = calloc((size_t)size * size, 1);
	const char *d = strstr(svg, "<path fill=\"#000\" d=\"");
	int x, y, run, back, n;

	ck_assert_ptr_nonnull(d);
	d += strlen("<path fill=\"#000\" d=\"");
	while (*d == 'M') {
		ck_assert_int_eq(sscanf(d, "M%d %dh%dv1h-%dz%n", &x, &y, &run, &back, &n), 4);
		ck_assert_int_eq(run, back);
		ck_assert(x >= 0 && y >= 0 && run > 0 && x + run <= size && y < size);
		for (int i = 0; i < run; i++)
			m[y * size + x + i] = 1;
		d += n;
	}
	ck_assert_str_eq(d, "\"/></svg>");
	return m;
}

/* Well-formed in the small: one svg element holding two empty path
 * elements, every attribute value quoted, the path data nothing but path
 * commands and numbers, nothing after. */
static void well_formed(const char *svg, int size)
{
	char head[320];
	const char *c;

	snprintf(head, sizeof head, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
	         "width=\"%d\" height=\"%d\" shape-rendering=\"crispEdges\">"
	         "<path fill=\"#fff\" d=\"M0 0h%dv%dh-%dz\"/><path fill=\"#000\" d=\"",
	         size, size, size * 6, size * 6, size, size, size);
	ck_assert_int_eq(strncmp(svg, head, strlen(head)), 0);
	c = svg + strlen(head);
	ck_assert_str_eq(c + strspn(c, "M0123456789 hvz-"), "\"/></svg>");
}

START_TEST(test_matrix_matches_libqrencode)
{
	QRcode *qr = QRcode_encodeString(inputs[_i], 0, QR_ECLEVEL_M, QR_MODE_8, 1);
	int size;
	char *svg, *svg2;
	unsigned char *m;

	ck_assert_ptr_nonnull(qr);
	size = qr->width + 2 * QR_SVG_QUIET;
	svg = qr_svg_render(qr->data, qr->width);
	well_formed(svg, size);
	m = drawn(svg, size);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			int qx = x - QR_SVG_QUIET, qy = y - QR_SVG_QUIET;
			int dark = qx >= 0 && qy >= 0 && qx < qr->width && qy < qr->width &&
			           (qr->data[qy * qr->width + qx] & 1);
			ck_assert_msg(m[y * size + x] == dark, "module %d,%d", x, y);
		}
	svg2 = qr_svg_of_text(inputs[_i]);
	ck_assert_str_eq(svg2, svg);   /* the same encoding: level M, 8-bit */
	free(svg2);
	free(m);
	free(svg);
	QRcode_free(qr);
}
END_TEST

/* The encoded text never reaches the markup: only its modules do. */
START_TEST(test_text_not_in_svg)
{
	char *svg = qr_svg_of_text("<script>alert(1)</script>");

	ck_assert_ptr_nonnull(svg);
	ck_assert_ptr_null(strstr(svg, "script"));
	free(svg);
}
END_TEST

/* More than the largest version holds: no code, no crash. */
START_TEST(test_too_long)
{
	size_t n = 8000;
	char *text = malloc(n + 1);

	memset(text, 'x', n);
	text[n] = '\0';
	ck_assert_ptr_null(qr_svg_of_text(text));
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qr_svg");
	TCase *tc = tcase_create("qr_svg");

	tcase_add_loop_test(tc, test_matrix_matches_libqrencode, 0, N_ELEMS(inputs));
	tcase_add_test(tc, test_text_not_in_svg);
	tcase_add_test(tc, test_too_long);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
