/*
 * The clients endpoints (SPEC.md "Client endpoints", CONTRACT.md §3-§4).
 * The router has checked the token, the project and the permission; these
 * handlers check the body or query (invalid_params), then let the store
 * decide client_not_found, some_permissions_not_found and
 * insufficient_permission (no escalation), in that order.
 * A client secret appears only in the answer that issues it, never in a
 * log, an error or a record.
 */
#include <stdlib.h>
#include <string.h>

#include "api_clients.h"
#include "crypto.h"
#include "form.h"
#include "json_util.h"
#include "listing.h"
#include "store_clients.h"
#include "util.h"
#include "validate.h"

/* Caps that keep one request's work bounded; SPEC.md names none. */
#define CLIENT_PERMISSION_IDS_MAX 1000
#define CLIENT_REDIRECT_URIS_MAX 20

static const struct str_rule name_rule = {
	.key = "name", .required = true, .max_chars = NAME_MAX_CHARS,
};
static const struct str_rule description_rule = {
	.key = "description", .max_chars = DESCRIPTION_MAX_CHARS,
};

/* CONTRACT.md §3: the clients list's sort keys, created_at the default. */
static const char *const clients_sort_keys[CLIENT_SORT__COUNT] = {
	[CLIENT_SORT_CREATED_AT] = "created_at",
	[CLIENT_SORT_UPDATED_AT] = "updated_at",
	[CLIENT_SORT_NAME] = "name",
	[CLIENT_SORT_IS_ACTIVE] = "is_active",
};

void clients_body_init(struct client_body *b)
{
	memset(b, 0, sizeof *b);
	b->is_active = -1;
	b->permission_ids = (struct id_list)ID_LIST_INIT;
}

void clients_body_release(struct client_body *b)
{
	id_list_release(&b->permission_ids);
	free(b->redirect_uris);
	b->redirect_uris = NULL;
}

/*
 * One registered redirect URI: an absolute http or https URL of at most
 * URL_MAX_CHARS, without a fragment (RFC 6749 §3.1.2: "The endpoint URI
 * MUST NOT include a fragment component"). The error names the position,
 * never the value.
 */
static int check_redirect_uri(const json_t *item, size_t i, struct api_error *err)
{
	const char *s = json_string_value(item);
	size_t len = json_string_length(item);

	if (!json_is_string(item))
		return api_fail(err, E_INVALID_PARAMS, "redirect_uris[%zu] must be a string", i);
	if (len == 0)
		return api_fail(err, E_INVALID_PARAMS, "redirect_uris[%zu] must not be empty", i);
	if (strlen(s) != len || !utf8_valid(s, len))
		return api_fail(err, E_INVALID_PARAMS,
		                "redirect_uris[%zu] must be UTF-8 text without U+0000", i);
	if (utf8_chars(s) > URL_MAX_CHARS)
		return api_fail(err, E_INVALID_PARAMS,
		                "redirect_uris[%zu] must be at most %d characters", i, URL_MAX_CHARS);
	if (strchr(s, '#'))
		return api_fail(err, E_INVALID_PARAMS,
		                "redirect_uris[%zu] must not contain a fragment", i);
	if (!validate_http_url(s))
		return api_fail(err, E_INVALID_PARAMS,
		                "redirect_uris[%zu] must be an absolute http or https URL", i);
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
 * body.redirect_uris: absent -> *present false; null or [] -> "[]"; an array
 * of valid URIs -> their JSON text, duplicates dropped, order kept. Anything
 * else is invalid_params.
 */
static int read_redirect_uris(const json_t *body, bool *present, char **out,
                              struct api_error *err)
{
	const json_t *v = json_object_get(body, "redirect_uris"), *item;
	json_t *uris;
	size_t i;
	int rc = -1;

	*present = v != NULL;
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_null(v) && !json_is_array(v))
		return api_fail(err, E_INVALID_PARAMS, "redirect_uris must be an array of URLs");
	uris = json_array();
	json_array_foreach(v, i, item) {
		if (check_redirect_uri(item, i, err) < 0)
			goto out;
		if (string_in_array(uris, json_string_value(item)))
			continue;
		if (json_array_size(uris) == CLIENT_REDIRECT_URIS_MAX) {
			api_fail(err, E_INVALID_PARAMS, "redirect_uris must hold at most %d URLs",
			         CLIENT_REDIRECT_URIS_MAX);
			goto out;
		}
		json_array_append_new(uris, json_string(json_string_value(item)));
	}
	*out = json_dumps(uris, JSON_COMPACT);
	if (!*out)
		abort();   /* out of memory: as xmalloc does */
	rc = 0;
out:
	json_decref(uris);
	return rc;
}

/* On update, name and is_active are required (CONTRACT.md §3). */
int clients_read_body(const json_t *body, bool update, struct client_body *b,
                      struct api_error *err)
{
	if (json_read_string(body, &name_rule, &b->name, err) < 0)
		return -1;
	if (update && json_read_bool(body, "is_active", true, &b->is_active, err) < 0)
		return -1;
	if (json_read_string(body, &description_rule, &b->description, err) < 0 ||
	    json_read_id_list(body, "permission_ids", CLIENT_PERMISSION_IDS_MAX,
	                      &b->permission_ids, err) < 0 ||
	    read_redirect_uris(body, &b->redirect_uris_present, &b->redirect_uris, err) < 0)
		return -1;
	return 0;
}

/* What the store writes: on create every field, on update only those the
 * body carries (an omitted optional field keeps its value). */
static struct client_fields client_fields_of(const struct client_body *b, bool update)
{
	return (struct client_fields){
		.name = b->name.value,
		.is_active = b->is_active == 1,
		.set_description = !update || b->description.state != FIELD_ABSENT,
		.description = b->description.value,
		.set_permissions = !update || b->permission_ids.present,
		.permission_ids = &b->permission_ids,
		.set_redirect_uris = !update || b->redirect_uris_present,
		.redirect_uris = b->redirect_uris,
	};
}

/* An answer that carries a client secret must not be stored by a cache
 * (as RFC 6749 §5.1 asks of token answers). */
static void reply_with_secret(struct request_ctx *ctx, int status, json_t *body)
{
	http_add_header(ctx, "Cache-Control", "no-store");
	http_add_header(ctx, "Pragma", "no-cache");
	http_reply_json(ctx, status, body);
}

void clients_create(struct request_ctx *ctx)
{
	struct client_body b;
	struct client_fields f;
	struct api_error err;
	char hash[SECRET_HASH_LEN + 1];
	char *secret = NULL;
	json_t *rec;

	clients_body_init(&b);
	if (clients_read_body(ctx->body, false, &b, &err) < 0)
		goto fail;
	f = client_fields_of(&b, false);
	secret = crypto_new_secret();
	crypto_hash_secret(secret, strlen(secret), hash);
	rec = store_client_create(ctx->srv->store, request_param(ctx, "project_id"), &f, hash,
	                          ctx->principal.scope, &err);
	if (!rec)
		goto fail;
	/* CONTRACT.md §4: the secret is shown once, here. */
	json_object_set_new(rec, "client_secret", json_string(secret));
	reply_with_secret(ctx, 201, rec);
	goto out;
fail:
	http_reply_error(ctx, &err);
out:
	crypto_wipe_free(secret);
	clients_body_release(&b);
}

void clients_update(struct request_ctx *ctx)
{
	struct client_body b;
	struct client_fields f;
	struct api_error err;
	json_t *rec;

	clients_body_init(&b);
	if (clients_read_body(ctx->body, true, &b, &err) < 0)
		goto fail;
	f = client_fields_of(&b, true);
	rec = store_client_update(ctx->srv->store, request_param(ctx, "project_id"),
	                          request_param(ctx, "client_id"), &f, ctx->principal.scope, &err);
	if (!rec)
		goto fail;
	http_reply_json(ctx, 200, rec);
	goto out;
fail:
	http_reply_error(ctx, &err);
out:
	clients_body_release(&b);
}

void clients_list(struct request_ctx *ctx)
{
	struct list_params p = LIST_PARAMS_INIT;
	struct api_error err;
	long long total = 0;
	int is_active;
	json_t *data;

	if (list_read_params(&ctx->query, clients_sort_keys, CLIENT_SORT__COUNT, &p, &err) < 0 ||
	    form_read_bool(&ctx->query, "is_active", &is_active, &err) < 0)
		goto fail;
	data = store_client_list(ctx->srv->store, request_param(ctx, "project_id"), &p, is_active,
	                         &total, &err);
	if (!data)
		goto fail;
	http_reply_json(ctx, 200, list_response(data, &p, total));
	goto out;
fail:
	http_reply_error(ctx, &err);
out:
	list_params_release(&p);
}

/* CONTRACT.md §4: a new secret replaces the old one at once; the old one
 * no longer authenticates at the token endpoint. */
void clients_rotate_secret(struct request_ctx *ctx)
{
	struct api_error err;
	char hash[SECRET_HASH_LEN + 1];
	char *secret = crypto_new_secret();

	crypto_hash_secret(secret, strlen(secret), hash);
	if (store_client_set_secret(ctx->srv->store, request_param(ctx, "project_id"),
	                            request_param(ctx, "client_id"), hash, ctx->principal.scope,
	                            &err) < 0)
		http_reply_error(ctx, &err);
	else
		reply_with_secret(ctx, 200, json_pack("{s:s}", "client_secret", secret));
	crypto_wipe_free(secret);
}
