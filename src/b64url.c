/*
 * Base64 over OpenSSL's EVP block coder (RFC 4648): base64url without padding
 * out, either alphabet in. The coding itself is OpenSSL's; this file only
 * translates alphabets and padding, and checks the input strictly first,
 * because EVP_DecodeBlock skips whitespace and accepts any trailing bits.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "b64url.h"
#include "util.h"

/* EVP_{En,De}codeBlock take an int length: work in chunks well below
 * INT_MAX, a multiple of 3 bytes in and 4 characters out. */
#define B64_CHUNK_BYTES (3u << 20)
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

size_t b64url_encode_into(char *out, const unsigned char *data, size_t len)
{
	size_t in = 0, n = 0;

	while (in < len) {
		size_t chunk = len - in < B64_CHUNK_BYTES ? len - in : B64_CHUNK_BYTES;
		int w = EVP_EncodeBlock((unsigned char *)out + n, data + in, (int)chunk);

		assert(w >= 0 && (size_t)w == (chunk + 2) / 3 * 4);
		in += chunk;
		n += (size_t)w;
	}
	out[n] = '\0';

	/* RFC 4648 §5: the URL-safe alphabet, and no padding (RFC 7515 §2). */
	while (n > 0 && out[n - 1] == '=')
		out[--n] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return n;
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
