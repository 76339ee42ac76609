#ifndef EDGEAUTH_CERT_H
#define EDGEAUTH_CERT_H
/*
 * X.509 helpers for TLS: a certificate's SHA-256 fingerprint, and the
 * self-signed certificate of `edgeauth cert self-signed` (docs/operations.md §"TLS")
 * for a first start on a box without a CA.
 */
#include <stddef.h>
#include <openssl/x509.h>

#define CERT_SELF_SIGNED_DAYS 825     /* the longest validity browsers accept */
/* "AB:CD:...": 32 bytes as hex pairs with colons, and the NUL */
#define CERT_FINGERPRINT_LEN (32 * 3)

/* The SHA-256 fingerprint of cert's DER, as `openssl x509 -fingerprint
 * -sha256` writes it, into out. */
void cert_fingerprint(X509 *cert, char out[CERT_FINGERPRINT_LEN]);

/* Writes a new P-256 key to key_path (mode 0600) and a self-signed
 * certificate for host to cert_path: host is an IP address (an iPAddress
 * SAN) or a DNS name (a dNSName SAN), EKU serverAuth, CA:FALSE, valid
 * CERT_SELF_SIGNED_DAYS from now. Never overwrites: an existing file at
 * either path is an error, and nothing is written. Returns 0 with the
 * fingerprint in fingerprint, or -1 with a reason naming the file or host. */
int cert_self_signed_write(const char *host, const char *cert_path, const char *key_path,
                           char fingerprint[CERT_FINGERPRINT_LEN], char *errbuf,
                           size_t errlen);

#endif
