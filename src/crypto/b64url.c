/*
 * Base64 (RFC 4648): base64url without padding out, either alphabet in,
 * both by table here. Decoding is strict, unlike OpenSSL's EVP_DecodeBlock
 * (which skips whitespace and accepts any trailing bits): every byte string
 * has one accepted encoding per alphabet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "b64url.h"
#include "util.h"

/* 1 + each character's 6-bit value in either alphabet; 0 for any other
 * byte. */
static const unsigned char b64_values[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,
	['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
	['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22,
	['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29,
	['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
	['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42, ['q'] = 43,
	['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
	['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57,
	['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['-'] = 63,
	['/'] = 64, ['_'] = 64,
};

/* RFC 4648 §5's URL-safe alphabet. */
static const char b64url_alphabet[64] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Encoded here, three bytes to four characters, without padding (RFC 7515
 * §2): EVP_EncodeBlock and a pass translating the alphabet were a
 * fortieth of a grant (docs/BENCHMARKS.md). */
size_t b64url_encode_into(char *out, const unsigned char *data, size_t len)
{
	char *o = out;
	size_t i = 0;
	uint32_t v;

	for (; len - i >= 3; i += 3, o += 4) {
		v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
		o[0] = b64url_alphabet[v >> 18];
		o[1] = b64url_alphabet[(v >> 12) & 63];
		o[2] = b64url_alphabet[(v >> 6) & 63];
		o[3] = b64url_alphabet[v & 63];
	}
	if (len - i > 0) {
		v = (uint32_t)data[i] << 16 | (len - i == 2 ? (uint32_t)data[i + 1] << 8 : 0);
		*o++ = b64url_alphabet[v >> 18];
		*o++ = b64url_alphabet[(v >> 12) & 63];
		if (len - i == 2)
			*o++ = b64url_alphabet[(v >> 6) & 63];
	}
	*o = '\0';
	return (size_t)(o - out);
}

char *b64url_encode(const unsigned char *data, size_t len)
{
	char *out;

	if (len / 3 >= SIZE_MAX / 4 - 1)
		abort();        /* cannot be allocated anyway */
	out = xmalloc(B64URL_ENCODED_MAX(len));
	b64url_encode_into(out, data, len);
	return out;
}

/*
 * Accepts exactly: characters of either alphabet, then either no padding or
 * the complete padding ("=" or "==" making the length a multiple of 4). Fails
 * on whitespace, any other character, a length of 4k+1 characters, partial or
 * extra padding, and non-zero trailing bits (RFC 4648 §3.5), so that every
 * byte string has one accepted encoding per alphabet.
 */
unsigned char *b64url_decode_any(const char *s, size_t len, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = len, pad = 0, want, o = 0, i = 0;
	unsigned char *out;
	unsigned a, b, c, d;

	if (!s || len > SIZE_MAX / 2)
		return NULL;
	while (pad < 2 && n > 0 && s[n - 1] == '=') {
		n--;
		pad++;
	}
	if (pad > 0 && len % 4 != 0)
		return NULL;
	if (n % 4 == 1)
		return NULL;

	/* Decoded here in one pass with the check, by table: the copy
	 * translating the alphabet for EVP_DecodeBlock, and the call, were
	 * most of a Basic header's parse (docs/BENCHMARKS.md). */
	want = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
	out = xmalloc(want + 1);
	for (; n - i >= 4; i += 4) {
		a = b64_values[p[i]];
		b = b64_values[p[i + 1]];
		c = b64_values[p[i + 2]];
		d = b64_values[p[i + 3]];
		if (!a || !b || !c || !d)
			goto fail;
		a = (a - 1) << 18 | (b - 1) << 12 | (c - 1) << 6 | (d - 1);
		out[o++] = (unsigned char)(a >> 16);
		out[o++] = (unsigned char)(a >> 8);
		out[o++] = (unsigned char)a;
	}
	if (n - i >= 2) {
		/* The last character carries 4 (2 left) or 2 (3 left) unused bits,
		 * which must be zero (RFC 4648 §3.5). */
		a = b64_values[p[i]];
		b = b64_values[p[i + 1]];
		c = n - i == 3 ? b64_values[p[i + 2]] : 1;
		if (!a || !b || !c || (n - i == 2 ? (b - 1) & 0x0f : (c - 1) & 0x03))
			goto fail;
		a = (a - 1) << 12 | (b - 1) << 6 | (c - 1);
		out[o++] = (unsigned char)(a >> 10);
		if (n - i == 3)
			out[o++] = (unsigned char)(a >> 2);
	}
	out[want] = '\0';
	if (out_len)
		*out_len = want;
	return out;
fail:
	/* Decoded input may be a credential (HTTP Basic): wipe what was decoded. */
	OPENSSL_cleanse(out, want);
	free(out);
	return NULL;
}
