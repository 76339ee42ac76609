/*
 * The users endpoints (SPEC.md "User endpoints", CONTRACT.md §3-§4). Create
 * and update run in two steps around the password hash, whose callback may
 * come after the handler returned: validate -> hash -> write and answer.
 * A password is never logged, echoed or returned, and its copies are wiped.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include "api_users.h"
#include "crypto.h"
#include "form.h"
#include "json_util.h"
#include "listing.h"
#include "passwords.h"
#include "request.h"
#include "store_users.h"
#include "util.h"
#include "validate.h"

/* SPEC.md "User" and "Limits"; CONTRACT.md §3 for URLs, emails and passwords. */
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

/* What create and update carry from the first step to the second. The
 * strings of f are borrowed from ctx->body, which lives until the reply. */
struct user_job {
	enum user_write kind;
	const char *project_id;   /* borrowed from the path or the token */
	const char *user_id;      /* NULL on create */
	/* The caller's token scope, borrowed, for the no-escalation rule
	 * (store_grants.h); NULL for PUT /users/current, where a user changes
	 * their own profile and no role. */
	const char *scope;
	struct user_fields f;
	char *password_hash;   /* owned: the argon2 encoding, once hashed */
};

static void user_job_release(void *p)
{
	struct user_job *job = p;

	crypto_wipe_free(job->password_hash);
}

/* PUT /api/v1/users/current (SPEC.md): email is required; the caller cannot
 * touch external_user_id, role_id or is_active, which are kept. They are not
 * fields of this body, so like any unknown field they are not even read. */
static int current_body_check(struct user_fields *f, struct api_error *err)
{
	if (f->email.state != FIELD_SET)
		return api_fail(err, E_INVALID_PARAMS, "email is required.");
	return 0;
}

/* SPEC.md rule 1 is read on the body, on update too (CONTRACT.md §3):
 * without an email the body must carry an external_user_id. Create rule 2:
 * an email needs a password. */
int users_read_body(const json_t *body, enum user_write kind, struct user_fields *f,
                    struct str_field *password, struct api_error *err)
{
	bool is_update = kind == USER_UPDATE, is_current = kind == USER_CURRENT;
	struct str_field display_name;

	f->is_active = -1;   /* create: ignored, new users are active */
	f->external_user_id = f->role_id = (struct str_field){ FIELD_ABSENT, NULL };
	if (json_read_string(body, &rule_display_name, &display_name, err) < 0 ||
	    (is_update && json_read_bool(body, "is_active", true, &f->is_active, err) < 0) ||
	    json_read_string(body, &rule_avatar_url, &f->avatar_url, err) < 0 ||
	    (!is_current &&
	     json_read_string(body, &rule_external_user_id, &f->external_user_id, err) < 0) ||
	    json_read_string(body, &rule_email, &f->email, err) < 0 ||
	    json_read_string(body, &rule_password, password, err) < 0 ||
	    (!is_current && json_read_string(body, &rule_role_id, &f->role_id, err) < 0))
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

/* Second step: the store work and the answer. */
static void user_write_finish(struct request_ctx *ctx)
{
	struct user_job *job = ctx->state;
	struct store *st = ctx->srv->store;
	struct api_error err;
	json_t *record;
	int rc;

	if (job->user_id)
		rc = store_user_update(st, job->project_id, job->user_id, &job->f, job->scope, &record,
		                       &err);
	else
		rc = store_user_create(st, job->project_id, &job->f, job->scope, &record, &err);
	if (rc < 0) {
		http_reply_error(ctx, &err);
		return;
	}
	http_reply_json(ctx, job->kind == USER_CREATE ? 201 : 200, record);
}

/* passwords_hash_done: runs on the loop, now or later. */
static void user_password_hashed(void *arg, char *encoded)
{
	struct request_ctx *ctx = arg;
	struct user_job *job = ctx->state;
	struct api_error err;

	if (!encoded) {
		api_fail(&err, E_SYSTEM_ERROR, "The password could not be hashed.");
		http_reply_error(ctx, &err);
		return;
	}
	job->password_hash = encoded;
	job->f.password_hash = encoded;
	user_write_finish(ctx);
}

/*
 * First step of create and update: the body (invalid_params), then the
 * checks against the store (user_not_found, role_not_found,
 * insufficient_permission, conflicts) so that a request bound to fail costs
 * no hash; the write repeats them in its transaction. Then hashes the
 * password, if one was given, or writes now.
 */
static void user_write_start(struct request_ctx *ctx, enum user_write kind)
{
	struct user_job *job = request_state(ctx, sizeof *job, user_job_release);
	struct str_field password = { FIELD_ABSENT, NULL };
	struct api_error err;
	char *copy = NULL;
	int rc;

	job->kind = kind;
	if (kind == USER_CURRENT) {
		job->project_id = ctx->principal.project_id;
		job->user_id = ctx->principal.user_id;
	} else {
		job->project_id = request_param(ctx, "project_id");
		job->user_id = kind == USER_UPDATE ? request_param(ctx, "user_id") : NULL;
		job->scope = ctx->principal.scope;
	}
	rc = users_read_body(ctx->body, kind, &job->f, &password, &err);
	if (rc == 0 && kind == USER_CURRENT && !job->user_id)
		rc = api_fail(&err, E_USER_NOT_FOUND, "The token does not belong to a user.");
	if (rc == 0 && password.state == FIELD_SET)
		copy = xstrdup(password.value);
	body_wipe_password(ctx->body);
	if (rc == 0)
		rc = store_user_check(ctx->srv->store, job->project_id, job->user_id, &job->f,
		                      job->scope, &err);
	if (rc < 0) {
		http_reply_error(ctx, &err);
	} else if (!copy) {
		user_write_finish(ctx);
	} else if (passwords_hash(ctx->srv->passwords, copy, user_password_hashed, ctx, &err) < 0) {
		http_reply_error(ctx, &err);
	}
	/* ctx may be gone here: the hash callback may already have answered. */
	crypto_wipe_free(copy);
}

void users_create(struct request_ctx *ctx)
{
	user_write_start(ctx, USER_CREATE);
}

void users_update(struct request_ctx *ctx)
{
	user_write_start(ctx, USER_UPDATE);
}

void users_update_current(struct request_ctx *ctx)
{
	user_write_start(ctx, USER_CURRENT);
}

/* GET .../users: page, sort, search, and the is_active and role_id filters.
 * An empty role_id is no filter, like an empty search. */
void users_list(struct request_ctx *ctx)
{
	struct list_params lp = LIST_PARAMS_INIT;
	struct user_filter filter = { -1, NULL };
	struct api_error err;
	long long total;
	char *data, *body;

	if (list_read_params(&ctx->query, store_user_sort_keys, USER_SORT__COUNT, &lp, &err) < 0 ||
	    form_read_bool(&ctx->query, "is_active", &filter.is_active, &err) < 0 ||
	    form_get(&ctx->query, "role_id", &filter.role_id, &err) < 0)
		goto fail;
	if (filter.role_id && !*filter.role_id)
		filter.role_id = NULL;
	data = store_user_list(ctx->srv->store, request_param(ctx, "project_id"), &lp, &filter,
	                       &total, &err);
	if (!data)
		goto fail;
	body = list_response_text(data, &lp, total);
	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	free(body);
	free(data);
	list_params_release(&lp);
	return;
fail:
	list_params_release(&lp);
	http_reply_error(ctx, &err);
}

/* GET .../users/external/{external_user_id}[?include_permissions=true]
 * (CONTRACT.md §4): "permissions" only when asked for. */
void users_get_external(struct request_ctx *ctx)
{
	struct api_error err;
	int with_permissions;
	json_t *record;

	if (form_read_bool(&ctx->query, "include_permissions", &with_permissions, &err) < 0)
		goto fail;
	record = store_user_get_external(ctx->srv->store, request_param(ctx, "project_id"),
	                                 request_param(ctx, "external_user_id"),
	                                 with_permissions == 1, &err);
	if (!record)
		goto fail;
	http_reply_json(ctx, 200, record);
	return;
fail:
	http_reply_error(ctx, &err);
}
