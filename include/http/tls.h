#ifndef EDGEAUTH_TLS_H
#define EDGEAUTH_TLS_H
/*
 * TLS on the listener (docs/operations.md §"TLS"): the server's SSL_CTX (TLS 1.2 and
 * 1.3 only, the server's cipher order, TLS 1.2 only ECDHE with AES-GCM or
 * ChaCha20-Poly1305, no compression, renegotiation or early data), the
 * certificate and key of [server] tls_cert and tls_key, their reload, and
 * the session-ticket keys, rotated every TLS_TICKET_ROTATE_S. Every
 * connection gets an OpenSSL bufferevent over its socket, whose input and
 * output evbuffers hold plaintext: what evhttp and conn_guard see is the
 * same as on a plain connection. Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>

#define TLS_TICKET_ROTATE_S (12 * 3600)
/* TLS 1.2: ECDHE, AEAD only, in the server's order of preference */
#define TLS_CIPHERS_TLS12 "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:" \
	"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
	"ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
#define TLS_CIPHERS_TLS13 "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:" \
	"TLS_CHACHA20_POLY1305_SHA256"
#define TLS_KEY_FILE_MAX (64 * 1024)

struct tls;
struct config;
struct bufferevent;
struct event_base;

/* Loads cfg's tls_cert and tls_key (the key file must be no one's but its
 * owner's; the two must match). With a base, the ticket keys rotate on its
 * timer; without one (unit tests), only by tls_rotate_ticket_keys. Returns
 * NULL with a reason naming the file in errbuf. */
struct tls *tls_new(const struct config *cfg, struct event_base *base, char *errbuf,
                    size_t errlen);
/* After every connection's bufferevent is gone. NULL is a no-op. */
void tls_free(struct tls *t);
/* Loads the pair again (SIGHUP): new connections use it, open ones keep
 * theirs. On failure the old pair stays, and -1 comes with the reason. */
int tls_reload(struct tls *t, char *errbuf, size_t errlen);
/* The files tls_reload reads from now on ([server] tls_cert and tls_key
 * changed by a SIGHUP reload). */
void tls_set_paths(struct tls *t, const char *cert, const char *key);
/* "certificate FILE, SHA-256 AB:..., valid until 2027-01-01T00:00:00Z",
 * for the log of a (re)load. */
void tls_describe(const struct tls *t, char *buf, size_t len);
/* The context new connections get: for the unit tests. */
struct ssl_ctx_st *tls_ctx(const struct tls *t);
/* A new key encrypts tickets; the one before still decrypts them (and has
 * them renewed), any older one is forgotten. */
void tls_rotate_ticket_keys(struct tls *t);
/* The server side of a new connection, its socket set later (evhttp's
 * bevcb). Never NULL: allocation failure aborts, since evhttp would make a
 * plain connection of a NULL. */
struct bufferevent *tls_bufferevent_new(struct tls *t, struct event_base *base);
/* True when bev is one of tls_bufferevent_new's. */
bool tls_bufferevent_is_tls(struct bufferevent *bev);
/* Its reading may go on again (its input shrank below a read watermark):
 * bytes OpenSSL took off the socket but has not handed over yet would
 * otherwise wait for the next bytes from the client, which may never come.
 * Does nothing when OpenSSL holds none. */
void tls_bufferevent_read_resumed(struct bufferevent *bev);
/* The connection ends: sends close_notify when its handshake is done. */
void tls_bufferevent_close_notify(struct bufferevent *bev);

#endif
