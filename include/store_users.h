#ifndef EDGEAUTH_STORE_USERS_H
#define EDGEAUTH_STORE_USERS_H
/*
 * The users table: create, update, look-ups and the list. Every function
 * returns a user as the CONTRACT.md §4 record (json_t, never a password or
 * a hash). Uniqueness (external ID; email without regard to case) is checked
 * and written in one BEGIN IMMEDIATE transaction.
 */
#include <stdbool.h>
#include <jansson.h>

#include "error.h"
#include "json_util.h"
#include "listing.h"
#include "store.h"

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
};

/* The sort keys of the users list, in SPEC.md's order; the first is the default. */
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
extern const char *const store_user_sort_keys[USER_SORT__COUNT];

/* Filters of the users list besides search; -1 / NULL: no filter. */
struct user_filter {
	int is_active;
	const char *role_id;
};

/*
 * The checks a write must pass after the body, in CONTRACT.md §3's order:
 * user_not_found (update: user_id not in the project) -> role_not_found (a
 * role_id that is SET and not of this project) -> insufficient_permission
 * (no escalation, store_grants.h: the user's role now, or the role_id set,
 * holds a default-resource permission that scope, the caller's, lacks) ->
 * user_external_id_already_used -> user_email_already_used (another user
 * of the project; email compared without regard to case). user_id is NULL
 * on create. Runs outside a transaction, so that a handler can refuse
 * before it hashes a password; the writes below repeat it inside theirs
 * (the user's role may have changed in between). Returns 0 or -1 with err.
 */
int store_user_check(struct store *st, const char *project_id, const char *user_id,
                     const struct user_fields *f, const char *scope, struct api_error *err);

/* Inserts a new active user and sets *out to its record. Errors: those of
 * store_user_check, system_error. Returns 0 or -1. */
int store_user_create(struct store *st, const char *project_id, const struct user_fields *f,
                      const char *scope, json_t **out, struct api_error *err);

/* Updates the user of the project and sets *out to its record. Errors: those
 * of store_user_check, system_error. Returns 0 or -1. */
int store_user_update(struct store *st, const char *project_id, const char *user_id,
                      const struct user_fields *f, const char *scope, json_t **out,
                      struct api_error *err);

/* The user of the project with that external ID, with "permissions" (named
 * forms of its role's permissions, sorted) when with_permissions. Returns a
 * new record, or NULL with user_not_found or system_error. */
json_t *store_user_get_external(struct store *st, const char *project_id,
                                const char *external_user_id, bool with_permissions,
                                struct api_error *err);

/* One page of the project's users (p->sort is an enum user_sort) and the
 * number of all that match. Returns the page as the text of a JSON array of
 * records (caller frees), or NULL with system_error. */
char *store_user_list(struct store *st, const char *project_id, const struct list_params *p,
                      const struct user_filter *filter, long long *total, struct api_error *err);

/*
 * Moves up to max_keys of the newest search keys (user_suffixes_recent,
 * schema/005) into the search index, in key order, in one transaction (a
 * savepoint of the batch in group commit mode). 1 when it moved keys, 0 when
 * there were none, -1 with err.
 */
int store_user_suffixes_move(struct store *st, int max_keys, struct api_error *err);

/* ---- what sign-in reads ---- */

/* A user as sign-in reads it, not the record: it holds the password hash,
 * which goes to the password check and nowhere else. Strings owned:
 * signin_user_release. */
struct signin_user {
	bool found;
	char *user_id;
	bool is_active;
	char *password_hash;   /* argon2 encoding; NULL: none (a BYOU user, or not read) */
};
void signin_user_release(struct signin_user *u);
/* The user of the project with this email, without regard to case (out->found
 * false: none). */
void store_signin_user(struct store *st, const char *project_id, const char *email,
                       struct signin_user *out, struct completion done);
/* The user of the project with this external ID (a BYOU code's); its
 * password hash is not read. */
void store_byou_user(struct store *st, const char *project_id, const char *external_user_id,
                     struct signin_user *out, struct completion done);

#endif
