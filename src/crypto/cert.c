/*
 * Certificates: fingerprints, and the self-signed certificate an operator
 * makes with `edgeauth cert self-signed` when the box has no CA. The key
 * is written like every secret file (secret_file.c: mode 0600, never over
 * an existing file).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "cert.h"
#include "crypto.h"
#include "secret_file.h"

#define DNS_NAME_MAX 253
#define DNS_LABEL_MAX 63
#define SERIAL_BYTES 16

void cert_fingerprint(X509 *cert, char out[CERT_FINGERPRINT_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	out[0] = '\0';
	if (X509_digest(cert, EVP_sha256(), md, &n) != 1)
		return;
	for (unsigned int i = 0; i < n && i < 32; i++)
		snprintf(out + 3 * i, 4, i + 1 < n ? "%02X:" : "%02X", md[i]);
}

/* RFC 1123 host name: labels of letters, digits and inner hyphens. */
static bool dns_name_valid(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len == 0 || len > DNS_NAME_MAX || s[0] == '.' || s[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c == '-' && label > 0)))
			return false;
		if (++label > DNS_LABEL_MAX)
			return false;
	}
	return s[len - 1] != '-';
}

static bool is_ip_address(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static int add_ext(X509 *cert, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&v3, cert, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	ok = ext && X509_add_ext(cert, ext, -1) == 1;
	X509_EXTENSION_free(ext);
	return ok ? 0 : -1;
}

/* A random positive serial of SERIAL_BYTES (RFC 5280 §4.1.2.2: at most 20
 * octets, unique per issuer: random is unique enough for a self-signed one). */
static int set_serial(X509 *cert)
{
	unsigned char raw[SERIAL_BYTES];
	BIGNUM *bn;
	int ok;

	crypto_random(raw, sizeof raw);
	raw[0] &= 0x7f;
	raw[0] |= 0x01;   /* never zero, never negative */
	bn = BN_bin2bn(raw, sizeof raw, NULL);
	ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
	BN_free(bn);
	return ok ? 0 : -1;
}

/* The self-signed certificate of host over pkey. NULL on an OpenSSL error. */
static X509 *self_signed(const char *host, EVP_PKEY *pkey)
{
	X509 *cert = X509_new();
	X509_NAME *name;
	char san[DNS_NAME_MAX + 8];

	snprintf(san, sizeof san, "%s:%s", is_ip_address(host) ? "IP" : "DNS", host);
	if (!cert || X509_set_version(cert, 2) != 1 || set_serial(cert) < 0 ||
	    !X509_gmtime_adj(X509_getm_notBefore(cert), 0) ||
	    !X509_time_adj_ex(X509_getm_notAfter(cert), CERT_SELF_SIGNED_DAYS, 0, NULL) ||
	    X509_set_pubkey(cert, pkey) != 1 || !(name = X509_get_subject_name(cert)) ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)host,
	                               -1, -1, 0) != 1 ||
	    X509_set_issuer_name(cert, name) != 1 ||
	    add_ext(cert, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
	    add_ext(cert, NID_key_usage, "critical,digitalSignature") < 0 ||
	    add_ext(cert, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(cert, NID_subject_alt_name, san) < 0 ||
	    add_ext(cert, NID_subject_key_identifier, "hash") < 0 ||
	    X509_sign(cert, pkey, EVP_sha256()) <= 0) {
		X509_free(cert);
		return NULL;
	}
	return cert;
}

/* Writes cert as PEM to a new file at path, mode 0644 (a certificate is
 * public), never over an existing one. */
static int write_cert(const char *path, X509 *cert, char *errbuf, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	bool ok;

	if (!f) {
		snprintf(errbuf, errlen, "cannot create certificate file %s: %s", path,
		         strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ok = PEM_write_X509(f, cert) == 1 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok) {
		snprintf(errbuf, errlen, "cannot write certificate file %s", path);
		unlink(path);
		return -1;
	}
	return 0;
}

/* The key as PEM PKCS#8 in a secure-memory BIO (wiped when freed). */
static BIO *key_pem(EVP_PKEY *pkey, char **pem, long *len)
{
	BIO *bio = BIO_new(BIO_s_secmem());

	if (!bio || PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) != 1 ||
	    (*len = BIO_get_mem_data(bio, pem)) <= 0) {
		BIO_free(bio);
		return NULL;
	}
	return bio;
}

int cert_self_signed_write(const char *host, const char *cert_path, const char *key_path,
                           char fingerprint[CERT_FINGERPRINT_LEN], char *errbuf,
                           size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	X509 *cert = NULL;
	BIO *pem_bio = NULL;
	struct stat st;
	char *pem;
	long pem_len;
	int ret = -1, r;

	if (!is_ip_address(host) && !dns_name_valid(host)) {
		snprintf(errbuf, errlen, "%s is neither an IP address nor a DNS name", host);
		return -1;
	}
	/* both checked first, so that neither is written when one exists */
	if (lstat(cert_path, &st) == 0 || lstat(key_path, &st) == 0) {
		snprintf(errbuf, errlen, "%s exists already; not overwritten",
		         lstat(cert_path, &st) == 0 ? cert_path : key_path);
		return -1;
	}
	pkey = EVP_EC_gen("P-256");
	cert = pkey ? self_signed(host, pkey) : NULL;
	pem_bio = cert ? key_pem(pkey, &pem, &pem_len) : NULL;
	if (!pem_bio) {
		snprintf(errbuf, errlen, "cannot make the certificate: %s", crypto_openssl_reason());
		goto out;
	}
	r = secret_file_create(key_path, "TLS key file", pem, (size_t)pem_len, errbuf, errlen);
	if (r == 1)
		snprintf(errbuf, errlen, "%s exists already; not overwritten", key_path);
	if (r != 0)
		goto out;
	if (write_cert(cert_path, cert, errbuf, errlen) < 0) {
		unlink(key_path);
		goto out;
	}
	cert_fingerprint(cert, fingerprint);
	ret = 0;
out:
	ERR_clear_error();
	BIO_free(pem_bio);
	X509_free(cert);
	EVP_PKEY_free(pkey);
	return ret;
}
