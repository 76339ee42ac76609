#ifndef EDGEAUTH_FORWARD_AUTH_H
#define EDGEAUTH_FORWARD_AUTH_H
/*
 * The rules of forward authentication (docs/forward-auth.md) that know
 * nothing of HTTP or the store: which original request a proxy says it is
 * asking about, and only when the proxy is trusted; which of an app's base
 * URLs a URL lies under; the callback URI of a base URL; and the state a
 * sign-in started by a proxy carries to its callback, sealed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keyring.h"
#include "store_clients.h"

/* How long a sign-in a proxy started may take, from the 302 to the
 * callback (ms): the sealed state expires after it. */
#define FORWARD_AUTH_STATE_TTL_MS (10 * 60 * 1000)

/* The headers a proxy describes the original request with, as received
 * (NULL: absent). nginx sends X-Original-URL (its recipe sets it);
 * Traefik and Caddy send the X-Forwarded-* set. */
struct forward_headers {
	const char *original_url;      /* X-Original-URL */
	const char *original_method;   /* X-Original-Method */
	const char *method;            /* X-Forwarded-Method */
	const char *proto;             /* X-Forwarded-Proto */
	const char *host;              /* X-Forwarded-Host */
	const char *uri;               /* X-Forwarded-Uri */
};

/* The original request a proxy asks about. url: absolute, owned. */
struct forward_request {
	char *url;
	char method[16];    /* "" when the proxy did not say */
	/* asked by nginx's auth_request (it sent X-Original-URL), which cannot
	 * pass a 302 on: it gets 401 and its error_page starts the sign-in */
	bool nginx;
};
void forward_request_release(struct forward_request *r);

/* Reads the original request from h when trusted (the peer is one of
 * [server] trusted_proxies); an untrusted peer's headers are ignored
 * whatever they say: -1, as for headers that name no absolute http or
 * https URL (a host with '/', '@', '\\', spaces or controls, a URI not
 * starting with '/', a URL with a dot-segment). 0 fills *out. */
int forward_request_read(const struct forward_headers *h, bool trusted,
                         struct forward_request *out);

/* Whether url lies under base: it starts with base, the scheme and host
 * compared without case, and base ends with '/' or url goes on with
 * nothing, '/', '?' or '#' (so "https://a.example" is not a prefix of
 * "https://a.example.evil/" nor "https://box/app" of "https://box/apps"). */
bool forward_url_under(const char *url, const char *base);
/* The longest of the n bases that url lies under, or NULL. */
const char *forward_url_base(const char *url, const char *const *bases, size_t n);

/* <base without a trailing '/'> + FORWARD_AUTH_CALLBACK_PATH, the redirect
 * URI the base registers (store_clients.h). Caller frees. */
char *forward_callback_uri(const char *base);

/* A new PKCE pair (RFC 7636 §4.1, §4.2: S256): *verifier and its
 * *challenge, both owned by the caller. */
void forward_pkce_new(char **verifier, char **challenge);

/* What a sign-in a proxy started carries to its callback: the PKCE
 * verifier, the original URL, the value of the browser's nonce cookie
 * (login CSRF: the callback must come from the browser the sign-in
 * started in) and when it expires (ms). Strings owned. */
struct forward_state {
	char *verifier;
	char *url;
	char *nonce;
	int64_t expires_at;
};
void forward_state_release(struct forward_state *s);
/* s sealed for client_id (base64url; caller frees): the state parameter
 * of the authorization request, so that nothing is kept on the server. */
char *forward_state_seal(const struct keyring *r, const char *client_id,
                         const struct forward_state *s);
/* Opens a state of client_id into *out: 0, or -1 when it is not one of
 * ours, another client's, or expired at now (ms). */
int forward_state_open(const struct keyring *r, const char *client_id, const char *text,
                       int64_t now, struct forward_state *out);

#endif
