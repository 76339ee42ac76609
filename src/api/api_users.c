/*
 * The users endpoints (docs/api.md §"Users", docs/api.md §"Conventions", §"Records") as
 * steps: read the request, ask the store, answer with its record. Create
 * and update hash a password on the worker pool between two steps, and only
 * after the checks a request can fail, so that one bound to fail costs no
 * hash; the write repeats those checks in its transaction. A password is
 * never logged, echoed or returned, and its copies are wiped.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>

#include "api_records.h"
#include "api_users.h"
#include "auth.h"
#include "crypto.h"
#include "form.h"
#include "jbody.h"
#include "list_params.h"
#include "metrics.h"
#include "passwords.h"
#include "request.h"
#include "store_factors.h"
#include "store_users.h"
#include "config.h"
#include "store_clients.h"
#include "id_token.h"
#include "signin.h"
#include "util.h"
#include "validate.h"

/* The users list's sort_by values, by enum user_sort. */
static const char *const sort_keys[USER_SORT__COUNT] = {
	[USER_SORT_CREATED_AT] = "created_at",
	[USER_SORT_UPDATED_AT] = "updated_at",
	[USER_SORT_DISPLAY_NAME] = "display_name",
	[USER_SORT_EMAIL] = "email",
	[USER_SORT_IS_ACTIVE] = "is_active",
	[USER_SORT_EXTERNAL_USER_ID] = "external_user_id",
	[USER_SORT_ROLE_NAME] = "role_name",
};

/* docs/api.md §"Users" and §"Limits"; §"Field values" for URLs, emails and passwords. */
static const struct str_rule rule_display_name = {
	"display_name", true, 0, NAME_MAX_CHARS, CHECK_NONE };
static const struct str_rule rule_avatar_url = {
	"avatar_url", false, 0, URL_MAX_CHARS, CHECK_URL };
static const struct str_rule rule_external_user_id = {
	"external_user_id", false, 0, EXTERNAL_ID_MAX_CHARS, CHECK_NONE };
static const struct str_rule rule_email = {
	"email", false, 0, EMAIL_MAX_CHARS, CHECK_EMAIL };
static const struct str_rule rule_password = {
	"password", false, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS, CHECK_NONE };
/* No ID we hand out is longer; a longer one is a malformed request. */
static const struct str_rule rule_role_id = {
	"role_id", false, 0, ID_MAX_CHARS, CHECK_NONE };

/* docs/api.md §"Records": the user record, whose other fields a body may
 * carry back (ignored): PUT /api/v1/users/current ignores the ones a user
 * cannot change. */
static const char *const user_record[] = {
	"id", "display_name", "avatar_url", "external_user_id", "email", "email_verified",
	"is_active", "role_id", "role_name", "second_factors", "created_at", "updated_at", NULL,
};
#define USER_TAKEN "display_name", "avatar_url", "external_user_id", "email", "password", "role_id"
const struct input_names users_create_names = {
	.taken = (const char *const[]){ USER_TAKEN, NULL }, .ignored = user_record,
};
const struct input_names users_update_names = {
	.taken = (const char *const[]){ USER_TAKEN, "is_active", NULL }, .ignored = user_record,
};
const struct input_names users_current_names = {
	.taken = (const char *const[]){ "display_name", "avatar_url", "email", "password", NULL },
	.ignored = user_record,
};
const char *const users_list_query[] = {
	LIST_QUERY_NAMES, LIST_SORT_NAMES, "is_active", "role_id", NULL,
};
const char *const users_external_query[] = { "include_permissions", NULL };

/* A create or update from its first step to its answer. The strings of f
 * are borrowed from ctx->body, which lives until the answer. */
struct user_write_state {
	enum user_write kind;
	const char *project_id;   /* borrowed from the path or the token */
	const char *user_id;      /* NULL on create */
	/* The caller's token scope, borrowed, for the no-escalation rule
	 * (store_grants.h); NULL for PUT /users/current, where a user changes
	 * their own profile and no role. */
	const char *scope;
	struct user_fields f;
	char *password;           /* owned: a copy for the hash, wiped once handed over */
	char *password_hash;      /* owned: the argon2 encoding, once hashed */
	char *record;             /* the answer */
};

static void user_write_release(void *p)
{
	struct user_write_state *w = p;

	crypto_free_wiped(w->password);
	crypto_free_wiped(w->password_hash);
	free(w->record);
}

/* PUT /api/v1/users/current (docs/api.md §"Users"): email is required; the caller cannot
 * touch external_user_id, role_id or is_active, which are kept. They are
 * fields of the record this body does not take: the router let them through
 * (users_current_names) and they are not read. */
static int current_body_check(struct user_fields *f, struct api_error *err)
{
	if (f->email.state != FIELD_SET)
		return api_fail(err, E_INVALID_PARAMS, "email is required.");
	return 0;
}

/* /api/v1/users/current speaks of the token's user; a client_credentials
 * token has none. */
static int current_user_check(const struct principal *p, struct api_error *err)
{
	if (!p->user_id)
		return api_fail(err, E_USER_NOT_FOUND, "The token does not belong to a user.");
	return 0;
}

int users_current_recent_check(long long auth_time, long long now,
                               const struct str_field *password, struct user_fields *f,
                               struct api_error *err)
{
	/* every app of the project now holds user tokens: none may take the
	 * account over without the user's fresh password */
	bool recent = auth_time > 0 && now - auth_time <= USERS_RECENT_SIGNIN_S;

	f->email_locked = !recent;
	if (!recent && password->state == FIELD_SET)
		return api_fail(err, E_INSUFFICIENT_PERMISSION,
		                "Setting a password needs a recent sign-in.");
	return 0;
}

/* PUT /api/v1/users/current, after its body: the token's user, who sets
 * their own email (not verified, docs/signin.md §"email_verified") and changes it or the
 * password only after a recent sign-in. */
static int current_write_check(const struct principal *p, const struct str_field *password,
                               struct user_fields *f, struct api_error *err)
{
	f->email_by_user = true;
	if (current_user_check(p, err) < 0)
		return -1;
	return users_current_recent_check(p->auth_time, (long long)time(NULL), password, f, err);
}

/* The rule on the external ID (docs/api.md §"Users") is read on the body, on update too:
 * without an email the body must carry an external_user_id. Create rule 2:
 * an email needs a password. */
int users_read_body(const json_t *body, enum user_write kind, struct user_fields *f,
                    struct str_field *password, struct api_error *err)
{
	bool is_update = kind == USER_UPDATE, is_current = kind == USER_CURRENT;
	struct str_field display_name;

	f->is_active = -1;   /* create: ignored, new users are active */
	f->external_user_id = f->role_id = (struct str_field){ FIELD_ABSENT, NULL };
	if (jbody_read_string(body, &rule_display_name, &display_name, err) < 0 ||
	    (is_update && jbody_read_bool(body, "is_active", true, &f->is_active, err) < 0) ||
	    jbody_read_string(body, &rule_avatar_url, &f->avatar_url, err) < 0 ||
	    (!is_current &&
	     jbody_read_string(body, &rule_external_user_id, &f->external_user_id, err) < 0) ||
	    jbody_read_string(body, &rule_email, &f->email, err) < 0 ||
	    jbody_read_string(body, &rule_password, password, err) < 0 ||
	    (!is_current && jbody_read_string(body, &rule_role_id, &f->role_id, err) < 0))
		return -1;
	f->display_name = display_name.value;
	if (kind == USER_CURRENT)
		return current_body_check(f, err);
	if (f->email.state != FIELD_SET && f->external_user_id.state != FIELD_SET)
		return api_fail(err, E_INVALID_PARAMS,
		                "external_user_id is required when email is not given.");
	if (!is_update && f->email.state == FIELD_SET && password->state != FIELD_SET)
		return api_fail(err, E_INVALID_PARAMS, "password is required when email is given.");
	return 0;
}

/* Wipes the body's password string in place and drops it, so that the only
 * copy left is the one handed to the hash (which wipes its own). */
static void body_wipe_password(json_t *body)
{
	json_t *v = json_object_get(body, "password");

	if (json_is_string(v)) {
		OPENSSL_cleanse((char *)json_string_value(v), json_string_length(v));
		json_object_del(body, "password");
	}
}

/* The first step: the body (invalid_params), and a copy of the password
 * for the hash; the body's own is wiped. */
static enum step_result write_read(struct flow *f, enum user_write kind)
{
	struct request_ctx *ctx = request_of(f);
	struct user_write_state *w = request_state(ctx, sizeof *w, user_write_release);
	struct str_field password = { FIELD_ABSENT, NULL };
	struct api_error err;
	int rc;

	w->kind = kind;
	if (kind == USER_CURRENT) {
		w->project_id = ctx->principal.project_id;
		w->user_id = ctx->principal.user_id;
	} else {
		w->project_id = request_param(ctx, "project_id");
		w->user_id = kind == USER_UPDATE ? request_param(ctx, "user_id") : NULL;
		w->scope = ctx->principal.scope;
	}
	rc = users_read_body(ctx->body, kind, &w->f, &password, &err);
	if (rc == 0 && kind == USER_CURRENT)
		rc = current_write_check(&ctx->principal, &password, &w->f, &err);
	if (rc == 0 && password.state == FIELD_SET)
		w->password = xstrdup(password.value);
	body_wipe_password(ctx->body);
	return rc < 0 ? flow_error(f, &err) : STEP_NEXT;
}

enum step_result users_create_read(struct flow *f)
{
	return write_read(f, USER_CREATE);
}

enum step_result users_update_read(struct flow *f)
{
	return write_read(f, USER_UPDATE);
}

enum step_result users_current_read(struct flow *f)
{
	return write_read(f, USER_CURRENT);
}

/* Before a hash, the checks against the store (user_not_found,
 * role_not_found, insufficient_permission, conflicts). Without a password
 * the write's own checks, in the same order, are all it takes. */
enum step_result users_write_check(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_write_state *w = ctx->state;

	if (!w->password)
		return STEP_NEXT;
	store_user_check(ctx->http.srv->store, w->project_id, w->user_id, &w->f, w->scope,
	                 flow_completion(f));
	return STEP_WAIT;
}

/* passwords_hash_done: on the loop, now or later; resumes the request. */
static void password_hashed(void *arg, char *encoded)
{
	struct request_ctx *ctx = arg;
	struct user_write_state *w = ctx->state;
	struct api_error err;

	if (!encoded) {
		api_fail(&err, E_UNAVAILABLE,
		         "The password could not be hashed; try again shortly.");
		flow_resume(&ctx->flow, &err);
		return;
	}
	w->password_hash = encoded;
	w->f.password_hash = encoded;
	flow_resume(&ctx->flow, NULL);
}

enum step_result users_write_hash(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_write_state *w = ctx->state;
	struct api_error err;
	int rc;

	if (!w->password)
		return STEP_NEXT;
	rc = passwords_hash(ctx->http.srv->passwords, w->password, password_hashed, ctx, &err);
	crypto_free_wiped(w->password);   /* the hash took its own copy */
	w->password = NULL;
	return rc < 0 ? flow_error(f, &err) : STEP_WAIT;
}

enum step_result users_write_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_write_state *w = ctx->state;

	if (w->kind == USER_CREATE)
		store_user_create(ctx->http.srv->store, request_origin(ctx), w->project_id, &w->f, w->scope, &w->record,
		                  flow_completion(f));
	else
		store_user_update(ctx->http.srv->store, request_origin(ctx), w->project_id, w->user_id, &w->f, w->scope,
		                  &w->record, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result write_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_write_state *w = ctx->state;

	http_reply_raw(ctx, w->kind == USER_CREATE ? 201 : 200, "application/json", w->record,
	               strlen(w->record));
	return STEP_DONE;
}

const char *users_write_record(struct request_ctx *ctx)
{
	return ((struct user_write_state *)ctx->state)->record;
}

flow_step *const users_create_steps[] = {
	users_create_read, users_write_check, users_write_hash, users_write_store, write_reply, NULL,
};
flow_step *const users_update_steps[] = {
	users_update_read, users_write_check, users_write_hash, users_write_store, write_reply, NULL,
};
flow_step *const users_update_current_steps[] = {
	users_current_read, users_write_check, users_write_hash, users_write_store, write_reply, NULL,
};

/* ---- the list ---- */

struct user_list_state {
	struct list_query q;
	struct page page;
};

static void user_list_release(void *p)
{
	page_release(&((struct user_list_state *)p)->page);
}

int users_list_read_query(const struct evkeyvalq *query, struct list_query *q,
                          struct api_error *err)
{
	*q = (struct list_query)LIST_QUERY_INIT;
	if (list_read_query(query, sort_keys, USER_SORT__COUNT, q, err) < 0 ||
	    form_read_bool(query, "is_active", &q->is_active, err) < 0 ||
	    form_get(query, "role_id", &q->role_id, err) < 0)
		return -1;
	if (q->role_id && !*q->role_id)
		q->role_id = NULL;
	return 0;
}

const char *users_sort_key(size_t sort)
{
	return sort < USER_SORT__COUNT ? sort_keys[sort] : NULL;
}

/* GET .../users: page, sort, search, and the is_active and role_id filters. */
static enum step_result list_read(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_list_state *l = request_state(ctx, sizeof *l, user_list_release);
	struct api_error err;

	if (users_list_read_query(&ctx->query, &l->q, &err) < 0)
		return flow_error(f, &err);
	store_user_list(ctx->http.srv->store, request_param(ctx, "project_id"), &l->q, &l->page,
	                flow_completion(f));
	return STEP_WAIT;
}

static enum step_result list_reply(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct user_list_state *l = ctx->state;
	char *body = list_render(&l->q, &l->page);

	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	free(body);
	return STEP_DONE;
}

flow_step *const users_list_steps[] = { list_read, list_reply, NULL };

/* ---- one user: by external ID, by ID, the token's own; delete ---- */

/* GET .../users/external/{external_user_id}[?include_permissions=true]
 * (docs/api.md §"Records"): "permissions" only when asked for. */
static enum step_result external_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct record_read *r = record_read_state(ctx);
	struct api_error err;
	int with_permissions;

	if (form_read_bool(&ctx->query, "include_permissions", &with_permissions, &err) < 0)
		return flow_error(f, &err);
	store_user_get_external(ctx->http.srv->store, request_param(ctx, "project_id"),
	                        request_param(ctx, "external_user_id"), with_permissions == 1,
	                        &r->record, flow_completion(f));
	return STEP_WAIT;
}

flow_step *const users_get_external_steps[] = { external_get, record_answer, NULL };

static enum step_result get(struct flow *f)
{
	return record_get(f, store_user_get, "user_id");
}

static enum step_result delete(struct flow *f)
{
	return record_delete(f, store_user_delete, "user_id");
}

flow_step *const users_get_steps[] = { get, record_answer, NULL };
flow_step *const users_delete_steps[] = { delete, record_deleted, NULL };

/* The user's factors go and its sessions end (store_factors_reset). */
static enum step_result factors_reset(struct flow *f)
{
	return record_delete(f, store_factors_reset, "user_id");
}

static enum step_result factors_reset_done(struct flow *f)
{
	metrics_factors_reset();
	return record_deleted(f);
}

flow_step *const users_factors_reset_steps[] = { factors_reset, factors_reset_done, NULL };

enum step_result users_factors_reset_write(struct flow *f)
{
	return factors_reset(f);
}

/* GET /api/v1/users/current (docs/api.md §"Current user"): the token's user, answered
 * as PUT answers a token that has none. */
static enum step_result current_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct api_error err;

	if (current_user_check(&ctx->principal, &err) < 0)
		return flow_error(f, &err);
	store_user_get(ctx->http.srv->store, ctx->principal.project_id, ctx->principal.user_id,
	               &record_read_state(ctx)->record, flow_completion(f));
	return STEP_WAIT;
}

flow_step *const users_get_current_steps[] = { current_get, record_answer, NULL };

/* ---- BYOU codes ---- */

/* POST .../users/external/{external_user_id}/authorization-codes: the
 * project's backend vouches for a BYOU user (docs/signin.md §"BYOU codes"). Checks: the
 * body (invalid_params), user_not_found, client_not_found, the states that
 * need the records (invalid_params), then insufficient_permission: the code
 * yields a token with the user's role's permissions, so the caller must
 * carry those of them that are default-resource ones (docs/api.md §"No escalation", no
 * escalation). Each step judges what the one before it read, then starts
 * the next read. The body may carry scope and nonce, as an authorization
 * request does (docs/signin.md §"BYOU codes"): with openid, the code's sign-in is an
 * OIDC one, and its code grant answers an ID token with that nonce. */
enum byou_field {
	BYOU_CLIENT_ID, BYOU_REDIRECT_URI, BYOU_CHALLENGE, BYOU_METHOD, BYOU_SCOPE, BYOU_NONCE,
	BYOU__N
};

struct byou_code {
	struct str_field f[BYOU__N];
	char *oidc_scope;          /* the OIDC scopes asked for, or NULL (id_token.h) */
	struct store_user_signin user;
	struct client_auth client;
	bool registered;
	struct code_mint mint;
	char *code;
};

static void byou_code_release(void *state)
{
	struct byou_code *b = state;

	store_user_signin_release(&b->user);
	free(b->oidc_scope);
	code_mint_release(&b->mint);
	crypto_free_wiped(b->code);
}

/* The body's names: the rules' keys; the answer {code, expires_in} holds
 * nothing a caller sends back. */
const struct input_names byou_code_names = {
	.taken = (const char *const[]){
		"client_id", "redirect_uri", "code_challenge", "code_challenge_method", "scope",
		"nonce", NULL,
	},
};

static enum step_result byou_read(struct flow *f)
{
	static const struct str_rule rules[BYOU__N] = {
		[BYOU_CLIENT_ID] = { .key = "client_id", .required = true, .max_chars = ID_MAX_CHARS },
		[BYOU_REDIRECT_URI] = { .key = "redirect_uri", .required = true, .check = CHECK_URL },
		[BYOU_CHALLENGE] = { .key = "code_challenge", .required = true, .max_chars = 128 },
		[BYOU_METHOD] = { .key = "code_challenge_method", .required = true, .max_chars = 16 },
		/* docs/signin.md §"BYOU codes": as the authorization request's */
		[BYOU_SCOPE] = { .key = "scope", .max_chars = 1024 },
		[BYOU_NONCE] = { .key = "nonce", .max_chars = 512 },
	};
	struct request_ctx *ctx = request_of(f);
	struct byou_code *b = request_state(ctx, sizeof *b, byou_code_release);
	struct api_error err;

	for (size_t i = 0; i < BYOU__N; i++)
		if (jbody_read_string(ctx->body, &rules[i], &b->f[i], &err) < 0)
			return flow_error(f, &err);
	if (!validate_code_challenge(b->f[BYOU_CHALLENGE].value))
		return flow_fail(f, E_INVALID_PARAMS, "code_challenge must be 43 to 128 characters of"
		                 " [A-Za-z0-9-._~].");
	if (strcmp(b->f[BYOU_METHOD].value, "S256") != 0)
		return flow_fail(f, E_INVALID_PARAMS, "code_challenge_method must be S256.");
	b->oidc_scope = id_token_scopes_granted(b->f[BYOU_SCOPE].value);
	return STEP_NEXT;
}

static enum step_result byou_user_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct byou_code *b = ctx->state;

	store_byou_user(ctx->http.srv->store, request_param(ctx, "project_id"),
	                request_param(ctx, "external_user_id"), &b->user, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result byou_client_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct byou_code *b = ctx->state;

	if (!b->user.found)
		return flow_fail(f, E_USER_NOT_FOUND, "No user of this project has that external ID.");
	store_client_lookup(ctx->http.srv->store, b->f[BYOU_CLIENT_ID].value, &b->client,
	                    flow_completion(f));
	return STEP_WAIT;
}

static enum step_result byou_redirect_get(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct byou_code *b = ctx->state;

	if (!b->client.found || strcmp(b->client.project_id, request_param(ctx, "project_id")) != 0)
		return flow_fail(f, E_CLIENT_NOT_FOUND, "The client does not exist in this project.");
	if (!b->user.is_active || !b->client.is_active)
		return flow_fail(f, E_INVALID_PARAMS, "The user or the client is not active.");
	store_client_redirect_registered(ctx->http.srv->store, b->f[BYOU_CLIENT_ID].value,
	                                 b->f[BYOU_REDIRECT_URI].value, &b->registered,
	                                 flow_completion(f));
	return STEP_WAIT;
}

/* docs/signin.md §"BYOU codes": a user the client's access rule
 * does not let in is invalid_params here, not a redirect. */
static void byou_minted(void *arg, const struct api_error *err)
{
	struct api_error refused;

	if (err && err->api_code == E_ACCESS_DENIED) {
		api_fail(&refused, E_INVALID_PARAMS,
		         "The user's role may not sign in to this client (allowed_role_ids).");
		err = &refused;
	}
	flow_resume(arg, err);
}

/* The redirect URI, then the code, whose write checks no escalation
 * (store_grants.h) after the client's access rule (access_rules.h). */
static enum step_result byou_mint(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct byou_code *b = ctx->state;
	const struct code_request req = {
		.project_id = request_param(ctx, "project_id"), .client_id = b->f[BYOU_CLIENT_ID].value,
		.user_id = b->user.user_id, .redirect_uri = b->f[BYOU_REDIRECT_URI].value,
		.code_challenge = b->f[BYOU_CHALLENGE].value, .scope = b->oidc_scope,
		.nonce = b->oidc_scope ? b->f[BYOU_NONCE].value : NULL,
		.grant_scope = ctx->principal.scope, .consent_skip = true,
		.address = request_event_address(ctx),
	};

	if (!b->registered)
		return flow_fail(f, E_INVALID_PARAMS, "redirect_uri is not registered on the client.");
	signin_code_mint(&b->mint, ctx->http.srv, &req, &b->code,
	                 (struct completion){ byou_minted, f });
	return STEP_WAIT;
}

static enum step_result byou_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct byou_code *b = ctx->state;

	http_reply_json(ctx, 201, json_pack("{s:s, s:I}", "code", b->code,
	                "expires_in", (json_int_t)ctx->http.srv->cfg->code_ttl_s));
	return STEP_DONE;
}

flow_step *const byou_code_steps[] = {
	byou_read, byou_user_get, byou_client_get, byou_redirect_get, byou_mint, byou_answer, NULL,
};
