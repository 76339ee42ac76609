/*
 * The route table and the checks every request passes before its route's steps,
 * in the order of docs/api.md §"Which error wins": invalid_authorization_token -> project_not_found
 * -> insufficient_permission -> invalid_params (query, content type, body), unknown
 * names of a management endpoint's query or body among them (input_names.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <event2/buffer.h>

#include "account_passkeys.h"
#include "api_authorize.h"
#include "api_forward_auth.h"
#include "api_clients.h"
#include "api_device.h"
#include "api_events.h"
#include "api_logout.h"
#include "api_introspect.h"
#include "api_meta.h"
#include "api_resources.h"
#include "api_revoke.h"
#include "api_roles.h"
#include "api_tokens.h"
#include "api_userinfo.h"
#include "api_users.h"
#include "auth.h"
#include "config.h"
#include "account.h"
#include "account_consents.h"
#include "account_recovery.h"
#include "account_totp.h"
#include "console.h"
#include "console_clients.h"
#include "console_events.h"
#include "console_overview.h"
#include "console_resources.h"
#include "console_roles.h"
#include "console_sessions.h"
#include "console_users.h"
#include "form.h"
#include "jbody.h"
#include "request.h"
#include "router.h"
#include "store.h"
#include "util.h"

#define P "/api/v1/projects/:project_id"
#define C "/console/projects/:project_id"

static const struct route routes[] = {
	{ .method = EVHTTP_REQ_GET, .path = "/healthz", .storeless = true, .steps = health_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/readyz", .storeless = true, .no_store = true,
	  .steps = ready_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/.well-known/jwks.json",
	  .cors = CORS_PUBLIC, .steps = jwks_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/.well-known/oauth-authorization-server",
	  .cors = CORS_PUBLIC, .storeless = true, .steps = metadata_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/.well-known/openid-configuration",
	  .cors = CORS_PUBLIC, .storeless = true, .steps = metadata_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/tokens", .body = BODY_FORM,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = tokens_exchange_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/device_authorization", .body = BODY_FORM,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = device_authorization_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/tokens/revoke", .body = BODY_FORM,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = revoke_rfc7009_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/tokens/current/revoke", .body = BODY_JSON,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = revoke_current_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/tokens/introspect", .body = BODY_FORM,
	  .cors = CORS_NONE, .no_store = true, .steps = introspect_steps },
	/* docs/forward-auth.md: asked by a reverse proxy, answered to it */
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/forward-auth", .no_store = true,
	  .steps = forward_auth_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/forward-auth/callback", .no_store = true,
	  .steps = forward_auth_callback_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/userinfo", .auth = AUTH_BEARER,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = userinfo_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/userinfo", .auth = AUTH_BEARER,
	  .cors = CORS_PUBLIC, .no_store = true, .steps = userinfo_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/authorize", .no_store = true,
	  .steps = authorize_get_steps },
	{ .method = EVHTTP_REQ_PUT, .path = "/api/v1/users/current", .auth = AUTH_BEARER,
	  .body = BODY_JSON, .query = input_query_none, .fields = &users_current_names,
	  .steps = users_update_current_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/users/current", .auth = AUTH_BEARER,
	  .query = input_query_none, .steps = users_get_current_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/authorize", .body = BODY_FORM,
	  .no_store = true, .steps = authorize_post_steps },
	/* the device grant's page (docs/device.md) */
	{ .method = EVHTTP_REQ_GET, .path = "/device", .no_store = true, .cors = CORS_NONE,
	  .steps = device_page_get_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/device", .body = BODY_FORM, .no_store = true,
	  .cors = CORS_NONE, .steps = device_page_post_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/api/v1/logout", .no_store = true,
	  .steps = logout_get_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/api/v1/logout", .body = BODY_FORM,
	  .no_store = true, .steps = logout_post_steps },

	/* a user's own passkeys (docs/signin.md §"Passkeys"): signed in as
	 * the console is; the page's one script */
	{ .method = EVHTTP_REQ_GET, .path = "/account/passkeys", .no_store = true,
	  .cors = CORS_NONE, .steps = account_passkeys_get_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/passkeys", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_passkeys_post_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/account/passkeys.js", .storeless = true,
	  .cors = CORS_NONE, .steps = account_passkeys_script_steps },

	/* the admin console (docs/console.md): pages, signed in by the
	 * project's session cookie, never cached */
	/* a user's own account page (docs/signin.md §"Account page"), signed
	 * in as the console is; the project is in the query */
	{ .method = EVHTTP_REQ_GET, .path = "/account", .no_store = true, .cors = CORS_NONE,
	  .steps = account_page_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/password", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_password_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/sessions/end", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_session_end_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/totp/begin", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_totp_begin_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/totp/confirm", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_totp_confirm_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/totp/remove", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_totp_remove_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/recovery/new", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_recovery_new_steps },
	{ .method = EVHTTP_REQ_POST, .path = "/account/consents/revoke", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = account_consent_revoke_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/console/", .no_store = true,
	  .cors = CORS_NONE, .steps = console_index_steps },
	{ .method = EVHTTP_REQ_GET, .path = "/console/projects/:project_id/", .no_store = true,
	  .cors = CORS_NONE, .steps = console_overview_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/sign-out", .no_store = true, .cors = CORS_NONE,
	  .body = BODY_FORM, .steps = console_signout_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/users", .no_store = true, .cors = CORS_NONE,
	  .steps = console_users_list_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users", .no_store = true, .cors = CORS_NONE,
	  .body = BODY_FORM, .steps = console_user_create_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/new-user", .no_store = true, .cors = CORS_NONE,
	  .steps = console_user_new_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/users/:user_id", .no_store = true,
	  .cors = CORS_NONE, .steps = console_user_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_user_update_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id/password", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_user_password_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id/active", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_user_active_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/users/:user_id/delete", .no_store = true,
	  .cors = CORS_NONE, .steps = console_user_delete_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id/delete", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_user_delete_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/roles", .no_store = true, .cors = CORS_NONE,
	  .steps = console_roles_list_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/roles", .no_store = true, .cors = CORS_NONE,
	  .body = BODY_FORM, .steps = console_role_create_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/new-role", .no_store = true, .cors = CORS_NONE,
	  .steps = console_role_new_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/roles/:role_id", .no_store = true,
	  .cors = CORS_NONE, .steps = console_role_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/roles/:role_id", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_role_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/roles/:role_id/delete", .no_store = true,
	  .cors = CORS_NONE, .steps = console_role_delete_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/roles/:role_id/delete", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_role_delete_steps },

	{ .method = EVHTTP_REQ_GET, .path = C "/clients", .no_store = true, .cors = CORS_NONE,
	  .steps = console_clients_list_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/clients", .no_store = true, .cors = CORS_NONE,
	  .body = BODY_FORM, .steps = console_client_create_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/new-client", .no_store = true, .cors = CORS_NONE,
	  .steps = console_client_new_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/clients/:client_id", .no_store = true,
	  .cors = CORS_NONE, .steps = console_client_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/clients/:client_id", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_client_update_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/clients/:client_id/active", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_client_active_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/clients/:client_id/secret", .no_store = true,
	  .cors = CORS_NONE, .steps = console_client_rotate_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/clients/:client_id/secret", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_client_rotate_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/clients/:client_id/delete", .no_store = true,
	  .cors = CORS_NONE, .steps = console_client_delete_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/clients/:client_id/delete", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_client_delete_steps },

	{ .method = EVHTTP_REQ_GET, .path = C "/sessions", .no_store = true, .cors = CORS_NONE,
	  .steps = console_sessions_list_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/sessions/:session_id/end", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_session_end_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id/sessions/:session_id/end",
	  .no_store = true, .cors = CORS_NONE, .body = BODY_FORM,
	  .steps = console_user_session_end_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/users/:user_id/factors", .no_store = true,
	  .cors = CORS_NONE, .steps = console_user_factors_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/users/:user_id/factors", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_user_factors_reset_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/events", .no_store = true, .cors = CORS_NONE,
	  .steps = console_events_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/resources", .no_store = true, .cors = CORS_NONE,
	  .steps = console_resources_list_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/resources", .no_store = true, .cors = CORS_NONE,
	  .body = BODY_FORM, .steps = console_resource_create_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/new-resource", .no_store = true, .cors = CORS_NONE,
	  .steps = console_resource_new_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/resources/:resource_id", .no_store = true,
	  .cors = CORS_NONE, .steps = console_resource_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/resources/:resource_id", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_resource_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = C "/resources/:resource_id/delete", .no_store = true,
	  .cors = CORS_NONE, .steps = console_resource_delete_ask_steps },
	{ .method = EVHTTP_REQ_POST, .path = C "/resources/:resource_id/delete", .no_store = true,
	  .cors = CORS_NONE, .body = BODY_FORM, .steps = console_resource_delete_steps },

	{ .method = EVHTTP_REQ_POST, .path = P "/resources", .auth = AUTH_BEARER,
	  .permission = "resources:create", .body = BODY_JSON, .query = input_query_none,
	  .fields = &resources_create_names, .steps = resources_create_steps },
	{ .method = EVHTTP_REQ_PUT, .path = P "/resources/:resource_id", .auth = AUTH_BEARER,
	  .permission = "resources:update", .body = BODY_JSON, .query = input_query_none,
	  .fields = &resources_update_names, .steps = resources_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/resources", .auth = AUTH_BEARER,
	  .permission = "resources:read", .query = resources_list_query, .steps = resources_list_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/resources/:resource_id", .auth = AUTH_BEARER,
	  .permission = "resources:read", .query = input_query_none, .steps = resources_get_steps },
	{ .method = EVHTTP_REQ_DELETE, .path = P "/resources/:resource_id", .auth = AUTH_BEARER,
	  .permission = "resources:update", .query = input_query_none,
	  .steps = resources_delete_steps },

	{ .method = EVHTTP_REQ_POST, .path = P "/roles", .auth = AUTH_BEARER,
	  .permission = "roles:create", .body = BODY_JSON, .query = input_query_none,
	  .fields = &roles_write_names, .steps = roles_create_steps },
	{ .method = EVHTTP_REQ_PUT, .path = P "/roles/:role_id", .auth = AUTH_BEARER,
	  .permission = "roles:update", .body = BODY_JSON, .query = input_query_none,
	  .fields = &roles_write_names, .steps = roles_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/roles", .auth = AUTH_BEARER,
	  .permission = "roles:read", .query = roles_list_query, .steps = roles_list_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/roles/:role_id", .auth = AUTH_BEARER,
	  .permission = "roles:read", .query = input_query_none, .steps = roles_get_steps },
	{ .method = EVHTTP_REQ_DELETE, .path = P "/roles/:role_id", .auth = AUTH_BEARER,
	  .permission = "roles:update", .query = input_query_none, .steps = roles_delete_steps },

	{ .method = EVHTTP_REQ_POST, .path = P "/users", .auth = AUTH_BEARER,
	  .permission = "users:create", .body = BODY_JSON, .query = input_query_none,
	  .fields = &users_create_names, .steps = users_create_steps },
	{ .method = EVHTTP_REQ_PUT, .path = P "/users/:user_id", .auth = AUTH_BEARER,
	  .permission = "users:update", .body = BODY_JSON, .query = input_query_none,
	  .fields = &users_update_names, .steps = users_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/users", .auth = AUTH_BEARER,
	  .permission = "users:read", .query = users_list_query, .steps = users_list_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/users/:user_id", .auth = AUTH_BEARER,
	  .permission = "users:read", .query = input_query_none, .steps = users_get_steps },
	{ .method = EVHTTP_REQ_DELETE, .path = P "/users/:user_id", .auth = AUTH_BEARER,
	  .permission = "users:update", .query = input_query_none, .steps = users_delete_steps },
	{ .method = EVHTTP_REQ_DELETE, .path = P "/users/:user_id/factors", .auth = AUTH_BEARER,
	  .permission = "users:update", .query = input_query_none,
	  .steps = users_factors_reset_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/users/external/:external_user_id",
	  .auth = AUTH_BEARER, .permission = "users:read", .query = users_external_query,
	  .steps = users_get_external_steps },
	{ .method = EVHTTP_REQ_POST, .path = P "/users/external/:external_user_id/authorization-codes",
	  .auth = AUTH_BEARER, .permission = "users:update", .body = BODY_JSON, .no_store = true,
	  .query = input_query_none, .fields = &byou_code_names, .steps = byou_code_steps },

	{ .method = EVHTTP_REQ_POST, .path = P "/clients", .auth = AUTH_BEARER,
	  .permission = "clients:create", .body = BODY_JSON, .no_store = true,
	  .query = input_query_none, .fields = &clients_create_names, .steps = clients_create_steps },
	{ .method = EVHTTP_REQ_PUT, .path = P "/clients/:client_id", .auth = AUTH_BEARER,
	  .permission = "clients:update", .body = BODY_JSON, .query = input_query_none,
	  .fields = &clients_update_names, .steps = clients_update_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/clients", .auth = AUTH_BEARER,
	  .permission = "clients:read", .query = clients_list_query, .steps = clients_list_steps },
	{ .method = EVHTTP_REQ_GET, .path = P "/clients/:client_id", .auth = AUTH_BEARER,
	  .permission = "clients:read", .query = input_query_none, .steps = clients_get_steps },
	{ .method = EVHTTP_REQ_DELETE, .path = P "/clients/:client_id", .auth = AUTH_BEARER,
	  .permission = "clients:update", .query = input_query_none,
	  .steps = clients_delete_steps },
	{ .method = EVHTTP_REQ_POST, .path = P "/clients/:client_id/secret", .auth = AUTH_BEARER,
	  .permission = "clients:update", .no_store = true, .query = input_query_none,
	  .steps = clients_rotate_secret_steps },

	/* docs/api.md §"Audit trail": an event names users, clients, roles and
	 * resources, so reading them needs the four reads */
	{ .method = EVHTTP_REQ_GET, .path = P "/events", .auth = AUTH_BEARER,
	  .permission = "users:read clients:read roles:read resources:read",
	  .query = events_list_query, .steps = events_list_steps },
};

#define ROUTE_COUNT (sizeof routes / sizeof routes[0])

const struct route *router_routes(size_t *count)
{
	*count = ROUTE_COUNT;
	return routes;
}

/* Matches path against pattern segment by segment. On a match, records
 * where each ":name" segment starts and ends in the raw path. */
struct capture {
	const char *name;      /* into the pattern, up to the next '/' */
	size_t name_len;
	const char *value;     /* into the path, still percent-encoded */
	size_t value_len;
};

static bool path_match(const char *pattern, const char *path, struct capture caps[ROUTE_MAX_PARAMS],
                       size_t *ncaps)
{
	*ncaps = 0;
	while (*pattern && *path) {
		const char *pe, *se;
		if (*pattern != '/' || *path != '/')
			return false;
		pattern++;
		path++;
		if (*pattern == '\0' && *path == '\0')
			return true;    /* both end in '/' (a folder's page: /console/) */
		if (*path == '/' || *path == '\0')
			return false;   /* empty segment */
		if (*pattern == ':') {
			pe = strchrnul(pattern, '/');
			se = strchrnul(path, '/');
			if (*ncaps == ROUTE_MAX_PARAMS)
				return false;
			caps[*ncaps].name = pattern + 1;
			caps[*ncaps].name_len = (size_t)(pe - pattern - 1);
			caps[*ncaps].value = path;
			caps[*ncaps].value_len = (size_t)(se - path);
			(*ncaps)++;
			pattern = pe;
			path = se;
			continue;
		}
		/* A literal segment, compared as the path is walked: most routes
		 * part at their first differing byte (finding each segment's end
		 * first was a fortieth of a grant, docs/BENCHMARKS.md). */
		while (*pattern && *pattern != '/' && *pattern == *path) {
			pattern++;
			path++;
		}
		if ((*pattern && *pattern != '/') || (*path && *path != '/'))
			return false;
	}
	return *pattern == '\0' && *path == '\0';
}

static bool method_matches(enum evhttp_cmd_type route_method, enum evhttp_cmd_type m)
{
	return route_method == m || (route_method == EVHTTP_REQ_GET && m == EVHTTP_REQ_HEAD);
}

static void reply_fail(struct request_ctx *ctx, enum api_code code, const char *msg)
{
	struct api_error err;
	api_fail(&err, code, "%s", msg);
	http_reply_error(ctx, &err);
}

/* docs/tokens.md §"CORS": the public endpoints allow any origin; the management API
 * the configured ones. */
static void add_cors_headers(struct request_ctx *ctx, enum route_cors cors, const char *allow)
{
	const char *origin = request_header(ctx, "Origin");
	bool preflight = ctx->http.method == EVHTTP_REQ_OPTIONS;

	if (!origin || cors == CORS_NONE)
		return;
	if (cors == CORS_PUBLIC) {
		http_add_header(ctx, "Access-Control-Allow-Origin", "*");
	} else if (config_cors_allowed(ctx->http.srv->cfg, origin)) {
		http_add_header(ctx, "Access-Control-Allow-Origin", origin);
		http_add_header(ctx, "Vary", "Origin");
	} else {
		return;
	}
	if (preflight) {
		http_add_header(ctx, "Access-Control-Allow-Methods", allow);
		http_add_header(ctx, "Access-Control-Allow-Headers", "Authorization, Content-Type");
		http_add_header(ctx, "Access-Control-Max-Age", "600");
	} else {
		http_add_header(ctx, "Access-Control-Expose-Headers", "WWW-Authenticate");
	}
}

static int read_body(struct request_ctx *ctx, enum route_body kind, struct api_error *err)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(ctx->http.req);
	size_t len = evbuffer_get_length(in);
	const char *ctype = request_header(ctx, "Content-Type");
	const char *data = len ? (const char *)evbuffer_pullup(in, -1) : "";

	if (kind == BODY_JSON) {
		if (!form_content_type_is(ctype, "application/json"))
			return api_fail(err, E_INVALID_PARAMS, "Content-Type must be application/json.");
		ctx->body = jbody_parse(data, len, err);
		return ctx->body ? 0 : -1;
	}
	if (!form_content_type_is(ctype, "application/x-www-form-urlencoded"))
		return api_fail(err, E_INVALID_PARAMS,
		                "Content-Type must be application/x-www-form-urlencoded.");
	if (memchr(data, '\0', len) || form_parse(data, len, &ctx->form) < 0)
		return api_fail(err, E_INVALID_PARAMS, "The form body is malformed.");
	return 0;
}

/* ---- the checks every route shares, in the order of docs/api.md §"Which error wins" ---- */

static enum step_result step_authenticate(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (ctx->route->auth != AUTH_BEARER)
		return STEP_NEXT;
	auth_bearer(&ctx->bearer, ctx->http.srv, request_header(ctx, "Authorization"), &ctx->principal,
	            flow_completion(f));
	return STEP_WAIT;
}

/* A token of this very project proves that it exists: auth_bearer found the
 * token's client in it. Any other project is looked up, so that an unknown
 * one answers project_not_found before the token's mismatch. A route
 * without a token (the console's pages) checks its project itself, and
 * answers with a page. */
static bool project_known(const struct request_ctx *ctx)
{
	const char *project_id = request_param(ctx, "project_id");

	return !project_id || ctx->route->auth != AUTH_BEARER ||
	       strcmp(ctx->principal.project_id, project_id) == 0;
}

static enum step_result step_project(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	ctx->project.found = true;
	if (project_known(ctx))
		return STEP_NEXT;
	store_project_get(ctx->http.srv->store, request_param(ctx, "project_id"), &ctx->project,
	                  flow_completion(f));
	return STEP_WAIT;
}

static enum step_result step_project_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (!ctx->project.found)
		return flow_fail(f, E_PROJECT_NOT_FOUND, "The project does not exist.");
	if (!project_known(ctx))
		return flow_fail(f, E_INSUFFICIENT_PERMISSION, "The token belongs to another project.");
	return STEP_NEXT;
}

static enum step_result step_permission(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *permission = ctx->route->permission, *lacked;
	size_t len;

	if (permission && (lacked = auth_principal_lacks(&ctx->principal, permission, &len)))
		return flow_fail(f, E_INSUFFICIENT_PERMISSION,
		                    "The token lacks the permission %.*s.", (int)len, lacked);
	return STEP_NEXT;
}

static enum step_result step_input(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(ctx->http.req);
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	struct api_error err;

	if (query && form_parse(query, strlen(query), &ctx->query) < 0)
		return flow_fail(f, E_INVALID_PARAMS, "The query string is malformed.");
	if (ctx->route->query && input_names_check_query(&ctx->query, ctx->route->query, &err) < 0)
		return flow_error(f, &err);
	if (ctx->route->body != BODY_NONE && read_body(ctx, ctx->route->body, &err) < 0)
		return flow_error(f, &err);
	if (ctx->route->fields && ctx->body &&
	    input_names_check_body(ctx->body, ctx->route->fields, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

/* Then the route's own steps. */
static enum step_result step_route(struct flow *f)
{
	return flow_branch(f, request_of(f)->route->steps);
}

static flow_step *const shared_steps[] = {
	step_authenticate, step_project, step_project_check, step_permission, step_input,
	step_route, NULL,
};

/* The '/' in a pattern or a path. A path matches only a pattern with as
 * many (a parameter takes one whole segment), so the walk compares this count
 * before the bytes: most of the table shares "/api/v1/" with most paths, and
 * walking that prefix in every pattern was ~4,000 instructions of a grant
 * (docs/BENCHMARKS.md). */
static size_t slash_count(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* slash_count of each route's pattern, counted on the first dispatch (only
 * the loop thread dispatches). */
static const size_t *route_slashes(void)
{
	static size_t counts[ROUTE_COUNT];
	static bool counted;

	if (!counted) {
		for (size_t i = 0; i < ROUTE_COUNT; i++)
			counts[i] = slash_count(routes[i].path);
		counted = true;
	}
	return counts;
}

/* The methods of the routes hits[0..n) of a path, in table order ("POST,
 * GET"), for Allow and a preflight's Access-Control-Allow-Methods. Only those
 * answers use it, so it is written for them alone (an snprintf a matching
 * route, ~800 instructions of every request, docs/BENCHMARKS.md). */
static void allow_list(const struct route *const hits[], size_t n, char allow[ROUTE_ALLOW_MAX])
{
	allow[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(allow + strlen(allow), ROUTE_ALLOW_MAX - strlen(allow), "%s%s",
		         allow[0] ? ", " : "", http_method_name(hits[i]->method));
}

void router_dispatch(struct request_ctx *ctx)
{
	const struct route *match = NULL, *path_route = NULL;
	struct capture caps[ROUTE_MAX_PARAMS], match_caps[ROUTE_MAX_PARAMS];
	const struct route *hits[ROUTE_ALLOW_METHODS];
	size_t ncaps, match_ncaps = 0, nhits = 0;
	char allow[ROUTE_ALLOW_MAX] = "";
	enum route_cors cors = CORS_CONFIGURED;
	bool path_known = false;
	const size_t *slashes = route_slashes();
	size_t path_slashes = slash_count(ctx->http.path);

	TAILQ_INIT(&ctx->query);
	TAILQ_INIT(&ctx->form);

	for (size_t i = 0; i < ROUTE_COUNT; i++) {
		if (slashes[i] != path_slashes || !path_match(routes[i].path, ctx->http.path, caps, &ncaps))
			continue;
		if (!path_known)
			path_route = &routes[i];
		path_known = true;
		cors = routes[i].cors;
		if (nhits < ROUTE_ALLOW_METHODS)
			hits[nhits++] = &routes[i];
		if (!match && method_matches(routes[i].method, ctx->http.method)) {
			match = &routes[i];
			memcpy(match_caps, caps, sizeof caps);
			match_ncaps = ncaps;
		}
	}
	if (path_known)   /* metrics: the route, or the path's pattern (405, OPTIONS) */
		ctx->http.route_index = (int)((match ? match : path_route) - routes);
	if (path_known && (!match || ctx->http.method == EVHTTP_REQ_OPTIONS))
		allow_list(hits, nhits, allow);
	if (path_known && ctx->http.method == EVHTTP_REQ_OPTIONS) {
		snprintf(allow + strlen(allow), sizeof allow - strlen(allow), ", OPTIONS");
		add_cors_headers(ctx, cors, allow);
		http_add_header(ctx, "Allow", allow);
		http_reply_raw(ctx, 204, NULL, NULL, 0);
		return;
	}
	/* Errors too carry the CORS headers: without them a browser hides the
	 * answer from the page, which sees a network error instead of a 404. An
	 * unknown path is treated as the management API's. */
	if (ctx->http.method != EVHTTP_REQ_OPTIONS)
		add_cors_headers(ctx, cors, allow);
	if (!path_known) {
		reply_fail(ctx, E_NOT_FOUND, "No such endpoint.");
		return;
	}
	if (!match) {
		http_add_header(ctx, "Allow", allow);
		reply_fail(ctx, E_METHOD_NOT_ALLOWED, "This method is not allowed here.");
		return;
	}
	for (size_t i = 0; i < match_ncaps; i++) {
		char *v = form_percent_decode(match_caps[i].value, match_caps[i].value_len, false);
		if (!v) {
			reply_fail(ctx, E_INVALID_PARAMS, "The path is malformed.");
			return;
		}
		ctx->param_names[i] = match_caps[i].name;   /* into the static table */
		ctx->param_name_lens[i] = match_caps[i].name_len;
		ctx->params[ctx->nparams++] = v;
	}
	ctx->route = match;
	ctx->http.storeless = match->storeless;
	if (match->no_store) {
		http_add_header(ctx, "Cache-Control", "no-store");
		http_add_header(ctx, "Pragma", "no-cache");
	}
	request_run(ctx, shared_steps);
}

const struct http_dispatch router_http_dispatch = {
	.ctx_size = sizeof (struct request_ctx),
	.dispatch = router_dispatch,
	.release = request_release,
};
