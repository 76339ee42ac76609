/*
 * Back-channel logout delivery (backchannel.h). Each outbox row becomes a
 * struct delivery that lives until its row is deleted: queued, then one
 * attempt after another (resolve, check the addresses, connect, POST, read
 * the status line), then finished. libevent's callbacks only record what
 * happened; an attempt ends in the delivery's own timer callback, outside
 * libevent's HTTP and DNS code, where its connection may be freed. Nothing
 * here blocks the loop, and no secret but the token itself, in the POST
 * body, leaves this file: the log names the jti, the client and the host.
 */
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
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

#include "backchannel.h"
#include "backchannel_policy.h"
#include "backchannel_queue.h"
#include "cidr.h"
#include "config.h"
#include "flow.h"
#include "jwt.h"
#include "keyring.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "store.h"
#include "store_outbox.h"
#include "util.h"

#define POKE_DELAY_MS 10   /* a commit's read waits this long: a burst of commits reads once */
#define DRAIN_ROWS 256     /* new rows taken from the outbox per read */
#define ID_BUCKETS 2048    /* deliveries alive are at most in flight + queued + one read */
#define LOGOUT_EVENT "http://schemas.openid.net/event/backchannel-logout"

/* The wait before the second and the third attempt. */
static const int retry_delay_s[BACKCHANNEL_ATTEMPTS - 1] = { 1, 5 };

enum delivery_state {
	D_QUEUED,       /* waiting for an attempt slot (its lane of bc->queue) */
	D_RESOLVING,    /* an attempt: looking the host's name up */
	D_SENDING,      /* an attempt: connecting, writing, reading the answer */
	D_ENDING,       /* the attempt's outcome is known; its end runs next */
	D_RETRY_WAIT,   /* waiting to try again (held in bc->queue) */
	D_FINISHED,     /* delivered, given up or dropped: its row is to go (bc->finished) */
};

enum outcome {
	OUT_DELIVERED,  /* a 2xx */
	OUT_REJECTED,   /* another answer: final */
	OUT_FAILED,     /* no connection, a timeout, a 5xx: tried again */
	OUT_REFUSED,    /* not sent, final */
};

/* Where an attempt goes, from the row's URI. */
struct target {
	bool tls;
	char *host;          /* as in the URI (an IPv6 address in brackets), for Host */
	char *name;          /* without brackets: what is resolved and verified */
	char *host_header;   /* host, and :port when the URI has one */
	unsigned port;
	char *path;          /* path and query; "/" at least */
};

struct delivery {
	struct backchannel *bc;
	struct outbox_row row;   /* owned */
	int attempts;            /* made so far, the one under way included */
	enum delivery_state state;
	struct event *timer;     /* by state: the deadline, the end, the retry's wait */
	struct evdns_getaddrinfo_request *lookup;
	struct evhttp_connection *conn;
	struct target target;    /* of the attempt under way */
	enum outcome outcome;
	char why[160];           /* the outcome in words, for the log */
	struct backchannel_queue_item in_queue;   /* from admitted to finished */
	TAILQ_ENTRY(delivery) link;       /* bc->finished */
	struct delivery *next_same_bucket;
};

TAILQ_HEAD(delivery_list, delivery);

struct backchannel {
	struct server *srv;
	struct evdns_base *dns;        /* NULL until the first name, when ours */
	bool own_dns;
	SSL_CTX *tls;                  /* NULL until the first https URI */
	struct backchannel_policy policy;
	struct event *drain_ev;        /* reads the outbox: poked, or every POLL_MS */
	bool poked;
	struct drain *drain;           /* the drain in progress, one at a time */
	bool drain_again;              /* poked meanwhile: another drain follows */
	bool stopping;                 /* backchannel_free: deletes, reads nothing */
	struct backchannel_queue queue;   /* fair between clients and users */
	struct delivery_list finished;
	size_t finished_count, alive;
	struct backchannel_stats stats;
	struct delivery *by_id[ID_BUCKETS];   /* every delivery alive, by row ID */
};

#define DELIVERY_OF(item) \
	((struct delivery *)(void *)((char *)(item) - offsetof(struct delivery, in_queue)))

/* ---- deliveries by row ID: an outbox row is taken once ---- */

static struct delivery **bucket_of(struct backchannel *bc, const char *id)
{
	return &bc->by_id[str_hash(id) % ID_BUCKETS];
}

static bool taken(struct backchannel *bc, const char *id)
{
	for (struct delivery *d = *bucket_of(bc, id); d; d = d->next_same_bucket)
		if (!strcmp(d->row.id, id))
			return true;
	return false;
}

static void take(struct backchannel *bc, struct delivery *d)
{
	struct delivery **b = bucket_of(bc, d->row.id);

	d->next_same_bucket = *b;
	*b = d;
	bc->alive++;
}

static void untake(struct backchannel *bc, struct delivery *d)
{
	for (struct delivery **p = bucket_of(bc, d->row.id); *p; p = &(*p)->next_same_bucket)
		if (*p == d) {
			*p = d->next_same_bucket;
			bc->alive--;
			return;
		}
}

/* ---- the log ---- */

/* One line per outcome: jti, client, host, and what happened. */
static void log_delivery(const struct delivery *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void log_delivery(const struct delivery *d, const char *fmt, ...)
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
	const struct server *srv = d->bc->srv;
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
static SSL_CTX *tls_context(struct backchannel *bc)
{
	if (bc->tls)
		return bc->tls;
	bc->tls = SSL_CTX_new(TLS_client_method());
	if (!bc->tls)
		return NULL;
	SSL_CTX_set_min_proto_version(bc->tls, TLS1_2_VERSION);
	SSL_CTX_set_verify(bc->tls, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_set_default_verify_paths(bc->tls) != 1)
		log_warn("back-channel: the system's trusted certificates could not be read");
	return bc->tls;
}

/* A connection to the checked address ip: TLS for https, with SNI and the
 * certificate checked against the URI's host (a name or an address). */
static struct evhttp_connection *connection_new(struct delivery *d, const char *ip)
{
	struct event_base *base = d->bc->srv->base;
	struct sockaddr_storage ss;
	struct bufferevent *bev;
	SSL_CTX *ctx;
	SSL *ssl;

	if (!d->target.tls)
		return evhttp_connection_base_new(base, NULL, ip, (ev_uint16_t)d->target.port);
	ctx = tls_context(d->bc);
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

	if (backchannel_address_allowed(&d->bc->policy, sa))
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
static struct evdns_base *resolver(struct backchannel *bc)
{
	if (!bc->dns) {
		bc->dns = evdns_base_new(bc->srv->base, EVDNS_BASE_INITIALIZE_NAMESERVERS |
		                                         EVDNS_BASE_DISABLE_WHEN_INACTIVE);
		bc->own_dns = true;
	}
	return bc->dns;
}

static void attempt_start(struct delivery *d)
{
	static const struct timeval deadline = { BACKCHANNEL_TIMEOUT_S, 0 };
	struct backchannel *bc = d->bc;
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
	if (!resolver(bc)) {
		attempt_end(d, OUT_FAILED, "no resolver");
		return;
	}
	snprintf(port, sizeof port, "%u", d->target.port);
	/* the answer may come before this returns (/etc/hosts): it cleared lookup */
	d->lookup = evdns_getaddrinfo(bc->dns, d->target.name, port, &hints, on_resolved, d);
}

/* Starts queued deliveries while the queue gives slots. */
static void pump(struct backchannel *bc)
{
	struct backchannel_queue_item *it;

	while ((it = backchannel_queue_next(&bc->queue)))
		attempt_start(DELIVERY_OF(it));
}

/* Delivered, given up or dropped: its row is deleted at the next read. */
static void finish(struct delivery *d)
{
	struct backchannel *bc = d->bc;

	backchannel_queue_remove(&bc->queue, &d->in_queue);
	d->state = D_FINISHED;
	TAILQ_INSERT_TAIL(&bc->finished, d, link);
	bc->finished_count++;
	backchannel_poke(bc);
}

/* The attempt is over (d->outcome): count, log, and retry or finish. */
static void attempt_done(struct delivery *d)
{
	struct backchannel *bc = d->bc;
	struct timeval wait = { 0, 0 };

	if (d->conn)
		evhttp_connection_free(d->conn);   /* a request still on it goes without callbacks */
	d->conn = NULL;
	switch (d->outcome) {
	case OUT_DELIVERED:
		bc->stats.delivered++;
		metrics_backchannel(METRICS_BACKCHANNEL_DELIVERED);
		log_delivery(d, "%s", d->why);
		finish(d);
		break;
	case OUT_REJECTED:
		bc->stats.rejected++;
		metrics_backchannel(METRICS_BACKCHANNEL_REJECTED);
		log_delivery(d, "%s, not retried", d->why);
		finish(d);
		break;
	case OUT_REFUSED:
		bc->stats.refused++;
		metrics_backchannel(METRICS_BACKCHANNEL_REFUSED);
		log_delivery(d, "not sent: %s", d->why);
		finish(d);
		break;
	case OUT_FAILED:
		if (d->attempts < BACKCHANNEL_ATTEMPTS) {
			wait.tv_sec = retry_delay_s[d->attempts - 1];
			bc->stats.retried++;
			log_delivery(d, "%s; tried again in %ld s", d->why, (long)wait.tv_sec);
			d->state = D_RETRY_WAIT;
			backchannel_queue_hold(&bc->queue, &d->in_queue);
			evtimer_add(d->timer, &wait);
		} else {
			bc->stats.given_up++;
			metrics_backchannel(METRICS_BACKCHANNEL_FAILED);
			log_delivery(d, "%s; given up after %d attempts", d->why, d->attempts);
			finish(d);
		}
		break;
	}
	target_release(&d->target);
	pump(bc);
}

/* The delivery's one timer: what it means depends on the state. */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct delivery *d = arg;

	(void)fd;
	(void)what;
	switch (d->state) {
	case D_RESOLVING:
	case D_SENDING:   /* the attempt's deadline */
		d->outcome = OUT_FAILED;
		snprintf(d->why, sizeof d->why, "no answer within %d s", BACKCHANNEL_TIMEOUT_S);
		d->state = D_ENDING;
		if (d->lookup)
			evdns_getaddrinfo_cancel(d->lookup);   /* its callback comes later, ignored */
		d->lookup = NULL;
		attempt_done(d);
		break;
	case D_ENDING:
		attempt_done(d);
		break;
	case D_RETRY_WAIT:   /* first in its lane: its time has come */
		d->state = D_QUEUED;
		backchannel_queue_retry(&d->bc->queue, &d->in_queue);
		pump(d->bc);
		break;
	case D_QUEUED:
	case D_FINISHED:
		break;
	}
}

/* ---- the outbox ---- */

static void delivery_free(struct delivery *d)
{
	if (d->lookup)
		evdns_getaddrinfo_cancel(d->lookup);
	if (d->conn)
		evhttp_connection_free(d->conn);
	event_free(d->timer);
	target_release(&d->target);
	backchannel_queue_remove(&d->bc->queue, &d->in_queue);
	untake(d->bc, d);
	outbox_row_release(&d->row);
	free(d);
}

/* d made room in a full queue, or found none: not sent, and never in
 * silence (a warning and the dropped counter). lane_waiting: how many its
 * user had waiting for its client, the most of any. */
static void drop(struct delivery *d, size_t lane_waiting)
{
	struct backchannel *bc = d->bc;

	bc->stats.dropped++;
	metrics_backchannel(METRICS_BACKCHANNEL_DROPPED);
	log_warn("back-channel logout %s to client %s: dropped: %d logouts are queued already, "
	         "%zu of them of this user to this client, the most of any", d->row.id,
	         d->row.client_id, BACKCHANNEL_MAX_QUEUED, lane_waiting);
	finish(d);
}

/* A new row: queued in the lane of its user at its client, and started
 * when the queue gives it a slot; when the queue is full, it or the newest
 * of the longest lane is dropped. Takes the row's strings. */
static void admit(struct backchannel *bc, struct outbox_row *row)
{
	struct delivery *d = xcalloc(1, sizeof *d);
	struct backchannel_queue_item *dropped;
	size_t lane_waiting = 0;

	d->bc = bc;
	d->row = *row;
	memset(row, 0, sizeof *row);
	d->timer = evtimer_new(bc->srv->base, on_timer, d);
	take(bc, d);
	d->state = D_QUEUED;
	dropped = backchannel_queue_add(&bc->queue, &d->in_queue,
	                                d->row.client_id ? d->row.client_id : "",
	                                d->row.subject ? d->row.subject : "", &lane_waiting);
	if (dropped)
		drop(DELIVERY_OF(dropped), lane_waiting);
	pump(bc);
}

/* ---- a drain: delete what finished, read, refresh the keys, admit ---- */

/* The store completes a drain's steps at once on SQLite, later on
 * PostgreSQL; what they fill lives here, apart from bc, so that a stop
 * during a drain leaves it an orphan (bc NULL) that its last completion
 * frees. */
struct drain {
	struct backchannel *bc;
	size_t deleting;               /* the first of bc->finished, whose rows go */
	size_t limit;                  /* what the read asked for */
	struct outbox_rows rows;       /* what it got */
	struct keyring_refresh keys;
};

static void drain_next(struct drain *dr);

/* The end of a drain, whatever happened (a failure was logged by the store;
 * what it did not do is done by the next). */
static void drain_end(struct drain *dr)
{
	struct backchannel *bc = dr->bc;

	outbox_rows_release(&dr->rows);
	keyring_refresh_release(&dr->keys);
	free(dr);
	if (!bc)
		return;
	bc->drain = NULL;
	if (bc->drain_again) {
		bc->drain_again = false;
		backchannel_poke(bc);
	}
}

/* The rows of the deliveries that finished before the delete went. */
static void finished_deleted(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;
	struct delivery *d;

	if (err || !bc) {
		drain_end(dr);   /* the deliveries are kept for the next try */
		return;
	}
	for (; dr->deleting > 0 && (d = TAILQ_FIRST(&bc->finished)); dr->deleting--) {
		TAILQ_REMOVE(&bc->finished, d, link);
		bc->finished_count--;
		delivery_free(d);
	}
	drain_next(dr);
}

/* Admits the rows not yet taken (the keys are fresh). */
static void rows_admit(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;

	(void)err;   /* a failed refresh keeps the ring as it was */
	for (size_t i = 0; bc && i < dr->rows.count; i++)
		if (!taken(bc, dr->rows.rows[i].id))
			admit(bc, &dr->rows.rows[i]);
	if (bc && dr->rows.count == dr->limit)
		bc->drain_again = true;   /* more may wait */
	drain_end(dr);
}

/* Brings the key ring up to the store before the first new row's token is
 * signed (a rotation by the CLI); after the read, as keyring_refresh asks. */
static void rows_read(void *arg, const struct api_error *err)
{
	struct drain *dr = arg;
	struct backchannel *bc = dr->bc;

	if (err || !bc) {
		drain_end(dr);
		return;
	}
	for (size_t i = 0; i < dr->rows.count; i++)
		if (!taken(bc, dr->rows.rows[i].id)) {
			keyring_refresh(&dr->keys, bc->srv->keys, bc->srv->store, false,
			                (struct completion){ rows_admit, dr });
			return;
		}
	rows_admit(dr, NULL);
}

/* Rows are read only outside a batch transaction, so that a logout of a
 * change that may still roll back is never sent; the batch's commit pokes
 * again. (On PostgreSQL no batch is open here: a read answers only once its
 * batch committed.) */
static void drain_next(struct drain *dr)
{
	struct backchannel *bc = dr->bc;

	if (bc->stopping || store_batch_open(bc->srv->store)) {
		drain_end(dr);
		return;
	}
	/* the rows taken come first in the worst case: read past them */
	dr->limit = bc->alive + DRAIN_ROWS;
	store_outbox_read(bc->srv->store, dr->limit, &dr->rows, (struct completion){ rows_read, dr });
}

/* The rows of the deliveries finished, as the delete takes them (the
 * array is the caller's to free). */
static const char **finished_ids(struct backchannel *bc)
{
	const char **ids = xcalloc(bc->finished_count, sizeof *ids);
	struct delivery *d;
	size_t i = 0;

	TAILQ_FOREACH(d, &bc->finished, link)
		ids[i++] = d->row.id;
	return ids;
}

/* Deletes the rows of finished deliveries, in one transaction, then takes
 * the rows not yet taken. */
static void drain(struct backchannel *bc)
{
	struct drain *dr;
	const char **ids;

	if (bc->drain) {
		bc->drain_again = true;
		return;
	}
	dr = xcalloc(1, sizeof *dr);
	dr->bc = bc;
	bc->drain = dr;
	if (bc->finished_count == 0) {
		drain_next(dr);
		return;
	}
	ids = finished_ids(bc);
	dr->deleting = bc->finished_count;
	store_outbox_delete(bc->srv->store, ids, dr->deleting,
	                    (struct completion){ finished_deleted, dr });
	free(ids);
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
	struct backchannel *bc = arg;
	struct timeval poll = { BACKCHANNEL_POLL_MS / 1000, (BACKCHANNEL_POLL_MS % 1000) * 1000 };

	(void)fd;
	(void)what;
	bc->poked = false;
	drain(bc);
	if (!bc->poked)
		evtimer_add(bc->drain_ev, &poll);
}

void backchannel_poke(struct backchannel *bc)
{
	static const struct timeval soon = { 0, POKE_DELAY_MS * 1000 };

	if (bc->poked)
		return;
	bc->poked = true;
	evtimer_add(bc->drain_ev, &soon);
}

/* Another node (or the CLI) queued a logout. */
static void on_queued(void *arg)
{
	backchannel_poke(arg);
}

struct backchannel *backchannel_new(struct server *srv, struct evdns_base *dns, char *errbuf,
                                    size_t errlen)
{
	struct backchannel *bc = xcalloc(1, sizeof *bc);

	bc->srv = srv;
	bc->dns = dns;
	backchannel_queue_init(&bc->queue, BACKCHANNEL_MAX_IN_FLIGHT,
	                       BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT, BACKCHANNEL_MAX_QUEUED);
	TAILQ_INIT(&bc->finished);
	if (backchannel_policy_init(&bc->policy, srv->cfg, errbuf, errlen) < 0) {
		free(bc);
		return NULL;
	}
	bc->drain_ev = evtimer_new(srv->base, on_drain, bc);
	store_outbox_on_queued(srv->store, on_queued, bc);
	backchannel_poke(bc);   /* rows left by the last run, or by another process */
	return bc;
}

void backchannel_free(struct backchannel *bc)
{
	size_t pending, lookups = 0;

	if (!bc)
		return;
	bc->stopping = true;
	store_outbox_on_queued(bc->srv->store, NULL, NULL);
	if (!bc->drain && bc->finished_count > 0)
		drain(bc);   /* their rows go (on PostgreSQL, if the pool still sends) */
	if (bc->drain)
		bc->drain->bc = NULL;   /* its completions end it alone */
	pending = bc->alive - bc->finished_count;
	for (size_t i = 0; i < ID_BUCKETS; i++)
		while (bc->by_id[i]) {
			lookups += bc->by_id[i]->lookup != NULL;
			delivery_free(bc->by_id[i]);
		}
	/* a cancelled lookup is released by its callback, which evdns runs from
	 * the loop: one pass lets it, before the resolver goes */
	if (lookups)
		event_base_loop(bc->srv->base, EVLOOP_NONBLOCK);
	if (pending)
		log_info("back-channel: %zu logout(s) not delivered at the stop; "
		         "they are sent at the next start", pending);
	if (bc->own_dns && bc->dns)
		evdns_base_free(bc->dns, 0);
	SSL_CTX_free(bc->tls);
	event_free(bc->drain_ev);
	backchannel_policy_release(&bc->policy);
	backchannel_queue_release(&bc->queue);
	free(bc);
}

const struct backchannel_stats *backchannel_stats(const struct backchannel *bc)
{
	return &bc->stats;
}

size_t backchannel_in_flight(const struct backchannel *bc)
{
	return backchannel_queue_in_flight(&bc->queue);
}

size_t backchannel_queued(const struct backchannel *bc)
{
	return backchannel_queue_queued(&bc->queue);
}
