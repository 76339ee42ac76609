#ifndef EDGEAUTH_STORE_USERS_H
#define EDGEAUTH_STORE_USERS_H
/*
 * Users: the checks and writes of create and update, the record by external
 * ID, the list and its search, and what the grants read of a user. A user is
 * the docs/api.md §"Records" record as JSON text, never with a password or a hash.
 * Each operation is one transaction and calls done once (store.h); what it
 * hands back goes to out-parameters that must live until then. Uniqueness
 * (external ID; email without regard to case) is checked and written in the
 * write's transaction.
 */
#include <stdbool.h>

#include "error.h"
#include "flow.h"
#include "jbody.h"
#include "listing.h"
#include "store.h"
#include "store_events.h"

/*
 * What create and update write, read from the body. On create an absent or
 * cleared optional field is stored as NULL; on update FIELD_ABSENT keeps the
 * stored value and FIELD_CLEAR stores NULL. Strings are borrowed.
 */
struct user_fields {
	const char *display_name;
	struct str_field avatar_url;
	struct str_field external_user_id;
	struct str_field email;
	struct str_field role_id;
	int is_active;               /* 0 or 1; -1: create makes it active, update keeps it */
	const char *password_hash;   /* argon2 encoding, or NULL: none (create) / keep (update) */
	/* docs/signin.md §"email_verified". email_by_user: the user sets their own email (PUT
	 * /api/v1/users/current), so a changed one is not verified
	 * (email_verified false); otherwise an email the write sets is (an
	 * administrator vouched for it). email_locked: the write may not change
	 * the stored email (a sign-in that is not recent), else
	 * insufficient_permission. A change is any difference of the text. */
	bool email_by_user;
	bool email_locked;
};

/* The sort keys of the users list (struct list_query's sort), in the order of
 * docs/api.md §"Users"; the first is the default. Their names are the api file's. */
enum user_sort {
	USER_SORT_CREATED_AT,
	USER_SORT_UPDATED_AT,
	USER_SORT_DISPLAY_NAME,
	USER_SORT_EMAIL,
	USER_SORT_IS_ACTIVE,
	USER_SORT_EXTERNAL_USER_ID,
	USER_SORT_ROLE_NAME,
	USER_SORT__COUNT
};

/*
 * The checks a write must pass after the body, in the order of docs/api.md §"Which error wins":
 * user_not_found (update: user_id not in the project) -> role_not_found (a
 * role_id that is SET and not of this project) -> insufficient_permission
 * (no escalation, store_grants.h: the user's role now, or the role_id set,
 * holds a default-resource permission that scope, the caller's, lacks; or
 * f->email_locked and the email would change) ->
 * user_external_id_already_used -> user_email_already_used (another user
 * of the project; email compared without regard to case). user_id is NULL
 * on create. Outside a transaction, so that a caller can refuse before it
 * hashes a password; the writes below repeat it inside theirs (the user's
 * role may have changed in between).
 */
void store_user_check(struct store *st, const char *project_id, const char *user_id,
                      const struct user_fields *f, const char *scope, struct completion done);

/* Inserts a new active user; *out is its record (caller frees). Errors:
 * those of store_user_check, system_error. */
void store_user_create(struct store *st, const struct event_origin *by, const char *project_id,
                       const struct user_fields *f, const char *scope, char **out,
                       struct completion done);

/* Updates the user of the project; *out is its record (caller frees).
 * Errors: those of store_user_check, system_error. */
void store_user_update(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *user_id, const struct user_fields *f, const char *scope,
                       char **out, struct completion done);

/* The record of the project's user (caller frees), one statement. Errors:
 * user_not_found, system_error. */
void store_user_get(struct store *st, const char *project_id, const char *user_id, char **out,
                    struct completion done);

/* Deletes the user of the project (docs/api.md §"Read one and delete"): its sessions end (and
 * with them the sign-ins made through them, schema 008), its sessions,
 * codes and refresh tokens go with it, and its access tokens stop at once
 * (the bearer check finds no user). Errors, in this order: user_not_found,
 * insufficient_permission (its role holds a default-resource permission
 * that scope lacks), system_error. */
void store_user_delete(struct store *st, const struct event_origin *by, const char *project_id,
                       const char *user_id, const char *scope, struct completion done);

/* The record of the project's user with that external ID (caller frees),
 * with "permissions" last when with_permissions: the named forms of its
 * role's permissions that a token carries (SQL_SCOPE_CODES_OK), sorted.
 * Errors: user_not_found, system_error. */
void store_user_get_external(struct store *st, const char *project_id,
                             const char *external_user_id, bool with_permissions, char **out,
                             struct completion done);

/* One page of the project's users and the number of all that match. q's
 * sort is an enum user_sort; its filters search (the raw term, a
 * case-insensitive substring of display name or email), is_active and
 * role_id apply. out->data is a JSON array of records (page_release). */
void store_user_list(struct store *st, const char *project_id, const struct list_query *q,
                     struct page *out, struct completion done);

/* Whether the user exists in the project and is active. */
void store_user_is_active(struct store *st, const char *project_id, const char *user_id,
                          bool *active, struct completion done);
/* The named permissions of the user's role that a token carries, sorted,
 * space-separated ("" when none), into *out (caller frees). */
void store_user_scope(struct store *st, const char *user_id, char **out, struct completion done);

/*
 * One step of the search index's upkeep, in one transaction (a savepoint of
 * the batch in group commit mode): while users wait for their keys
 * (user_suffixes_pending, schema/012), writes the keys of max_keys / 100
 * of them (at least one) into user_suffixes_recent; else moves up to
 * max_keys of those (schema/005) into the search index, in key order. 1
 * when it did either, 0 when there was nothing to do, -1 with err. The
 * server's idle work, not a request's.
 */
int store_user_suffixes_move(struct store *st, int max_keys, struct api_error *err);
/* Whether more than about `users` users wait for their keys (it may count
 * a deleted one among them): a search scans those (store_user_list), so
 * past some number the server writes keys even when busy. */
bool store_user_suffixes_backlog(struct store *st, long long users);

/* What both backends answer, one text: user_not_found by ID and by
 * external ID, and the sentences of store_user_check's other refusals. */
extern const struct record_missing *const store_user_missing;
extern const struct record_missing *const store_user_external_missing;
extern const char store_user_role_missing[];       /* role_not_found */
extern const char store_user_email_locked[];       /* insufficient_permission */
extern const char store_user_external_id_used[];   /* user_external_id_already_used */
extern const char store_user_email_used[];         /* user_email_already_used */

/* ---- what sign-in reads ---- */

/* A user as sign-in reads it, not the record: it holds the password hash,
 * which goes to the password check and nowhere else. Strings owned:
 * store_user_signin_release. */
struct store_user_signin {
	bool found;
	char *user_id;
	bool is_active;
	char *password_hash;   /* argon2 encoding; NULL: none (a BYOU user, or not read) */
};
void store_user_signin_release(struct store_user_signin *u);
/* The user of the project with this email, without regard to case (out->found
 * false: none). */
void store_signin_user(struct store *st, const char *project_id, const char *email,
                       struct store_user_signin *out, struct completion done);
/* The user of the project with this external ID (a BYOU code's); its
 * password hash is not read. */
void store_byou_user(struct store *st, const char *project_id, const char *external_user_id,
                     struct store_user_signin *out, struct completion done);

#endif
