/*
 * A request's flow (request.h): its finish writes the error answer of a
 * failed step, checks that a finished request did answer, and hands the
 * answer to http.c. And what steps read of the request: path parameters,
 * headers, the client's address.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "cidr.h"
#include "config.h"
#include "log.h"
#include "request.h"
#include "util.h"

/* http.c reaches its part of a request through the request's address. */
_Static_assert(offsetof(struct request_ctx, http) == 0, "http_exchange is not first");

static void request_finish(struct flow *f, enum step_result r)
{
	struct request_ctx *ctx = request_of(f);

	if (r == STEP_DONE && !ctx->http.reply_ready) {
		log_error("bug: %s answered nothing", ctx->http.path);
		flow_fail(f, E_SYSTEM_ERROR, "The request was not answered.");
		r = STEP_FAIL;
	}
	if (r == STEP_FAIL && ctx->http.reply_ready)
		log_error("bug: %s answered, then failed", ctx->http.path);
	else if (r == STEP_FAIL && ctx->fail_page)
		ctx->fail_page(ctx, &f->err);
	else if (r == STEP_FAIL)
		http_reply_error(ctx, &f->err);   /* recorded: f is still running */
	http_reply_send(ctx);
}

void request_run(struct request_ctx *ctx, flow_step *const *steps)
{
	ctx->http.steps = &ctx->flow;
	flow_run_owned(&ctx->flow, steps, request_finish, ctx);
}

void request_release(struct request_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nparams; i++)
		free(ctx->params[i]);
	evhttp_clear_headers(&ctx->query);
	evhttp_clear_headers(&ctx->form);   /* passwords, codes: wiped as freed (main.c) */
	json_decref(ctx->body);
	auth_principal_release(&ctx->principal);
	if (ctx->state_release)
		ctx->state_release(ctx->state);
	free(ctx->state);
	if (ctx->page_release)
		ctx->page_release(ctx->page);
	free(ctx->page);
}

void *request_state(struct request_ctx *ctx, size_t size, void (*release)(void *state))
{
	if (!ctx->state) {
		ctx->state = xcalloc(1, size);
		ctx->state_release = release;
	}
	return ctx->state;
}

const char *request_param(const struct request_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->nparams; i++)
		if (strlen(name) == ctx->param_name_lens[i] &&
		    !strncmp(ctx->param_names[i], name, ctx->param_name_lens[i]))
			return ctx->params[i];
	return NULL;
}

const char *request_header(const struct request_ctx *ctx, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(ctx->http.req), name);
}

/* The last entry of the last X-Forwarded-For header, as an address into
 * out: 0, or -1 when there is none or it is not an address. */
static int forwarded_for(const struct request_ctx *ctx, struct sockaddr_storage *out)
{
	const struct evkeyval *kv;
	const char *last = NULL, *entry;
	char text[64];
	size_t n;

	TAILQ_FOREACH(kv, evhttp_request_get_input_headers(ctx->http.req), next)
		if (!strcasecmp(kv->key, "X-Forwarded-For"))
			last = kv->value;
	if (!last)
		return -1;
	entry = strrchr(last, ',');
	entry = entry ? entry + 1 : last;
	entry += strspn(entry, " \t");
	n = strcspn(entry, " \t");
	if (n == 0 || n >= sizeof text || entry[n + strspn(entry + n, " \t")] != '\0')
		return -1;
	memcpy(text, entry, n);
	text[n] = '\0';
	return cidr_sockaddr_parse(text, 0, out);
}

/* sa as text in its one spelling (an IPv4-mapped IPv6 address as IPv4,
 * IPv6 in RFC 5952 form), so that a client is one key for the throttle. */
static void address_text(const struct sockaddr *sa, char *buf, size_t size)
{
	struct cidr c;

	if (cidr_of_sockaddr(sa, &c, NULL) < 0 || !inet_ntop(c.family, c.addr, buf, (socklen_t)size))
		buf[0] = '\0';
}

/* The connection's peer address into *peer: 0, or -1 when unknown. */
static int peer_of(struct request_ctx *ctx, struct sockaddr_storage *peer)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(ctx->http.req);
	char *text = NULL;
	ev_uint16_t port;

	if (!evcon)
		return -1;
	evhttp_connection_get_peer(evcon, &text, &port);
	return text ? cidr_sockaddr_parse(text, port, peer) : -1;
}

static bool trusted(const struct config *cfg, const struct sockaddr_storage *peer)
{
	return cidr_list_contains(cfg->trusted_proxies, cfg->trusted_proxies_count,
	                          (const struct sockaddr *)peer);
}

const char *request_client_address(struct request_ctx *ctx)
{
	struct sockaddr_storage peer, client;
	const struct sockaddr *who = (const struct sockaddr *)&peer;

	if (ctx->client_address[0] || peer_of(ctx, &peer) < 0)
		return ctx->client_address;
	if (trusted(ctx->http.srv->cfg, &peer) && forwarded_for(ctx, &client) == 0)
		who = (const struct sockaddr *)&client;
	address_text(who, ctx->client_address, sizeof ctx->client_address);
	return ctx->client_address;
}

bool request_peer_trusted(struct request_ctx *ctx)
{
	struct sockaddr_storage peer;

	return peer_of(ctx, &peer) == 0 && trusted(ctx->http.srv->cfg, &peer);
}

const char *request_event_address(struct request_ctx *ctx)
{
	const char *address = request_client_address(ctx);

	return *address ? address : NULL;
}

const struct event_origin *request_origin(struct request_ctx *ctx)
{
	ctx->origin = (struct event_origin){
		.actor = ctx->principal.user_id ? ctx->principal.user_id : ctx->principal.client_id,
		.address = request_event_address(ctx),
	};
	return &ctx->origin;
}
