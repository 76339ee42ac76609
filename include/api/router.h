#ifndef EDGEAUTH_ROUTER_H
#define EDGEAUTH_ROUTER_H
/*
 * The route table: each endpoint's method, path pattern, authentication,
 * required permission and body type as data. The router enforces all of it,
 * in the order of docs/api.md §"Which error wins", before the route's own steps run.
 */
#include "flow.h"
#include "input_names.h"
#include "request.h"   /* struct request_ctx, ROUTE_MAX_PARAMS */

enum route_auth { AUTH_NONE, AUTH_BEARER };
enum route_body { BODY_NONE, BODY_JSON, BODY_FORM };
/* CORS_PUBLIC: token, revocation, discovery, JWKS and UserInfo endpoints,
 * any origin (docs/tokens.md §"CORS"; docs/signin.md §"Cross-site posts"). CORS_CONFIGURED: the origins of [server]
 * cors_origins. CORS_NONE: no origin (introspection, a server's endpoint,
 * docs/tokens.md §"Introspection"). */
enum route_cors { CORS_CONFIGURED, CORS_PUBLIC, CORS_NONE };

struct route {
	enum evhttp_cmd_type method;
	const char *path;            /* segments; ":name" captures one */
	enum route_auth auth;
	/* the named permissions the token must carry, all of them,
	 * space-separated as a scope is ("users:read roles:read"), or NULL */
	const char *permission;
	enum route_body body;
	enum route_cors cors;
	bool no_store;               /* every answer: Cache-Control: no-store (RFC 6749 §5.1) */
	/* its answers tell nothing the store holds, so they never wait for a
	 * commit or its sync (http.c) */
	bool storeless;
	flow_step *const *steps;     /* the route's steps, NULL-terminated */
	/* docs/api.md §"Conventions": a management endpoint's names, any
	 * other refused. query NULL: unknown parameters are ignored (the OAuth
	 * and OpenID Connect endpoints, RFC 6749 §3.1); fields NULL: unknown
	 * body fields are (a JSON body of a revocation endpoint). */
	const char *const *query;
	const struct input_names *fields;
};

/* Room for the Allow header of 405 and OPTIONS answers: the routes of one
 * path (check_router holds the table to both). */
#define ROUTE_ALLOW_METHODS 9
#define ROUTE_ALLOW_MAX 64     /* "PUT, GET, DELETE, OPTIONS" and room to spare */

/* The table itself, *count routes (check_router tests its invariants). */
const struct route *router_routes(size_t *count);
/* Finds the route and runs the request: the checks every route shares, in
 * the order of docs/api.md §"Which error wins", then the route's steps. */
void router_dispatch(struct request_ctx *ctx);
/* The transport's hand-over to router_dispatch (http_start). */
extern const struct http_dispatch router_http_dispatch;

#endif
