/*
 * One back-channel logout attempt (backchannel_attempt.h): resolve the
 * URI's host, check its addresses, connect, POST the logout token, read the
 * status line. libevent's callbacks only record what happened; the attempt
 * ends in the delivery's timer callback (backchannel.c), outside libevent's
 * HTTP and DNS code. No secret but the token itself, in the POST body,
 * leaves this file: the log names the jti, the client and the host.
 */
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/util.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "backchannel_attempt.h"
#include "backchannel_limits.h"
#include "cidr.h"
#include "config.h"
#include "crypto.h"
#include "jwt.h"
#include "keyring.h"
#include "log.h"
#include "server.h"
#include "util.h"

#define LOGOUT_EVENT "http://schemas.openid.net/event/backchannel-logout"

/* ---- the log ---- */

/* One line per outcome: jti, client, host, and what happened. */
void backchannel_attempt_log(const struct delivery *d, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	log_info("back-channel logout %s to client %s at %s: %s", d->row.id, d->row.client_id,
	         d->target.host ? d->target.host : "-", what);
}

/* ---- the target ---- */

static void target_release(struct target *t)
{
	free(t->host);
	free(t->name);
	free(t->host_header);
	free(t->path);
	memset(t, 0, sizeof *t);
}

/* Reads uri: http or https, a host, no user info or fragment. 0, or -1. */
static int target_parse(const char *uri, struct target *t)
{
	struct evhttp_uri *u = evhttp_uri_parse(uri);
	const char *scheme, *host, *path, *query;
	int port;

	memset(t, 0, sizeof *t);
	if (!u)
		return -1;
	scheme = evhttp_uri_get_scheme(u);
	host = evhttp_uri_get_host(u);
	port = evhttp_uri_get_port(u);
	if (!scheme || !host || !*host || evhttp_uri_get_userinfo(u) ||
	    evhttp_uri_get_fragment(u) || port == 0 ||
	    (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)) {
		evhttp_uri_free(u);
		return -1;
	}
	t->tls = strcasecmp(scheme, "https") == 0;
	t->port = port > 0 ? (unsigned)port : t->tls ? 443 : 80;
	t->host = xstrdup(host);
	t->name = host[0] == '[' ? xstrndup(host + 1, strlen(host) - 2) : xstrdup(host);
	t->host_header = port > 0 ? xasprintf("%s:%d", host, port) : xstrdup(host);
	path = evhttp_uri_get_path(u);
	query = evhttp_uri_get_query(u);
	t->path = xasprintf("%s%s%s", path && *path ? path : "/", query ? "?" : "",
	                    query ? query : "");
	evhttp_uri_free(u);
	return 0;
}

static void address_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	if (!evutil_inet_ntop(sa->sa_family, a, buf, len))
		snprintf(buf, len, "?");
}

/* ---- an attempt's outcome ---- */

/* Records the attempt's outcome, the first one only (libevent may report
 * an error after the answer we stopped reading), and has the attempt end
 * in the delivery's timer callback, outside the caller's libevent code. */
static void attempt_end(struct delivery *d, enum outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void attempt_end(struct delivery *d, enum outcome o, const char *fmt, ...)
{
	static const struct timeval now = { 0, 0 };
	va_list ap;

	if (d->state != D_RESOLVING && d->state != D_SENDING)
		return;
	d->outcome = o;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof d->why, fmt, ap);
	va_end(ap);
	d->state = D_ENDING;
	evtimer_add(d->timer, &now);   /* replaces the deadline */
}

/* An answer's status line: 2xx delivered, 5xx failed (tried again), any
 * other final: a 3xx too, since no redirect is followed. */
static void attempt_answered(struct delivery *d, int status)
{
	if (status >= 200 && status < 300)
		attempt_end(d, OUT_DELIVERED, "delivered (%d)", status);
	else if (status >= 500 && status < 600)
		attempt_end(d, OUT_FAILED, "answered %d", status);
	else
		attempt_end(d, OUT_REJECTED, "answered %d%s", status,
		            status >= 300 && status < 400 ? " (redirects are not followed)" : "");
}

/* A connection that failed: tried again. What TLS says is kept (errno is
 * not: libevent's clean-up has overwritten it by now). */
static void connection_failed(struct delivery *d, const char *what)
{
	unsigned long tls_error = 0;

	if (d->target.tls && d->conn)
		tls_error = bufferevent_get_openssl_error(evhttp_connection_get_bufferevent(d->conn));
	if (tls_error)
		attempt_end(d, OUT_FAILED, "%s (TLS: %s)", what, ERR_reason_error_string(tls_error));
	else
		attempt_end(d, OUT_FAILED, "%s", what);
}

/* evhttp: the answer's headers are in. Its status is all we need: -1 ends
 * the connection there, so no body is read. */
static int on_headers(struct evhttp_request *req, void *arg)
{
	int status = evhttp_request_get_response_code(req);

	if (status >= 100 && status < 200)
		return 0;   /* an interim answer; the final one follows */
	attempt_answered(arg, status);
	return -1;
}

/* evhttp: the request failed (after on_headers ended it, too: ignored). */
static void on_error(enum evhttp_request_error error, void *arg)
{
	struct delivery *d = arg;

	switch (error) {
	case EVREQ_HTTP_TIMEOUT:
		attempt_end(d, OUT_FAILED, "no answer within %d s", BACKCHANNEL_TIMEOUT_S);
		break;
	case EVREQ_HTTP_INVALID_HEADER:
	case EVREQ_HTTP_DATA_TOO_LONG:
		attempt_end(d, OUT_REJECTED, "the answer is malformed or its header is over %d bytes",
		            BACKCHANNEL_ANSWER_MAX_BYTES);
		break;
	case EVREQ_HTTP_EOF:
		connection_failed(d, "the connection closed before an answer");
		break;
	default:
		connection_failed(d, "the connection failed");
		break;
	}
}

/* evhttp: the request is over. NULL after a failure on_error saw; a request
 * without a status when the connection could not be made. */
static void on_done(struct evhttp_request *req, void *arg)
{
	struct delivery *d = arg;

	if (req && evhttp_request_get_response_code(req) > 0)
		attempt_answered(d, evhttp_request_get_response_code(req));
	else
		connection_failed(d, "no connection could be made");
}

/* ---- an attempt ---- */

/* The logout token (docs/signin.md §"Back-channel logout"), signed like the client's ID tokens:
 * typ logout+jwt; iss, aud, iat, exp = iat + 120, jti (the row's ID, the
 * same for every attempt), sub, sid (none for a BYOU user), events; no
 * nonce. NULL with why when it cannot be made. Caller wipes and frees. */
static char *logout_token(const struct delivery *d, char *why, size_t why_len)
{
	const struct server *srv = d->net->srv;
	json_int_t iat = (json_int_t)time(NULL);
	enum jwt_alg alg;
	json_t *claims;
	char *text, *token;

	if (jwt_alg_parse(d->row.alg, &alg) < 0) {
		snprintf(why, why_len, "unknown signing algorithm");
		return NULL;
	}
	claims = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:{s:{}}}", "iss", srv->cfg->issuer,
	                   "aud", d->row.client_id, "iat", iat, "exp",
	                   iat + BACKCHANNEL_TOKEN_TTL_S, "jti", d->row.id, "sub", d->row.subject,
	                   "events", LOGOUT_EVENT);
	if (!claims) {
		snprintf(why, why_len, "the outbox row is not valid text");
		return NULL;
	}
	if (d->row.session_id)
		json_object_set_new(claims, "sid", json_string(d->row.session_id));
	text = json_dumps(claims, JSON_COMPACT);
	json_decref(claims);
	if (!text) {
		snprintf(why, why_len, "the outbox row is not valid text");
		return NULL;
	}
	token = keyring_sign(srv->keys, alg, JWT_TYP_LOGOUT, text, strlen(text));
	free(text);
	if (!token)
		snprintf(why, why_len, "no key signs %s", jwt_alg_name(alg));
	return token;
}

/* The TLS context, made at the first https URI: the system's trust store
 * (SSL_CERT_FILE and SSL_CERT_DIR are honoured), TLS 1.2 at least, the
 * peer's certificate verified. NULL when OpenSSL cannot make one. */
static SSL_CTX *tls_context(struct backchannel_net *net)
{
	if (net->tls)
		return net->tls;
	net->tls = SSL_CTX_new(TLS_client_method());
	if (!net->tls)
		return NULL;
	SSL_CTX_set_min_proto_version(net->tls, TLS1_2_VERSION);
	SSL_CTX_set_verify(net->tls, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_set_default_verify_paths(net->tls) != 1)
		log_warn("back-channel: the system's trusted certificates could not be read");
	return net->tls;
}

/* A connection to the checked address ip: TLS for https, with SNI and the
 * certificate checked against the URI's host (a name or an address). */
static struct evhttp_connection *connection_new(struct delivery *d, const char *ip)
{
	struct event_base *base = d->net->srv->base;
	struct sockaddr_storage ss;
	struct bufferevent *bev;
	SSL_CTX *ctx;
	SSL *ssl;

	if (!d->target.tls)
		return evhttp_connection_base_new(base, NULL, ip, (ev_uint16_t)d->target.port);
	ctx = tls_context(d->net);
	ssl = ctx ? SSL_new(ctx) : NULL;
	if (!ssl)
		return NULL;
	if (cidr_sockaddr_parse(d->target.name, d->target.port, &ss) == 0) {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), d->target.name);
	} else {
		SSL_set_tlsext_host_name(ssl, d->target.name);
		SSL_set1_host(ssl, d->target.name);
	}
	bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
	                                     BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	if (!bev) {
		SSL_free(ssl);
		return NULL;
	}
	/* the connection ends after the answer's headers, without TLS's close */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return evhttp_connection_base_bufferevent_new(base, NULL, bev, ip,
	                                              (ev_uint16_t)d->target.port);
}

/* Ends the attempt as refused when sa, the host's address (or one of
 * them), may not be reached: true then. */
static bool address_refused(struct delivery *d, const struct sockaddr *sa)
{
	char ip[INET6_ADDRSTRLEN];

	if (backchannel_address_allowed(&d->net->policy, sa))
		return false;
	address_text(sa, ip, sizeof ip);
	if (strcmp(ip, d->target.name) != 0)
		attempt_end(d, OUT_REFUSED, "%s resolves to %s, where back-channel logouts may not "
		            "go ([oidc] backchannel_allow)", d->target.name, ip);
	else
		attempt_end(d, OUT_REFUSED, "%s is an address back-channel logouts may not go to "
		            "([oidc] backchannel_allow)", ip);
	return true;
}

/* POSTs the logout token to sa, an allowed address of the host. */
static void send_to(struct delivery *d, const struct sockaddr *sa)
{
	struct evhttp_request *req;
	struct evkeyvalq *headers;
	char ip[INET6_ADDRSTRLEN], why[96];
	char *token;

	address_text(sa, ip, sizeof ip);
	token = logout_token(d, why, sizeof why);
	if (!token) {
		attempt_end(d, OUT_REFUSED, "%s", why);
		return;
	}
	d->state = D_SENDING;
	d->conn = connection_new(d, ip);
	if (!d->conn) {
		crypto_free_wiped(token);
		attempt_end(d, OUT_FAILED, "no connection could be made");
		return;
	}
	evhttp_connection_set_family(d->conn, sa->sa_family);
	evhttp_connection_set_timeout(d->conn, BACKCHANNEL_TIMEOUT_S);
	evhttp_connection_set_retries(d->conn, 0);
	evhttp_connection_set_max_headers_size(d->conn, BACKCHANNEL_ANSWER_MAX_BYTES);
	evhttp_connection_set_max_body_size(d->conn, BACKCHANNEL_ANSWER_MAX_BYTES);
	req = evhttp_request_new(on_done, d);
	evhttp_request_set_header_cb(req, on_headers);
	evhttp_request_set_error_cb(req, on_error);
	headers = evhttp_request_get_output_headers(req);
	evhttp_add_header(headers, "Host", d->target.host_header);
	evhttp_add_header(headers, "Content-Type", "application/x-www-form-urlencoded");
	evhttp_add_header(headers, "Connection", "close");
	/* a JWS is base64url and dots: nothing to escape in a form value */
	evbuffer_add_printf(evhttp_request_get_output_buffer(req), "logout_token=%s", token);
	crypto_free_wiped(token);
	if (evhttp_make_request(d->conn, req, EVHTTP_REQ_POST, d->target.path) < 0) {
		evhttp_request_free(req);   /* not queued on the connection: ours to free */
		connection_failed(d, "no connection could be made");
	}
}

/* evdns: the host's addresses. Every one must be allowed (a name with one
 * forbidden address is refused); the first is used. */
static void on_resolved(int result, struct evutil_addrinfo *res, void *arg)
{
	struct delivery *d = arg;

	if (result == EVUTIL_EAI_CANCEL)
		return;   /* the deadline or a stop: d may be gone */
	d->lookup = NULL;
	if (result != 0) {
		attempt_end(d, OUT_FAILED, "%s does not resolve (%s)", d->target.name,
		            evutil_gai_strerror(result));
		return;
	}
	for (struct evutil_addrinfo *a = res; a; a = a->ai_next)
		if (address_refused(d, a->ai_addr)) {
			evutil_freeaddrinfo(res);
			return;
		}
	send_to(d, res->ai_addr);
	evutil_freeaddrinfo(res);
}

/* The resolver, made at the first name: the system's configuration. */
static struct evdns_base *resolver(struct backchannel_net *net)
{
	if (!net->dns) {
		net->dns = evdns_base_new(net->srv->base, EVDNS_BASE_INITIALIZE_NAMESERVERS |
		                                          EVDNS_BASE_DISABLE_WHEN_INACTIVE);
		net->own_dns = true;
	}
	return net->dns;
}

void backchannel_attempt_start(struct delivery *d)
{
	static const struct timeval deadline = { BACKCHANNEL_TIMEOUT_S, 0 };
	struct backchannel_net *net = d->net;
	struct evutil_addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	                                 .ai_protocol = IPPROTO_TCP };
	struct sockaddr_storage ss;
	char port[8];

	d->attempts++;
	d->state = D_RESOLVING;
	evtimer_add(d->timer, &deadline);
	if (target_parse(d->row.uri, &d->target) < 0) {
		attempt_end(d, OUT_REFUSED, "the URI is not an absolute http or https URL");
		return;
	}
	if (cidr_sockaddr_parse(d->target.name, d->target.port, &ss) == 0) {
		if (!address_refused(d, (const struct sockaddr *)&ss))
			send_to(d, (const struct sockaddr *)&ss);
		return;
	}
	if (!resolver(net)) {
		attempt_end(d, OUT_FAILED, "no resolver");
		return;
	}
	snprintf(port, sizeof port, "%u", d->target.port);
	/* the answer may come before this returns (/etc/hosts): it cleared lookup */
	d->lookup = evdns_getaddrinfo(net->dns, d->target.name, port, &hints, on_resolved, d);
}

void backchannel_attempt_clear(struct delivery *d)
{
	target_release(&d->target);
}

void backchannel_net_release(struct backchannel_net *net)
{
	if (net->own_dns && net->dns)
		evdns_base_free(net->dns, 0);
	SSL_CTX_free(net->tls);
	backchannel_policy_release(&net->policy);
}
