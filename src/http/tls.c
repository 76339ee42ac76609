/*
 * The listener's TLS: one SSL_CTX made from the config's pair, remade on
 * reload (connections hold a reference to the one they started with), and
 * the session-ticket keys, which outlive reloads so that a renewal of the
 * certificate does not cost every client a full handshake. It never falls
 * back to plain HTTP: a connection it cannot make TLS aborts the process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/bufferevent_struct.h>
#include <event2/event.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "cert.h"
#include "config.h"
#include "crypto.h"
#include "secret_file.h"
#include "tls.h"
#include "util.h"

#define TICKET_NAME_BYTES 16
#define TICKET_AES_BYTES 32     /* AES-256-CBC, as OpenSSL's own ticket keys */
#define TICKET_HMAC_BYTES 32    /* HMAC-SHA256 */
#define SESSION_TIMEOUT_S 7200  /* a ticket resumes a session this long at most */

struct ticket_key {
	unsigned char name[TICKET_NAME_BYTES];
	unsigned char aes[TICKET_AES_BYTES];
	unsigned char hmac[TICKET_HMAC_BYTES];
	bool set;
};

struct tls {
	SSL_CTX *ctx;              /* for new connections */
	char *cert_path, *key_path;
	/* [0] encrypts and decrypts; [1], the one before, only decrypts */
	struct ticket_key tickets[2];
	struct event *rotate;      /* every TLS_TICKET_ROTATE_S, when there is a loop */
};

void tls_rotate_ticket_keys(struct tls *t)
{
	struct ticket_key *k = &t->tickets[0];

	t->tickets[1] = *k;
	crypto_random(k->name, sizeof k->name);
	crypto_random(k->aes, sizeof k->aes);
	crypto_random(k->hmac, sizeof k->hmac);
	k->set = true;
}

static void on_rotate(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	tls_rotate_ticket_keys(arg);
}

static const struct ticket_key *ticket_key_named(const struct tls *t, const unsigned char *name)
{
	for (size_t i = 0; i < 2; i++)
		if (t->tickets[i].set && !memcmp(t->tickets[i].name, name, TICKET_NAME_BYTES))
			return &t->tickets[i];
	return NULL;
}

/* OpenSSL's ticket key callback (SSL_CTX_set_tlsext_ticket_key_evp_cb):
 * encrypts with the current key; decrypts with the key the ticket names,
 * and asks for a new ticket when that is the previous one. 0: no such key
 * (a full handshake); -1: an error. */
static int on_ticket_key(SSL *ssl, unsigned char *name, unsigned char *iv,
                         EVP_CIPHER_CTX *cctx, EVP_MAC_CTX *hctx, int enc)
{
	struct tls *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	const struct ticket_key *k = enc ? &t->tickets[0] : ticket_key_named(t, name);
	OSSL_PARAM params[3];

	if (!k)
		return 0;
	if (enc) {
		crypto_random(iv, (size_t)EVP_CIPHER_get_iv_length(EVP_aes_256_cbc()));
		memcpy(name, k->name, TICKET_NAME_BYTES);
	}
	if (EVP_CipherInit_ex(cctx, EVP_aes_256_cbc(), NULL, k->aes, iv, enc) != 1)
		return -1;
	params[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, (void *)k->hmac,
	                                              sizeof k->hmac);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0);
	params[2] = OSSL_PARAM_construct_end();
	if (EVP_MAC_CTX_set_params(hctx, params) != 1)
		return -1;
	return enc || k == &t->tickets[0] ? 1 : 2;
}

/* The protocol settings of docs/operations.md §"TLS". 0, or -1 on an OpenSSL error. */
static int ctx_configure(SSL_CTX *ctx, struct tls *t)
{
	SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION |
	                    SSL_OP_NO_RENEGOTIATION);
	/* an idle connection holds no record buffers (about 34 KiB otherwise):
	 * a small box may hold max_connections of them */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	/* resumption by tickets only: no per-session memory on the server */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_timeout(ctx, SESSION_TIMEOUT_S);
	SSL_CTX_set_app_data(ctx, t);
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_cipher_list(ctx, TLS_CIPHERS_TLS12) != 1 ||
	    SSL_CTX_set_ciphersuites(ctx, TLS_CIPHERS_TLS13) != 1 ||
	    SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") != 1 ||
	    /* no 0-RTT: early data can be replayed */
	    SSL_CTX_set_max_early_data(ctx, 0) != 1 ||
	    SSL_CTX_set_recv_max_early_data(ctx, 0) != 1 ||
	    SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, on_ticket_key) != 1)
		return -1;
	return 0;
}

static int load_cert(SSL_CTX *ctx, const char *path, char *errbuf, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(errbuf, errlen, "cannot open TLS certificate file %s: %s", path,
		         strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(errbuf, errlen, "TLS certificate file %s is not a regular file", path);
		return -1;
	}
	if (SSL_CTX_use_certificate_chain_file(ctx, path) != 1) {
		snprintf(errbuf, errlen, "TLS certificate file %s holds no usable PEM certificate: %s",
		         path, crypto_openssl_reason());
		return -1;
	}
	return 0;
}

/* The key of the certificate ctx holds already (cert_path, for the reason). */
static int load_key(SSL_CTX *ctx, const char *path, const char *cert_path, char *errbuf,
                    size_t errlen)
{
	unsigned char *pem = NULL;
	size_t len = 0;
	BIO *bio = NULL;
	EVP_PKEY *pkey = NULL;
	int r, ret = -1;

	r = secret_file_read(path, "TLS key file", TLS_KEY_FILE_MAX, &pem, &len, errbuf, errlen);
	if (r == 1)
		snprintf(errbuf, errlen, "TLS key file %s does not exist", path);
	if (r != 0)
		return -1;
	bio = BIO_new_mem_buf(pem, (int)len);
	/* an empty passphrase: an encrypted key fails, never prompts on a terminal */
	pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"") : NULL;
	if (!pkey)
		snprintf(errbuf, errlen, "TLS key file %s is not an unencrypted PEM private key: %s",
		         path, crypto_openssl_reason());
	else if (X509_check_private_key(SSL_CTX_get0_certificate(ctx), pkey) != 1)
		snprintf(errbuf, errlen, "TLS key file %s does not match the certificate in %s", path,
		         cert_path);
	else if (SSL_CTX_use_PrivateKey(ctx, pkey) != 1)
		snprintf(errbuf, errlen, "TLS key file %s: %s", path, crypto_openssl_reason());
	else
		ret = 0;
	ERR_clear_error();
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	secret_file_free(pem, TLS_KEY_FILE_MAX);
	return ret;
}

/* A context of t's pair, or NULL with the reason. */
static SSL_CTX *ctx_new(struct tls *t, char *errbuf, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx || ctx_configure(ctx, t) < 0) {
		snprintf(errbuf, errlen, "cannot set up TLS: %s", crypto_openssl_reason());
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (load_cert(ctx, t->cert_path, errbuf, errlen) < 0 ||
	    load_key(ctx, t->key_path, t->cert_path, errbuf, errlen) < 0) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

struct tls *tls_new(const struct config *cfg, struct event_base *base, char *errbuf,
                    size_t errlen)
{
	struct tls *t = xcalloc(1, sizeof *t);
	struct timeval every = { TLS_TICKET_ROTATE_S, 0 };

	t->cert_path = xstrdup(cfg->tls_cert);
	t->key_path = xstrdup(cfg->tls_key);
	tls_rotate_ticket_keys(t);
	t->ctx = ctx_new(t, errbuf, errlen);
	if (!t->ctx) {
		tls_free(t);
		return NULL;
	}
	if (base) {
		t->rotate = event_new(base, -1, EV_PERSIST, on_rotate, t);
		event_add(t->rotate, &every);
	}
	return t;
}

void tls_set_paths(struct tls *t, const char *cert, const char *key)
{
	free(t->cert_path);
	free(t->key_path);
	t->cert_path = xstrdup(cert);
	t->key_path = xstrdup(key);
}

void tls_free(struct tls *t)
{
	if (!t)
		return;
	if (t->rotate)
		event_free(t->rotate);
	SSL_CTX_free(t->ctx);
	OPENSSL_cleanse(t->tickets, sizeof t->tickets);
	free(t->cert_path);
	free(t->key_path);
	free(t);
}

int tls_reload(struct tls *t, char *errbuf, size_t errlen)
{
	SSL_CTX *ctx = ctx_new(t, errbuf, errlen);

	if (!ctx)
		return -1;
	SSL_CTX_free(t->ctx);   /* open connections hold their own reference */
	t->ctx = ctx;
	return 0;
}

SSL_CTX *tls_ctx(const struct tls *t)
{
	return t->ctx;
}

void tls_describe(const struct tls *t, char *buf, size_t len)
{
	X509 *cert = SSL_CTX_get0_certificate(t->ctx);
	char fp[CERT_FINGERPRINT_LEN], until[32] = "?";
	struct tm tm;

	cert_fingerprint(cert, fp);
	if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1)
		strftime(until, sizeof until, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, len, "certificate %s, SHA-256 %s, valid until %s%s", t->cert_path, fp, until,
	         X509_cmp_current_time(X509_get0_notAfter(cert)) < 0 ? " (EXPIRED)" : "");
}

struct bufferevent *tls_bufferevent_new(struct tls *t, struct event_base *base)
{
	SSL *ssl = SSL_new(t->ctx);
	struct bufferevent *bev = ssl ? bufferevent_openssl_socket_new(base, -1, ssl,
	                                    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE)
	                              : NULL;

	if (!bev)
		abort();
	/* a client that closes without close_notify has ended the stream */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

bool tls_bufferevent_is_tls(struct bufferevent *bev)
{
	return bufferevent_openssl_get_ssl(bev) != NULL;
}

void tls_bufferevent_read_resumed(struct bufferevent *bev)
{
	SSL *ssl = bufferevent_openssl_get_ssl(bev);

	/* libevent 2.1 re-arms only the socket's read event: run it once now */
	if (ssl && SSL_has_pending(ssl))
		event_active(&bev->ev_read, EV_READ, 1);
}

void tls_bufferevent_close_notify(struct bufferevent *bev)
{
	SSL *ssl = bufferevent_openssl_get_ssl(bev);

	if (ssl && SSL_is_init_finished(ssl) && !(SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN))
		SSL_shutdown(ssl);
	ERR_clear_error();
}
