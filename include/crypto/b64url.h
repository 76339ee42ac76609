#ifndef EDGEAUTH_B64URL_H
#define EDGEAUTH_B64URL_H
/* Base64: base64url without padding (RFC 4648 §5) out, either alphabet in. */
#include <stddef.h>

/* Room for the base64url of n bytes with its NUL (padding included, then cut). */
#define B64URL_ENCODED_MAX(n) (((n) + 2) / 3 * 4 + 1)

/* Encodes len bytes as base64url without '='. Returns a new string; caller frees. */
char *b64url_encode(const unsigned char *data, size_t len);
/* The same into out (B64URL_ENCODED_MAX(len) bytes); returns the length
 * written, without the NUL it ends with. */
size_t b64url_encode_into(char *out, const unsigned char *data, size_t len);

/* Decodes s[0..len) written in the standard or the URL-safe alphabet, with or
 * without '=' padding (not a mix of alphabets is required to fail; a character
 * outside both alphabets, whitespace, or a bad length fails). Returns a new
 * buffer (NUL-terminated for convenience, *out_len excludes it) or NULL. */
unsigned char *b64url_decode_any(const char *s, size_t len, size_t *out_len);

#endif
