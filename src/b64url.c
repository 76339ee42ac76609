/*
 * Base64 (RFC 4648): base64url without padding out, either alphabet in.
 * Encoding is a table lookup here; decoding is OpenSSL's EVP block coder,
 * after this file checks the input strictly and translates the alphabet,
 * because EVP_DecodeBlock skips whitespace and accepts any trailing bits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "b64url.h"
#include "util.h"

/* EVP_DecodeBlock takes an int length: decode in chunks well below
 * INT_MAX, a multiple of 4 characters. */
#define B64_CHUNK_CHARS (4u << 20)

/* The 6-bit value of c in either alphabet, or -1 if c is in neither.
 * Classification only; decoding is left to OpenSSL. */
static int b64_char_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

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
	size_t n = len, pad = 0, tlen, cap, in = 0, done = 0, want;
	unsigned char *tmp, *out;
	int v;

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
	for (size_t i = 0; i < n; i++)
		if (b64_char_value((unsigned char)s[i]) < 0)
			return NULL;
	if (n % 4 != 0) {
		/* The last character carries 4 (n%4==2) or 2 (n%4==3) unused bits. */
		v = b64_char_value((unsigned char)s[n - 1]);
		if (v & (n % 4 == 2 ? 0x0f : 0x03))
			return NULL;
	}

	/* Standard alphabet, and 'A' (zero bits) in place of padding: the extra
	 * zero bytes it yields are cut off below. */
	tlen = (n + 3) / 4 * 4;
	tmp = xmalloc(tlen);
	for (size_t i = 0; i < n; i++)
		tmp[i] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : (unsigned char)s[i];
	memset(tmp + n, 'A', tlen - n);

	cap = tlen / 4 * 3;
	out = xmalloc(cap + 1);
	while (in < tlen) {
		size_t chunk = tlen - in < B64_CHUNK_CHARS ? tlen - in : B64_CHUNK_CHARS;
		int w = EVP_DecodeBlock(out + done, tmp + in, (int)chunk);

		if (w < 0 || (size_t)w != chunk / 4 * 3) {
			OPENSSL_cleanse(tmp, tlen);
			free(tmp);
			OPENSSL_cleanse(out, cap);
			free(out);
			return NULL;
		}
		in += chunk;
		done += (size_t)w;
	}

	/* Decoded input may be a credential (HTTP Basic): wipe the copy. */
	OPENSSL_cleanse(tmp, tlen);
	free(tmp);

	want = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
	OPENSSL_cleanse(out + want, cap - want);
	out[want] = '\0';
	if (out_len)
		*out_len = want;
	return out;
}
