#ifndef EDGEAUTH_API_USERS_H
#define EDGEAUTH_API_USERS_H
/* The users endpoints of docs/api.md §"Users", under /api/v1/projects/{project_id}/users,
 * PUT /api/v1/users/current (the user of the bearer token), and the codes
 * a project's backend asks for its BYOU users, as steps. */
#include <jansson.h>
#include <event2/keyvalq_struct.h>

#include "error.h"
#include "flow.h"
#include "input_names.h"
#include "jbody.h"
#include "listing.h"
#include "store_users.h"

extern flow_step *const users_create_steps[];
extern flow_step *const users_update_steps[];
extern flow_step *const users_update_current_steps[];
extern flow_step *const users_list_steps[];
extern flow_step *const users_get_external_steps[];
/* GET and DELETE .../users/{user_id}, GET /api/v1/users/current
 * (docs/api.md §"Current user"). */
extern flow_step *const users_get_steps[];
extern flow_step *const users_delete_steps[];
/* DELETE /users/{user_id}/factors (docs/api.md §"Users"): 204. */
extern flow_step *const users_factors_reset_steps[];
extern flow_step *const users_get_current_steps[];
/* POST .../users/external/{external_user_id}/authorization-codes (BYOU). */
extern flow_step *const byou_code_steps[];
/* The names of each body and query (input_names.h). */
extern const struct input_names users_create_names;
extern const struct input_names users_update_names;
extern const struct input_names users_current_names;
extern const struct input_names byou_code_names;
extern const char *const users_list_query[];
extern const char *const users_external_query[];

/* The steps of POST .../users and PUT .../users/{user_id} before their
 * answer, for the console (docs/console.md), which answers with a page:
 * the body (ctx->body), the checks, the hash, the write with the request's
 * principal as the caller (the no-escalation rule, the audit trail's
 * actor). They keep their state in request_state; after the write,
 * users_write_record is the record written (JSON text, the request's). */
flow_step users_create_read, users_update_read, users_write_check, users_write_hash,
	users_write_store;
/* The same for PUT /api/v1/users/current's body, for the account page
 * (docs/signin.md §"Account page"): the principal's user, the
 * recent-sign-in rule. */
flow_step users_current_read;
struct request_ctx;
const char *users_write_record(struct request_ctx *ctx);
/* DELETE .../users/{user_id}/factors's write, for the console: the
 * user's factors go and its sessions end (store_factors_reset, with the
 * request's principal for no escalation and the audit trail). */
flow_step users_factors_reset_write;
/* The users list's query (docs/api.md §"Lists": page, sort, search,
 * is_active, role_id; an empty role_id is no filter, like an empty
 * search) into *q, whose strings are borrowed from query. 0, or -1 with
 * invalid_params. */
int users_list_read_query(const struct evkeyvalq *query, struct list_query *q,
                          struct api_error *err);
/* The sort_by value of a list_query's sort index, or NULL. */
const char *users_sort_key(size_t sort);

/* Which body users_read_body reads: POST .../users, PUT .../users/{id}, or
 * PUT /api/v1/users/current. */
enum user_write { USER_CREATE, USER_UPDATE, USER_CURRENT };

/* Reads and checks a create or update body into f and *password (borrowed
 * from body, as are f's strings). Every failure is invalid_params; nothing
 * is asked of the store. */
int users_read_body(const json_t *body, enum user_write kind, struct user_fields *f,
                    struct str_field *password, struct api_error *err);

/* docs/signin.md §"Recent sign-in": PUT
 * /api/v1/users/current may change the email or set a password only with a
 * token whose sign-in (auth_time) is at most this many seconds old. */
#define USERS_RECENT_SIGNIN_S 300

/* The rule for PUT /api/v1/users/current, once its body is read into f and
 * *password: with an auth_time (s since 1970; 0: the token has none) more
 * than USERS_RECENT_SIGNIN_S before now, a non-empty password is
 * insufficient_permission, and the email is locked (f->email_locked: the
 * store refuses to change it, with the same error). Returns 0, or -1 with
 * err. */
int users_current_recent_check(long long auth_time, long long now,
                               const struct str_field *password, struct user_fields *f,
                               struct api_error *err);

#endif
