/*
 * The clients endpoints (docs/api.md §"Clients", docs/api.md §"Conventions", §"Records"), as
 * steps. The router has checked the token, the project and the permission;
 * the first step reads the body or query (invalid_params), the next lets
 * the store decide client_not_found, some_permissions_not_found and
 * insufficient_permission (no escalation), in that order, and the last
 * answers. A client secret appears only in the answer that issues it,
 * never in a log, an error or a record.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "api_clients.h"
#include "api_records.h"
#include "crypto.h"
#include "form.h"
#include "jbody.h"
#include "list_params.h"
#include "request.h"
#include "store_clients.h"
#include "util.h"
#include "validate.h"

/* Caps that keep one request's work bounded; docs/api.md §"Limits" names none. */
#define CLIENT_PERMISSION_IDS_MAX 1000
#define CLIENT_REDIRECT_URIS_MAX 20
#define CLIENT_ALLOWED_ROLES_MAX 100

static const struct str_rule name_rule = {
	.key = "name", .required = true, .max_chars = NAME_MAX_CHARS,
};
static const struct str_rule description_rule = {
	.key = "description", .max_chars = DESCRIPTION_MAX_CHARS,
};

/* docs/api.md §"Lists": the clients list's sort_by values, created_at the
 * default; the store takes their index (enum client_sort). */
static const char *const sort_keys[CLIENT_SORT__COUNT] = {
	[CLIENT_SORT_CREATED_AT] = "created_at",
	[CLIENT_SORT_UPDATED_AT] = "updated_at",
	[CLIENT_SORT_NAME] = "name",
	[CLIENT_SORT_IS_ACTIVE] = "is_active",
};

void clients_body_init(struct client_body *b)
{
	memset(b, 0, sizeof *b);
	b->is_active = -1;
	b->device_flow = -1;
	b->consent_required = -1;
	b->permission_ids = (struct jbody_id_list)ID_LIST_INIT;
}

void clients_body_release(struct client_body *b)
{
	jbody_id_list_release(&b->permission_ids);
	free(b->redirect_uris.json);
	free(b->post_logout_redirect_uris.json);
	free(b->forward_auth_urls.json);
	free(b->allowed_role_ids.json);
	b->redirect_uris.json = b->post_logout_redirect_uris.json = b->forward_auth_urls.json = NULL;
	b->allowed_role_ids.json = NULL;
}

/*
 * One registered URI, item i of the list key: an absolute http or https URL
 * of at most URL_MAX_CHARS, without a fragment (RFC 6749 §3.1.2: "The
 * endpoint URI MUST NOT include a fragment component"; the logout URIs
 * follow the same rules, docs/signin.md §"Logout"); base_only: a base URL
 * (forward_auth_urls), without a query either. The error names the
 * position, never the value.
 */
static int check_registered_uri(const char *key, bool base_only, const json_t *item, size_t i,
                                struct api_error *err)
{
	const char *s = json_string_value(item);
	size_t len = json_string_length(item);

	if (!json_is_string(item))
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must be a string", key, i);
	if (len == 0)
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must not be empty", key, i);
	if (strlen(s) != len || !utf8_valid(s, len))
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must be UTF-8 text without U+0000",
		                key, i);
	if (utf8_chars(s) > URL_MAX_CHARS)
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must be at most %d characters", key,
		                i, URL_MAX_CHARS);
	if (strchr(s, '#'))
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must not contain a fragment", key, i);
	/* a base URL (docs/forward-auth.md): a query has no place to go in
	 * <base URL>/.edgeauth/callback, nor in a prefix of the pages */
	if (base_only && strchr(s, '?'))
		return api_fail(err, E_INVALID_PARAMS, "%s[%zu] must not contain a query", key, i);
	if (!validate_http_url(s))
		return api_fail(err, E_INVALID_PARAMS,
		                "%s[%zu] must be an absolute http or https URL", key, i);
	return 0;
}

static bool string_in_array(const json_t *array, const char *s)
{
	size_t i;
	const json_t *v;

	json_array_foreach(array, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

/*
 * body[key], a list of registered URIs: absent -> out->present false; null
 * or [] -> "[]"; an array of valid URIs -> their JSON text, duplicates
 * dropped, order kept. Anything else is invalid_params.
 */
static int read_uri_list(const json_t *body, const char *key, bool base_only,
                         struct uri_list *out, struct api_error *err)
{
	const json_t *v = json_object_get(body, key), *item;
	json_t *uris;
	size_t i;
	int rc = -1;

	out->present = v != NULL;
	out->json = NULL;
	if (!v)
		return 0;
	if (!json_is_null(v) && !json_is_array(v))
		return api_fail(err, E_INVALID_PARAMS, "%s must be an array of URLs", key);
	uris = json_array();
	json_array_foreach(v, i, item) {
		if (check_registered_uri(key, base_only, item, i, err) < 0)
			goto out;
		if (string_in_array(uris, json_string_value(item)))
			continue;
		if (json_array_size(uris) == CLIENT_REDIRECT_URIS_MAX) {
			api_fail(err, E_INVALID_PARAMS, "%s must hold at most %d URLs", key,
			         CLIENT_REDIRECT_URIS_MAX);
			goto out;
		}
		json_array_append_new(uris, json_string(json_string_value(item)));
	}
	/* jansson allocates with xmalloc (main.c): out of memory aborts there */
	out->json = json_dumps(uris, JSON_COMPACT);
	rc = 0;
out:
	json_decref(uris);
	return rc;
}

/*
 * body.allowed_role_ids (docs/signin.md §"Access rules"): absent ->
 * out->present false; null or [] -> "[]" (everyone); an array of IDs ->
 * their JSON text, duplicates dropped. Whether each is a role of the
 * project is the store's to say, in the write's transaction.
 */
static int read_role_ids(const json_t *body, struct uri_list *out, struct api_error *err)
{
	struct jbody_id_list ids = ID_LIST_INIT;
	json_t *list;

	out->json = NULL;
	if (jbody_read_id_list(body, "allowed_role_ids", CLIENT_ALLOWED_ROLES_MAX, &ids, err) < 0) {
		jbody_id_list_release(&ids);
		return -1;
	}
	out->present = ids.present;
	if (ids.present) {
		list = json_array();
		for (size_t i = 0; i < ids.count; i++)
			json_array_append_new(list, json_string(ids.ids[i]));
		out->json = json_dumps(list, JSON_COMPACT);
		json_decref(list);
	}
	jbody_id_list_release(&ids);
	return 0;
}

/* OIDC Back-Channel Logout 1.0 §2.2: an absolute http or https URL, which
 * MUST NOT include a fragment; null or "" clears it. */
static const struct str_rule backchannel_rule = {
	.key = "backchannel_logout_uri", .max_chars = URL_MAX_CHARS, .check = CHECK_URL,
};

static int read_backchannel_uri(const json_t *body, struct str_field *out,
                                struct api_error *err)
{
	if (jbody_read_string(body, &backchannel_rule, out, err) < 0)
		return -1;
	if (out->state == FIELD_SET && strchr(out->value, '#'))
		return api_fail(err, E_INVALID_PARAMS,
		                "backchannel_logout_uri must not contain a fragment");
	return 0;
}

/* body[key], one of the n values of choices (docs/tokens.md §"Client authentication"): absent ->
 * *out NULL; one of them -> *out that static string; anything else, null
 * too, is invalid_params naming them. */
static int read_choice(const json_t *body, const char *key, const char *const *choices,
                       size_t n, const char **out, struct api_error *err)
{
	const json_t *v = json_object_get(body, key);
	char names[96] = "";

	*out = NULL;
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (json_is_string(v) && strcmp(json_string_value(v), choices[i]) == 0) {
			*out = choices[i];
			return 0;
		}
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
		         choices[i]);
	}
	return api_fail(err, E_INVALID_PARAMS, "%s must be one of %s", key, names);
}

/* docs/tokens.md §"Client authentication": how the client proves who it is at the token endpoint, and
 * how its ID tokens are signed (§7); the first of each is the default. */
static const char *const auth_methods[] = {
	CLIENT_AUTH_METHOD_DEFAULT, "client_secret_basic", "client_secret_post",
};
static const char *const id_token_algs[] = { CLIENT_ID_TOKEN_ALG_DEFAULT, "ES256" };

/* docs/api.md §"Records": the client record, whose other fields a body may
 * carry back (ignored). Not client_secret: a secret is never set by a
 * caller, and one sent is refused rather than dropped. */
static const char *const client_record[] = {
	"id", "name", "description", "is_active", "permission_ids", "redirect_uris",
	"post_logout_redirect_uris", "backchannel_logout_uri", "token_endpoint_auth_method",
	"id_token_signed_response_alg", "forward_auth_urls", "device_flow", "allowed_role_ids",
	"consent_required", "created_at",
	"updated_at", NULL,
};
#define CLIENT_TAKEN "name", "description", "permission_ids", "redirect_uris", \
	"post_logout_redirect_uris", "backchannel_logout_uri", "token_endpoint_auth_method", \
	"id_token_signed_response_alg", "forward_auth_urls", "device_flow", "allowed_role_ids", \
	"consent_required"
const struct input_names clients_create_names = {
	.taken = (const char *const[]){ CLIENT_TAKEN, NULL }, .ignored = client_record,
};
const struct input_names clients_update_names = {
	.taken = (const char *const[]){ CLIENT_TAKEN, "is_active", NULL }, .ignored = client_record,
};
const char *const clients_list_query[] = { LIST_QUERY_NAMES, LIST_SORT_NAMES, "is_active", NULL };

/* On update, name and is_active are required (docs/api.md §"Conventions"). */
int clients_read_body(const json_t *body, bool update, struct client_body *b,
                      struct api_error *err)
{
	if (jbody_read_string(body, &name_rule, &b->name, err) < 0)
		return -1;
	if (update && jbody_read_bool(body, "is_active", true, &b->is_active, err) < 0)
		return -1;
	if (jbody_read_string(body, &description_rule, &b->description, err) < 0 ||
	    jbody_read_id_list(body, "permission_ids", CLIENT_PERMISSION_IDS_MAX,
	                      &b->permission_ids, err) < 0 ||
	    read_uri_list(body, "redirect_uris", false, &b->redirect_uris, err) < 0 ||
	    read_uri_list(body, "post_logout_redirect_uris", false, &b->post_logout_redirect_uris,
	                  err) < 0 ||
	    read_uri_list(body, "forward_auth_urls", true, &b->forward_auth_urls, err) < 0 ||
	    read_backchannel_uri(body, &b->backchannel_logout_uri, err) < 0 ||
	    read_choice(body, "token_endpoint_auth_method", auth_methods,
	                sizeof auth_methods / sizeof auth_methods[0],
	                &b->token_endpoint_auth_method, err) < 0 ||
	    read_choice(body, "id_token_signed_response_alg", id_token_algs,
	                sizeof id_token_algs / sizeof id_token_algs[0],
	                &b->id_token_signed_response_alg, err) < 0 ||
	    jbody_read_bool(body, "device_flow", false, &b->device_flow, err) < 0 ||
	    read_role_ids(body, &b->allowed_role_ids, err) < 0 ||
	    jbody_read_bool(body, "consent_required", false, &b->consent_required, err) < 0)
		return -1;
	return 0;
}

struct client_fields clients_fields_of(const struct client_body *b, bool update)
{
	return (struct client_fields){
		.name = b->name.value,
		.is_active = b->is_active == 1,
		.set_description = !update || b->description.state != FIELD_ABSENT,
		.description = b->description.value,
		.set_permissions = !update || b->permission_ids.present,
		.permission_ids = &b->permission_ids,
		.set_redirect_uris = !update || b->redirect_uris.present,
		.redirect_uris = b->redirect_uris.json,
		.set_post_logout_redirect_uris = !update || b->post_logout_redirect_uris.present,
		.post_logout_redirect_uris = b->post_logout_redirect_uris.json,
		.set_backchannel_logout_uri = !update || b->backchannel_logout_uri.state != FIELD_ABSENT,
		.backchannel_logout_uri = b->backchannel_logout_uri.value,
		.token_endpoint_auth_method = b->token_endpoint_auth_method,
		.id_token_signed_response_alg = b->id_token_signed_response_alg,
		.set_forward_auth_urls = !update || b->forward_auth_urls.present,
		.forward_auth_urls = b->forward_auth_urls.json,
		.set_device_flow = b->device_flow >= 0,
		.device_flow = b->device_flow == 1,
		.set_allowed_role_ids = !update || b->allowed_role_ids.present,
		.allowed_role_ids = b->allowed_role_ids.json,
		.set_consent_required = !update || b->consent_required >= 0,
		.consent_required = b->consent_required == 1,
	};
}

/* The state of a write's steps: the body, the fields the store writes, a
 * new secret (create, rotation) and the record read back. */
struct clients_write {
	struct client_body body;
	struct client_fields fields;
	char *secret;                        /* shown once; wiped */
	char hash[SECRET_HASH_LEN + 1];
	char *record;
};

static void clients_write_release(void *p)
{
	struct clients_write *w = p;

	clients_body_release(&w->body);
	crypto_free_wiped(w->secret);
	free(w->record);
}

static struct clients_write *clients_write_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof(struct clients_write), clients_write_release);
}

/* Stored only as a hash (docs/api.md §"Records"). */
static void new_secret(struct clients_write *w)
{
	w->secret = crypto_new_secret();
	crypto_hash_secret(w->secret, strlen(w->secret), w->hash);
}

/* The body of a create (update false) or an update: invalid_params here,
 * before the store is asked anything. */
static enum step_result read_body(struct flow *f, bool update)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_write *w = clients_write_of(ctx);
	struct api_error err;

	clients_body_init(&w->body);
	if (clients_read_body(ctx->body, update, &w->body, &err) < 0)
		return flow_error(f, &err);
	w->fields = clients_fields_of(&w->body, update);
	return STEP_NEXT;
}

static enum step_result record_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const char *record = ((struct clients_write *)ctx->state)->record;

	http_reply_raw(ctx, 200, "application/json", record, strlen(record));
	return STEP_DONE;
}

/* ---- POST .../clients ---- */

static enum step_result create_read(struct flow *f)
{
	return read_body(f, false);
}

static enum step_result create_write(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_write *w = ctx->state;

	new_secret(w);
	store_client_create(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"), &w->fields, w->hash,
	                    ctx->principal.scope, &w->record, flow_completion(f));
	return STEP_WAIT;
}

/* docs/api.md §"Records": the secret is shown once, here, after the record's
 * fields. It is base64url: no JSON escape. */
static enum step_result create_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_write *w = ctx->state;
	size_t n = strlen(w->record);
	char *body;

	assert(n > 1 && w->record[n - 1] == '}');   /* the store's JSON object */
	body = xasprintf("%.*s,\"client_secret\":\"%s\"}", (int)(n - 1), w->record, w->secret);
	http_reply_raw(ctx, 201, "application/json", body, strlen(body));
	crypto_free_wiped(body);
	return STEP_DONE;
}

flow_step *const clients_create_steps[] = { create_read, create_write, create_reply, NULL };

/* ---- PUT .../clients/{client_id} ---- */

static enum step_result update_read(struct flow *f)
{
	return read_body(f, true);
}

static enum step_result update_write(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_write *w = ctx->state;

	store_client_update(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"),
	                    request_param(ctx, "client_id"), &w->fields, ctx->principal.scope,
	                    &w->record, flow_completion(f));
	return STEP_WAIT;
}

flow_step *const clients_update_steps[] = { update_read, update_write, record_reply, NULL };

/* ---- POST .../clients/{client_id}/secret ---- */

/* docs/api.md §"Records": a new secret replaces the old one at once; the old one
 * no longer authenticates at the token endpoint. */
static enum step_result rotate_write(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_write *w = clients_write_of(ctx);

	new_secret(w);
	store_client_set_secret(ctx->http.srv->store, request_origin(ctx), request_param(ctx, "project_id"),
	                        request_param(ctx, "client_id"), w->hash, ctx->principal.scope,
	                        flow_completion(f));
	return STEP_WAIT;
}

static enum step_result rotate_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	char *body = xasprintf("{\"client_secret\":\"%s\"}",
	                       ((struct clients_write *)ctx->state)->secret);

	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	crypto_free_wiped(body);
	return STEP_DONE;
}

flow_step *const clients_rotate_secret_steps[] = { rotate_write, rotate_reply, NULL };

/* ---- GET and DELETE .../clients/{client_id} (docs/api.md §"Read one and delete") ---- */

static enum step_result get(struct flow *f)
{
	return record_get(f, store_client_get, "client_id");
}

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_client_delete, "client_id");
}

flow_step *const clients_get_steps[] = { get, record_answer, NULL };
flow_step *const clients_delete_steps[] = { delete, record_deleted, NULL };

/* ---- GET .../clients ---- */

struct clients_list {
	struct list_query q;
	struct page page;
};

static void clients_list_release(void *p)
{
	page_release(&((struct clients_list *)p)->page);
}

/* Page, sort, search, and the is_active filter. */
static enum step_result list_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_list *l = request_state(ctx, sizeof *l, clients_list_release);
	struct api_error err;

	l->q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(&ctx->query, sort_keys, CLIENT_SORT__COUNT, &l->q, &err) < 0 ||
	    form_read_bool(&ctx->query, "is_active", &l->q.is_active, &err) < 0)
		return flow_error(f, &err);
	return STEP_NEXT;
}

static enum step_result list_fetch(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_list *l = ctx->state;

	store_client_list(ctx->http.srv->store, request_param(ctx, "project_id"), &l->q, &l->page,
	                  flow_completion(f));
	return STEP_WAIT;
}

static enum step_result list_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct clients_list *l = ctx->state;
	char *body = list_render(&l->q, &l->page);

	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	free(body);
	return STEP_DONE;
}

flow_step *const clients_list_steps[] = { list_read, list_fetch, list_reply, NULL };

/* ---- the write steps, for the console (api_clients.h) ---- */

enum step_result clients_create_read(struct flow *f) { return create_read(f); }
enum step_result clients_create_write(struct flow *f) { return create_write(f); }
enum step_result clients_update_read(struct flow *f) { return update_read(f); }
enum step_result clients_update_write(struct flow *f) { return update_write(f); }
enum step_result clients_rotate_write(struct flow *f) { return rotate_write(f); }

const char *clients_write_record(struct request_ctx *ctx)
{
	return clients_write_of(ctx)->record;
}

const char *clients_write_secret(struct request_ctx *ctx)
{
	return clients_write_of(ctx)->secret;
}
