#ifndef EDGEAUTH_TOTP_H
#define EDGEAUTH_TOTP_H
/*
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1,
 * TOTP_DIGITS digits, TOTP_STEP_S-second steps, TOTP_SKEW_STEPS steps of
 * skew either way (docs/signin.md §"Second factors"). The clock is the
 * caller's (a time in seconds), so that a test sets it. The secret's text
 * form is base32 (RFC 4648 §6), what authenticator apps read from the
 * otpauth:// URI. Pure functions: no store, no state.
 */
#include <stddef.h>
#include <stdint.h>

#define TOTP_DIGITS 6
#define TOTP_STEP_S 30
#define TOTP_SKEW_STEPS 1
/* RFC 4226 §4 R6: at least 128 bits; 160, the HMAC-SHA-1 block's usual key */
#define TOTP_SECRET_BYTES 20
/* base32 of TOTP_SECRET_BYTES without padding, and its '\0' */
#define TOTP_BASE32_MAX ((TOTP_SECRET_BYTES * 8 + 4) / 5 + 1)

/* RFC 4226 §5.3: the HOTP value of counter under key, reduced to digits
 * decimal digits (1..9). */
uint32_t totp_hotp(const unsigned char *key, size_t key_len, uint64_t counter, int digits);
/* RFC 6238 §4.2: the time step of unix time now_s (T0 = 0, X = TOTP_STEP_S);
 * a time before 1970 is step 0. */
int64_t totp_step(int64_t now_s);
/* The TOTP_DIGITS-digit code of step, zero-padded, into out. */
void totp_code(const unsigned char *key, size_t key_len, int64_t step,
               char out[TOTP_DIGITS + 1]);
/*
 * Checks code (exactly TOTP_DIGITS ASCII digits) at now_s: it must be the
 * code of the current step or of TOTP_SKEW_STEPS steps before or after,
 * and that step must be later than last_step (the last accepted one: a
 * code is accepted once, RFC 6238 §5.2; 0: none yet). Returns the matched
 * step, or -1 (malformed, wrong, or a replay). Compares in constant time.
 */
int64_t totp_verify(const unsigned char *key, size_t key_len, const char *code, int64_t now_s,
                    int64_t last_step);

/* RFC 4648 §6 base32 of data[0..len), upper case, without padding (as
 * Google Authenticator's key URI format writes it), into out, which holds
 * (len * 8 + 4) / 5 + 1 bytes. Returns the length written. */
size_t totp_base32_encode(char *out, const unsigned char *data, size_t len);

#endif
