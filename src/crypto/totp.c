/*
 * TOTP (totp.h): RFC 4226's HOTP over OpenSSL's HMAC-SHA-1, RFC 6238's time
 * steps, and base32 for the secret's text form. Never compares a code with
 * strcmp, and wipes the MAC it reads the code from.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "crypto.h"
#include "log.h"
#include "totp.h"

uint32_t totp_hotp(const unsigned char *key, size_t key_len, uint64_t counter, int digits)
{
	static const uint32_t mod[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
	                                100000000, 1000000000 };
	unsigned char msg[8], mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	uint32_t bin;
	int off;

	/* RFC 4226 §5.2: the counter is 8 bytes, big-endian */
	for (int i = 7; i >= 0; i--) {
		msg[i] = (unsigned char)(counter & 0xff);
		counter >>= 8;
	}
	if (!HMAC(EVP_sha1(), key, (int)key_len, msg, sizeof msg, mac, &mac_len) || mac_len != 20) {
		log_error("HMAC-SHA-1 failed");
		abort();
	}
	/* §5.3 dynamic truncation: 31 bits at the offset the last nibble names */
	off = mac[19] & 0x0f;
	bin = (uint32_t)(mac[off] & 0x7f) << 24 | (uint32_t)mac[off + 1] << 16 |
	      (uint32_t)mac[off + 2] << 8 | (uint32_t)mac[off + 3];
	OPENSSL_cleanse(mac, sizeof mac);
	if (digits < 1 || digits > 9)
		digits = TOTP_DIGITS;
	return bin % mod[digits];
}

int64_t totp_step(int64_t now_s)
{
	return now_s > 0 ? now_s / TOTP_STEP_S : 0;
}

void totp_code(const unsigned char *key, size_t key_len, int64_t step,
               char out[TOTP_DIGITS + 1])
{
	snprintf(out, TOTP_DIGITS + 1, "%0*u", TOTP_DIGITS,
	         (unsigned)totp_hotp(key, key_len, (uint64_t)step, TOTP_DIGITS));
}

static bool code_well_formed(const char *code)
{
	size_t n = 0;

	for (; code && code[n]; n++)
		if (code[n] < '0' || code[n] > '9')
			return false;
	return n == TOTP_DIGITS;
}

int64_t totp_verify(const unsigned char *key, size_t key_len, const char *code, int64_t now_s,
                    int64_t last_step)
{
	int64_t now = totp_step(now_s), found = -1;
	char want[TOTP_DIGITS + 1];

	if (!code_well_formed(code))
		return -1;
	/* every step of the window is computed, so that the time tells nothing
	 * of which one matched */
	for (int64_t d = -TOTP_SKEW_STEPS; d <= TOTP_SKEW_STEPS; d++) {
		int64_t step = now + d;

		if (step < 0)
			continue;
		totp_code(key, key_len, step, want);
		if (crypto_equal(want, code) && step > last_step && found < 0)
			found = step;
	}
	OPENSSL_cleanse(want, sizeof want);
	return found;
}

size_t totp_base32_encode(char *out, const unsigned char *data, size_t len)
{
	static const char alphabet[32] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	uint32_t buffer = 0;
	int bits = 0;
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		buffer = (buffer << 8 | data[i]) & 0xffff;
		bits += 8;
		while (bits >= 5) {
			out[n++] = alphabet[(buffer >> (bits - 5)) & 0x1f];
			bits -= 5;
		}
	}
	if (bits > 0)
		out[n++] = alphabet[(buffer << (5 - bits)) & 0x1f];
	out[n] = '\0';
	return n;
}
