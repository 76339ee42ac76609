#ifndef EDGEAUTH_FUZZ_H
#define EDGEAUTH_FUZZ_H
/*
 * What every libFuzzer harness under test/fuzz/ shares: the entry point's
 * prototype, a NUL-terminated copy of the input, FUZZ_CHECK, which turns a
 * broken invariant into a crash that libFuzzer keeps as an artifact, and a
 * percent-decoder written independently of the one under test.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Aborts with the failed condition when an invariant of the code under test
 * does not hold: libFuzzer reports the abort and saves the input. */
#define FUZZ_CHECK(cond)                                                          \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,  \
			        __LINE__, #cond);                                 \
			abort();                                                  \
		}                                                                 \
	} while (0)

/* data[0..size) as a new NUL-terminated string (cut at the first NUL, as a
 * C caller would see it). Caller frees. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static inline int fuzz_hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* RFC 3986 §2.1 percent-decoding (with '+' as a space for forms and query
 * strings), written without libevent. Returns NULL on a raw NUL or a '%' not
 * followed by two hex digits; else the bytes (which may hold NUL or be
 * invalid UTF-8), NUL-terminated, and their count in *out_len. Caller frees. */
static inline char *fuzz_percent_decode(const char *s, size_t len, bool plus_is_space,
                                        size_t *out_len)
{
	char *out;
	size_t i, n = 0;

	if (memchr(s, '\0', len))
		return NULL;
	out = malloc(len + 1);
	if (!out)
		abort();
	for (i = 0; i < len; i++) {
		if (s[i] == '%') {
			int hi = len - i >= 3 ? fuzz_hex_value((unsigned char)s[i + 1]) : -1;
			int lo = len - i >= 3 ? fuzz_hex_value((unsigned char)s[i + 2]) : -1;

			if (hi < 0 || lo < 0) {
				free(out);
				return NULL;
			}
			out[n++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[n++] = s[i] == '+' && plus_is_space ? ' ' : s[i];
		}
	}
	out[n] = '\0';
	*out_len = n;
	return out;
}

/* What form_percent_decode promises (plus as space): the decoding when it is
 * UTF-8 without U+0000, else NULL. Caller frees. */
static inline char *fuzz_decode_text(const char *s, size_t len)
{
	size_t n = 0;
	char *out = fuzz_percent_decode(s, len, true, &n);

	if (out && (strlen(out) != n || !utf8_valid(out, n))) {
		free(out);
		out = NULL;
	}
	return out;
}

#endif
