#ifndef EDGEAUTH_VALIDATE_H
#define EDGEAUTH_VALIDATE_H
/* Checks on single values, as docs/api.md §"Field values" and §"Limits" state them. Lengths
 * count Unicode code points. Nothing here allocates. */
#include <stdbool.h>
#include <stddef.h>

#define NAME_MAX_CHARS 50          /* resource, role, client name; display_name */
#define CODE_MAX_CHARS 50          /* resource, role, permission code */
#define DESCRIPTION_MAX_CHARS 200
#define EXTERNAL_ID_MAX_CHARS 100
#define EMAIL_MAX_CHARS 100
#define PASSWORD_MIN_CHARS 8
#define PASSWORD_MAX_CHARS 1024
#define URL_MAX_CHARS 2048
#define ID_MAX_CHARS 64            /* any opaque ID we accept from a caller */
#define PAGE_SIZE_DEFAULT 10
#define PAGE_SIZE_MAX 100

/* True when s[0..len) is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
bool utf8_valid(const char *s, size_t len);
/* Number of code points in a valid UTF-8 string. */
size_t utf8_chars(const char *s);
/* Non-empty, only [A-Za-z0-9_-], at most CODE_MAX_CHARS. */
bool validate_code(const char *s);
/* local@domain: one '@', both sides non-empty, no spaces or control characters,
 * at most EMAIL_MAX_CHARS. */
bool validate_email(const char *s);
/* Absolute http:// or https:// URL with a non-empty host, no spaces or control
 * characters, at most URL_MAX_CHARS. */
bool validate_http_url(const char *s);
/* "true" or "false" exactly. Returns 0 and sets *out, or -1. */
int parse_bool(const char *s, bool *out);
/* A decimal integer in [min, max], digits only (no sign, no spaces, no
 * leading '+'). Returns 0 and sets *out, or -1. */
int parse_long_range(const char *s, long min, long max, long *out);

/* A PKCE code_challenge (RFC 7636 §4.2): 43 to 128 characters of
 * [A-Za-z0-9-._~]. */
bool validate_code_challenge(const char *c);

/* How many characters s starts with that are tchar (RFC 9110 §5.6.2): a
 * header name or an auth-scheme is a token, 1*tchar. */
size_t http_token_span(const char *s);

#endif
