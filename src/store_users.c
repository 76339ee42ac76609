/*
 * The users area's statements and queries. Uniqueness of a user's external ID
 * and email (without regard to case) is checked and written in one
 * BEGIN IMMEDIATE transaction; the unique indexes of schema/001_init.sql stay
 * the last word. Never returns a password hash: no SELECT here reads one.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "store_grants.h"
#include "store_users.h"
#include "util.h"

enum store_users_stmt {
	SU_USER_IN_PROJECT,
	SU_ROLE_IN_PROJECT,
	SU_EXTERNAL_ID_TAKEN,
	SU_EMAIL_TAKEN,
	SU_INSERT,
	SU_UPDATE,
	SU_GET,
	SU_GET_EXTERNAL,
	SU_ROLE_PERMISSIONS,
	SU_COUNT,
	SU_COUNT_INDEXED,
	SU_COUNT_INDEX_ONLY,
	SU_SUFFIX_MOVE_BOUND,
	SU_SUFFIX_MOVE_COPY,
	SU_SUFFIX_MOVE_DELETE,
	SU_COUNT_ALL,
	SU_SIGNIN_USER,   /* what sign-in reads, at the end of the file */
	SU_BYOU_USER,
	SU_LIST,   /* first of USER_SORT__COUNT * 2 statements: (sort, asc), (sort, desc) */
	SU_LIST_INDEXED = SU_LIST + USER_SORT__COUNT * 2,   /* the same, through user_suffixes */
	SU__COUNT = SU_LIST_INDEXED + USER_SORT__COUNT * 2
};

/* The record's columns, in the order user_row_json reads them. */
#define USER_COLUMNS \
	"SELECT u.id, u.display_name, u.avatar_url, u.external_user_id, u.email, u.is_active," \
	" u.role_id, r.name, u.created_at, u.updated_at"
#define USER_FROM " FROM users u LEFT JOIN roles r ON r.id = u.role_id"
/* The same record as user_row_json makes, as JSON text made by SQLite, for
 * list pages: building and freeing jansson trees was half of a page's cost.
 * Keys in the same order; iso_time is format_timestamp (src/store.c). */
#define USER_JSON \
	"SELECT json_object('id', u.id, 'display_name', u.display_name," \
	" 'avatar_url', u.avatar_url, 'external_user_id', u.external_user_id, 'email', u.email," \
	" 'is_active', json(CASE WHEN u.is_active THEN 'true' ELSE 'false' END)," \
	" 'role_id', u.role_id, 'role_name', r.name," \
	" 'created_at', iso_time(u.created_at), 'updated_at', iso_time(u.updated_at))"
enum { COL_ID, COL_DISPLAY_NAME, COL_AVATAR_URL, COL_EXTERNAL_USER_ID, COL_EMAIL,
       COL_IS_ACTIVE, COL_ROLE_ID, COL_ROLE_NAME, COL_CREATED_AT, COL_UPDATED_AT };

/* List filters: ?1 project, ?2 LIKE pattern, ?3 is_active, ?4 role_id (NULL: any).
 * CONTRACT.md §3: search is a case-insensitive substring of display name or email. */
#define USER_FILTER_TERMS \
	" u.project_id = ?1" \
	" AND (?2 IS NULL OR u.display_name LIKE ?2 ESCAPE '\\' OR u.email LIKE ?2 ESCAPE '\\')" \
	" AND (?3 IS NULL OR u.is_active = ?3) AND (?4 IS NULL OR u.role_id = ?4)"
#define USER_FILTER " WHERE" USER_FILTER_TERMS

/* The same filters for a search of 3 characters or more, driven by the
 * suffix index (schema/005_users_suffixes.sql): ?7 and ?8 bound the
 * project's suffixes that start with the term (cut to SEARCH_KEY_CHARS).
 * For a term that fits a key the range is exactly the users the LIKE would
 * find, and ?2 is bound NULL; a longer term's range is a superset, and the
 * LIKE decides. Either way results and totals are those of USER_FILTER.
 * CROSS JOIN keeps the index as the outer loop. */
#define SUFFIX_RANGE_OF(table) \
	" SELECT user_rowid FROM " table \
	" WHERE project = (SELECT rowid FROM projects WHERE id = ?1)" \
	" AND suffix >= ?7 AND suffix < ?8"
/* The users whose suffixes are in range, in the index or not yet moved to it. */
#define SUFFIX_USERS \
	"(" SUFFIX_RANGE_OF("user_suffixes") " UNION ALL" \
	SUFFIX_RANGE_OF("user_suffixes_recent") ")"
#define USER_FROM_INDEXED \
	" FROM (SELECT DISTINCT user_rowid FROM " SUFFIX_USERS ") m" \
	" CROSS JOIN users u ON u.rowid = m.user_rowid"
#define USER_FILTER_INDEXED USER_FILTER

/* CONTRACT.md §3: text sorts ignore case; NULLs first ascending and last
 * descending (SQLite's order); ties broken by ID so pages never overlap. */
#define ORDER(key, dir) " ORDER BY " key " " dir ", u.id " dir " LIMIT ?5 OFFSET ?6"
#define LIST(key, dir) USER_JSON USER_FROM USER_FILTER ORDER(key, dir)
#define LIST_BOTH(key) LIST(key, "ASC"), LIST(key, "DESC")
/* Two steps: the inner query sorts the matches carrying only their rowid and
 * sort key, and only the page's rows are then read whole and joined to their
 * role. The subquery's column k keeps key's collation for the outer sort. */
#define LIST_INDEXED(key, dir) USER_JSON " FROM" \
	" (SELECT u.rowid AS rid, " key " AS k, u.id AS kid" \
	USER_FROM_INDEXED " LEFT JOIN roles r ON r.id = u.role_id" USER_FILTER_INDEXED \
	ORDER(key, dir) ") p" \
	" CROSS JOIN users u ON u.rowid = p.rid LEFT JOIN roles r ON r.id = u.role_id" \
	" ORDER BY p.k " dir ", p.kid " dir
#define LIST_INDEXED_BOTH(key) LIST_INDEXED(key, "ASC"), LIST_INDEXED(key, "DESC")

static const char *const sql[SU__COUNT] = {
	[SU_USER_IN_PROJECT] = "SELECT 1 FROM users WHERE id = ?1 AND project_id = ?2",
	[SU_ROLE_IN_PROJECT] = "SELECT 1 FROM roles WHERE id = ?1 AND project_id = ?2",
	/* ?3: the user being updated, who may keep their own values; NULL on create. */
	[SU_EXTERNAL_ID_TAKEN] =
		"SELECT 1 FROM users WHERE project_id = ?1 AND external_user_id = ?2"
		" AND (?3 IS NULL OR id <> ?3)",
	[SU_EMAIL_TAKEN] =
		"SELECT 1 FROM users WHERE project_id = ?1 AND email = ?2 COLLATE NOCASE"
		" AND (?3 IS NULL OR id <> ?3)",
	[SU_INSERT] =
		"INSERT INTO users (id, project_id, display_name, avatar_url, external_user_id,"
		" email, password_hash, is_active, role_id, created_at, updated_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9, ?9)",
	/* Each optional field: a flag (the body had it) and the value (NULL clears). */
	[SU_UPDATE] =
		"UPDATE users SET display_name = ?3, is_active = coalesce(?4, is_active),"
		" avatar_url = CASE WHEN ?5 THEN ?6 ELSE avatar_url END,"
		" external_user_id = CASE WHEN ?7 THEN ?8 ELSE external_user_id END,"
		" email = CASE WHEN ?9 THEN ?10 ELSE email END,"
		" role_id = CASE WHEN ?11 THEN ?12 ELSE role_id END,"
		" password_hash = coalesce(?13, password_hash), updated_at = ?14"
		" WHERE id = ?1 AND project_id = ?2",
	[SU_GET] = USER_COLUMNS USER_FROM " WHERE u.id = ?1 AND u.project_id = ?2",
	[SU_GET_EXTERNAL] =
		USER_COLUMNS USER_FROM " WHERE u.project_id = ?1 AND u.external_user_id = ?2",
	/* The role's permissions in their named form ("users:read"). */
	[SU_ROLE_PERMISSIONS] =
		"SELECT " SQL_NAMED_PERMISSION " AS named FROM " SQL_ROLE_PERMISSIONS " ORDER BY named",
	[SU_COUNT] = "SELECT count(*) FROM users u" USER_FILTER,
	/* No filter: the count kept by triggers (schema/004), not a scan. */
	[SU_COUNT_ALL] =
		"SELECT coalesce((SELECT total FROM user_counts WHERE project_id = ?1), 0)",
	[SU_LIST + 2 * USER_SORT_CREATED_AT] = LIST_BOTH("u.created_at"),
	[SU_LIST + 2 * USER_SORT_UPDATED_AT] = LIST_BOTH("u.updated_at"),
	[SU_LIST + 2 * USER_SORT_DISPLAY_NAME] = LIST_BOTH("u.display_name COLLATE NOCASE"),
	[SU_LIST + 2 * USER_SORT_EMAIL] = LIST_BOTH("u.email COLLATE NOCASE"),
	[SU_LIST + 2 * USER_SORT_IS_ACTIVE] = LIST_BOTH("u.is_active"),
	[SU_LIST + 2 * USER_SORT_EXTERNAL_USER_ID] =
		LIST_BOTH("u.external_user_id COLLATE NOCASE"),
	[SU_LIST + 2 * USER_SORT_ROLE_NAME] = LIST_BOTH("r.name COLLATE NOCASE"),
	[SU_COUNT_INDEXED] =
		"SELECT count(*)" USER_FROM_INDEXED USER_FILTER_INDEXED,
	/* A term that fits a key, and no other filter: the range is the answer. */
	[SU_COUNT_INDEX_ONLY] = "SELECT count(DISTINCT user_rowid) FROM " SUFFIX_USERS,
	/* The last of the first ?1 keys of user_suffixes_recent in key order,
	 * which bounds a move (store_user_suffixes_move); no row when empty. */
	[SU_SUFFIX_MOVE_BOUND] =
		"SELECT project, suffix, user_rowid FROM (SELECT project, suffix, user_rowid"
		" FROM user_suffixes_recent ORDER BY project, suffix, user_rowid LIMIT ?1)"
		" ORDER BY project DESC, suffix DESC, user_rowid DESC LIMIT 1",
	[SU_SUFFIX_MOVE_COPY] =
		"INSERT OR IGNORE INTO user_suffixes (project, suffix, user_rowid)"
		" SELECT project, suffix, user_rowid FROM user_suffixes_recent"
		" WHERE (project, suffix, user_rowid) <= (?1, ?2, ?3)",
	[SU_SUFFIX_MOVE_DELETE] =
		"DELETE FROM user_suffixes_recent WHERE (project, suffix, user_rowid) <= (?1, ?2, ?3)",
	[SU_LIST_INDEXED + 2 * USER_SORT_CREATED_AT] = LIST_INDEXED_BOTH("u.created_at"),
	[SU_LIST_INDEXED + 2 * USER_SORT_UPDATED_AT] = LIST_INDEXED_BOTH("u.updated_at"),
	[SU_LIST_INDEXED + 2 * USER_SORT_DISPLAY_NAME] =
		LIST_INDEXED_BOTH("u.display_name COLLATE NOCASE"),
	[SU_LIST_INDEXED + 2 * USER_SORT_EMAIL] = LIST_INDEXED_BOTH("u.email COLLATE NOCASE"),
	[SU_LIST_INDEXED + 2 * USER_SORT_IS_ACTIVE] = LIST_INDEXED_BOTH("u.is_active"),
	[SU_LIST_INDEXED + 2 * USER_SORT_EXTERNAL_USER_ID] =
		LIST_INDEXED_BOTH("u.external_user_id COLLATE NOCASE"),
	[SU_LIST_INDEXED + 2 * USER_SORT_ROLE_NAME] = LIST_INDEXED_BOTH("r.name COLLATE NOCASE"),
	/* Sign-in's look-ups; columns as signin_user_read reads them. */
	[SU_SIGNIN_USER] =
		"SELECT id, is_active, password_hash FROM users"
		" WHERE project_id = ?1 AND email = ?2 COLLATE NOCASE",
	[SU_BYOU_USER] =
		"SELECT id, is_active, NULL FROM users WHERE project_id = ?1 AND external_user_id = ?2",
};
const struct stmt_set store_users_sql = { SU__COUNT, sql, NULL };

const char *const store_user_sort_keys[USER_SORT__COUNT] = {
	[USER_SORT_CREATED_AT] = "created_at",
	[USER_SORT_UPDATED_AT] = "updated_at",
	[USER_SORT_DISPLAY_NAME] = "display_name",
	[USER_SORT_EMAIL] = "email",
	[USER_SORT_IS_ACTIVE] = "is_active",
	[USER_SORT_EXTERNAL_USER_ID] = "external_user_id",
	[USER_SORT_ROLE_NAME] = "role_name",
};

static sqlite3_stmt *stmt(struct store *st, enum store_users_stmt which)
{
	return st->users.stmt[which];
}

/* The value a field writes: its string when SET, else NULL. */
static const char *field_value(const struct str_field *f)
{
	return f->state == FIELD_SET ? f->value : NULL;
}

/* Runs a one-row look-up with up to three text parameters (a, b, c; the
 * statement decides how many it has). 1 a row, 0 none, -1 error. */
static int lookup(struct store *st, enum store_users_stmt which, const char *a,
                  const char *b, const char *c, struct api_error *err)
{
	return store_exists(st, stmt(st, which), a, b, c, err);
}

/* Conflicts with other users of the project, external ID first: CONTRACT.md
 * §3 orders nothing between the two, so we follow SPEC.md's error table.
 * user_id: the user being updated (who may keep their own values), or NULL. */
static int check_conflicts(struct store *st, const char *project_id, const char *user_id,
                           const struct user_fields *f, struct api_error *err)
{
	int found;

	if (f->external_user_id.state == FIELD_SET) {
		found = lookup(st, SU_EXTERNAL_ID_TAKEN, project_id, f->external_user_id.value,
		               user_id, err);
		if (found)
			return found < 0 ? -1 : api_fail(err, E_USER_EXTERNAL_ID_ALREADY_USED,
			                 "Another user of this project has this external user ID.");
	}
	if (f->email.state == FIELD_SET) {
		found = lookup(st, SU_EMAIL_TAKEN, project_id, f->email.value, user_id, err);
		if (found)
			return found < 0 ? -1 : api_fail(err, E_USER_EMAIL_ALREADY_USED,
			                 "Another user of this project has this email.");
	}
	return 0;
}

/* The records a write names: user_not_found, then role_not_found. */
static int check_references(struct store *st, const char *project_id, const char *user_id,
                            const struct user_fields *f, struct api_error *err)
{
	int found;

	if (user_id) {
		found = lookup(st, SU_USER_IN_PROJECT, user_id, project_id, NULL, err);
		if (found <= 0)
			return found < 0 ? -1 : api_fail(err, E_USER_NOT_FOUND,
			                                  "The user does not exist in this project.");
	}
	/* The foreign key would accept a role of another project: check the project. */
	if (f->role_id.state == FIELD_SET) {
		found = lookup(st, SU_ROLE_IN_PROJECT, f->role_id.value, project_id, NULL, err);
		if (found <= 0)
			return found < 0 ? -1 : api_fail(err, E_ROLE_NOT_FOUND,
			                                  "The role does not exist in this project.");
	}
	return 0;
}

/* No escalation (store_grants.h): the caller may change the user (through
 * the role it has now) and give it the new role. */
static int check_authority(struct store *st, const char *user_id, const struct user_fields *f,
                           const char *scope, struct api_error *err)
{
	if (user_id && store_grant_check_holder(st, scope, GRANT_HOLDER_USER, user_id, err) < 0)
		return -1;
	if (f->role_id.state == FIELD_SET)
		return store_grant_check_holder(st, scope, GRANT_HOLDER_ROLE, f->role_id.value, err);
	return 0;
}

int store_user_check(struct store *st, const char *project_id, const char *user_id,
                     const struct user_fields *f, const char *scope, struct api_error *err)
{
	if (check_references(st, project_id, user_id, f, err) < 0 ||
	    check_authority(st, user_id, f, scope, err) < 0)
		return -1;
	return check_conflicts(st, project_id, user_id, f, err);
}

/* Steps a write. 0 done, 1 a UNIQUE constraint failed, -1 other error. */
static int step_write(struct store *st, sqlite3_stmt *s, struct api_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return 1;
	return store_fail(st, err, "user write");
}

/* After a UNIQUE failure the check that passed a moment ago in the same
 * transaction cannot say otherwise, but ask the store which constraint it
 * was rather than trust the message; system_error if none is found. */
static int unique_failed(struct store *st, const char *project_id, const char *user_id,
                         const struct user_fields *f, struct api_error *err)
{
	if (check_conflicts(st, project_id, user_id, f, err) < 0)
		return -1;
	return store_fail(st, err, "user write: unexplained UNIQUE failure");
}

static void json_value_free(void *v)
{
	json_decref(v);
}

/* The role's permissions, named and sorted by strcmp, as a JSON array (a new
 * reference; the cache keeps another), or NULL with err. No role, none.
 * at: the stamp of the read that found the role. Read once per role and
 * store state: on the external-ID path this query was half the request. */
static json_t *role_permissions(struct store *st, const char *role_id, struct store_stamp at,
                                struct api_error *err)
{
	sqlite3_stmt *s;
	json_t *names;
	int rc;

	if (!role_id)
		return json_array();
	if (!st->role_permissions)
		st->role_permissions = derived_cache_new(json_value_free);
	names = derived_cache_get(st->role_permissions, role_id, at);
	if (names)
		return json_incref(names);
	s = stmt(st, SU_ROLE_PERMISSIONS);
	names = json_array();
	store_bind_text(s, 1, role_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(names, json_string_or_null(store_column_text(s, 0)));
	if (rc != SQLITE_DONE) {
		store_fail(st, err, "role permissions");
		store_stmt_finish(s);
		json_decref(names);
		return NULL;
	}
	store_stmt_finish(s);
	derived_cache_put(st->role_permissions, role_id, at, json_incref(names));
	return names;
}

static void set_text(json_t *o, const char *key, sqlite3_stmt *s, int col)
{
	json_object_set_new(o, key, json_string_or_null(store_column_text(s, col)));
}

/* CONTRACT.md §4: {id, display_name, avatar_url, external_user_id, email,
 * is_active, role_id, role_name, created_at, updated_at}, empty fields null. */
static json_t *user_row_json(sqlite3_stmt *s)
{
	json_t *o = json_object();

	set_text(o, "id", s, COL_ID);
	set_text(o, "display_name", s, COL_DISPLAY_NAME);
	set_text(o, "avatar_url", s, COL_AVATAR_URL);
	set_text(o, "external_user_id", s, COL_EXTERNAL_USER_ID);
	set_text(o, "email", s, COL_EMAIL);
	json_object_set_new(o, "is_active", json_boolean(sqlite3_column_int(s, COL_IS_ACTIVE)));
	set_text(o, "role_id", s, COL_ROLE_ID);
	set_text(o, "role_name", s, COL_ROLE_NAME);
	json_object_set_new(o, "created_at", json_timestamp(sqlite3_column_int64(s, COL_CREATED_AT)));
	json_object_set_new(o, "updated_at", json_timestamp(sqlite3_column_int64(s, COL_UPDATED_AT)));
	return o;
}

/* The record of a user of the project, or NULL with err (user_not_found). */
static json_t *user_get(struct store *st, const char *project_id, const char *user_id,
                        struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SU_GET);
	json_t *out = NULL;
	int rc;

	store_bind_text(s, 1, user_id);
	store_bind_text(s, 2, project_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		out = user_row_json(s);
	else if (rc == SQLITE_DONE)
		api_fail(err, E_USER_NOT_FOUND, "The user does not exist in this project.");
	else
		store_fail(st, err, "user get");
	store_stmt_finish(s);
	return out;
}

/* Reads back the written user and commits; rolls back on failure. */
static int finish_write(struct store *st, const char *project_id, const char *user_id,
                        json_t **out, struct api_error *err)
{
	*out = user_get(st, project_id, user_id, err);
	if (!*out) {
		store_rollback(st);
		return -1;
	}
	if (store_commit(st, err) < 0) {   /* store_commit rolls back */
		json_decref(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int store_user_create(struct store *st, const char *project_id, const struct user_fields *f,
                      const char *scope, json_t **out, struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SU_INSERT);
	char *id = crypto_new_id();
	int rc = -1, w;

	*out = NULL;
	if (store_begin(st, err) < 0)
		goto out;
	if (store_user_check(st, project_id, NULL, f, scope, err) < 0)
		goto rollback;
	store_bind_text(s, 1, id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->display_name);
	store_bind_text(s, 4, field_value(&f->avatar_url));
	store_bind_text(s, 5, field_value(&f->external_user_id));
	store_bind_text(s, 6, field_value(&f->email));
	store_bind_text(s, 7, f->password_hash);
	store_bind_text(s, 8, field_value(&f->role_id));
	sqlite3_bind_int64(s, 9, now_ms());
	w = step_write(st, s, err);
	store_stmt_finish(s);
	if (w == 1)
		unique_failed(st, project_id, NULL, f, err);
	if (w != 0)
		goto rollback;
	rc = finish_write(st, project_id, id, out, err);
	goto out;
rollback:
	store_rollback(st);
out:
	free(id);
	return rc;
}

/* Binds an optional field of SU_UPDATE: a flag at idx (the body had it) and
 * the value at idx + 1 (NULL clears). */
static void bind_optional(sqlite3_stmt *s, int idx, const struct str_field *f)
{
	sqlite3_bind_int(s, idx, f->state != FIELD_ABSENT);
	store_bind_text(s, idx + 1, field_value(f));
}

int store_user_update(struct store *st, const char *project_id, const char *user_id,
                      const struct user_fields *f, const char *scope, json_t **out,
                      struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SU_UPDATE);
	int w;

	*out = NULL;
	if (store_begin(st, err) < 0)
		return -1;
	if (store_user_check(st, project_id, user_id, f, scope, err) < 0)
		goto rollback;
	store_bind_text(s, 1, user_id);
	store_bind_text(s, 2, project_id);
	store_bind_text(s, 3, f->display_name);
	if (f->is_active >= 0)
		sqlite3_bind_int(s, 4, f->is_active);
	else
		sqlite3_bind_null(s, 4);
	bind_optional(s, 5, &f->avatar_url);
	bind_optional(s, 7, &f->external_user_id);
	bind_optional(s, 9, &f->email);
	bind_optional(s, 11, &f->role_id);
	store_bind_text(s, 13, f->password_hash);
	sqlite3_bind_int64(s, 14, now_ms());
	w = step_write(st, s, err);
	store_stmt_finish(s);
	if (w == 1)
		unique_failed(st, project_id, user_id, f, err);
	if (w != 0)
		goto rollback;
	return finish_write(st, project_id, user_id, out, err);
rollback:
	store_rollback(st);
	return -1;
}

json_t *store_user_get_external(struct store *st, const char *project_id,
                                const char *external_user_id, bool with_permissions,
                                struct api_error *err)
{
	sqlite3_stmt *s = stmt(st, SU_GET_EXTERNAL);
	json_t *out = NULL, *names;
	int rc;

	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, external_user_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out = user_row_json(s);
		if (with_permissions) {
			/* Still in the row's read transaction: the stamp and the
			 * permissions are of the same state as the row. */
			names = role_permissions(st, store_column_text(s, COL_ROLE_ID), store_stamp(st),
			                         err);
			if (names) {
				json_object_set_new(out, "permissions", names);
			} else {
				json_decref(out);
				out = NULL;
			}
		}
	} else if (rc == SQLITE_DONE) {
		api_fail(err, E_USER_NOT_FOUND, "No user of this project has this external user ID.");
	} else {
		store_fail(st, err, "user get by external ID");
	}
	store_stmt_finish(s);
	return out;
}

/* A term of fewer characters finds so many suffixes that the scan of the
 * project's users is as quick; such a search is not indexed. */
#define SEARCH_INDEXED_MIN_CHARS 3
/* The length the index cuts suffixes to (schema/005_users_suffixes.sql). */
#define SEARCH_KEY_CHARS 10

/* The range of user_suffixes keys that start with the term behind a
 * like_pattern ("%term%" with % _ \ escaped by \): lo is the term lowercased
 * as SQLite's lower() does (ASCII only) and cut to SEARCH_KEY_CHARS code
 * points, hi is lo with its last byte raised by one (UTF-8 has no 0xFF byte),
 * so every key with prefix lo sorts in [lo, hi) by BINARY collation. */
struct search_range {
	char *lo, *hi;   /* one allocation, owned by lo */
	bool exact;      /* the term fits a key: the range is exactly the matches */
};

/* Fills r and returns true when the term has SEARCH_INDEXED_MIN_CHARS code
 * points or more (the term is valid UTF-8); false, r empty, otherwise.
 * search_range_free releases r. */
static bool search_range_make(const char *like, struct search_range *r)
{
	size_t n = strlen(like), chars = 0, len;
	const char *end = like + n - 1;
	char *w;

	assert(n >= 2 && like[0] == '%' && *end == '%');
	r->lo = w = xmalloc(2 * n);
	for (const char *p = like + 1; p < end; p++) {
		if (*p == '\\')
			p++;   /* like_pattern escapes only %, _ and \; the next byte is literal */
		if (((unsigned char)*p & 0xC0) != 0x80 && ++chars > SEARCH_KEY_CHARS)
			break;   /* chars is now SEARCH_KEY_CHARS + 1: not exact */
		*w++ = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	}
	*w = '\0';
	if (chars < SEARCH_INDEXED_MIN_CHARS) {
		free(r->lo);
		r->lo = r->hi = NULL;
		return false;
	}
	r->exact = chars <= SEARCH_KEY_CHARS;
	len = (size_t)(w - r->lo);
	r->hi = w + 1;
	memcpy(r->hi, r->lo, len + 1);
	r->hi[len - 1] = (char)((unsigned char)r->hi[len - 1] + 1);
	return true;
}

static void search_range_free(struct search_range *r)
{
	free(r->lo);
	r->lo = r->hi = NULL;
}

/* Binds the list filters ?1..?4 shared by the count and list statements, and
 * ?7 and ?8, the search range, which only the _INDEXED ones have; the LIKE
 * is left out (NULL) where the range alone decides. */
static void bind_filter(sqlite3_stmt *s, const char *project_id, const struct list_params *p,
                        const struct user_filter *filter, const struct search_range *range)
{
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, range->lo && range->exact ? NULL : p->like);
	if (filter->is_active >= 0)
		sqlite3_bind_int(s, 3, filter->is_active);
	else
		sqlite3_bind_null(s, 3);
	store_bind_text(s, 4, filter->role_id);
	if (range->lo) {
		store_bind_text(s, 7, range->lo);
		store_bind_text(s, 8, range->hi);
	}
}

/* The number of users that match, or -1 with err. */
static long long list_count(struct store *st, const char *project_id,
                            const struct list_params *p, const struct user_filter *filter,
                            const struct search_range *range, struct api_error *err)
{
	bool only_like = filter->is_active < 0 && !filter->role_id;
	sqlite3_stmt *s;
	long long n = -1;

	if (only_like && !p->like) {
		s = stmt(st, SU_COUNT_ALL);
		store_bind_text(s, 1, project_id);
	} else if (only_like && range->lo && range->exact) {
		s = stmt(st, SU_COUNT_INDEX_ONLY);
		store_bind_text(s, 1, project_id);
		store_bind_text(s, 7, range->lo);
		store_bind_text(s, 8, range->hi);
	} else {
		s = stmt(st, range->lo ? SU_COUNT_INDEXED : SU_COUNT);
		bind_filter(s, project_id, p, filter, range);
	}
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	else
		store_fail(st, err, "user count");
	store_stmt_finish(s);
	return n;
}

char *store_user_list(struct store *st, const char *project_id, const struct list_params *p,
                      const struct user_filter *filter, long long *total, struct api_error *err)
{
	struct search_range range = { NULL, NULL, false };
	bool indexed = p->like && search_range_make(p->like, &range);
	char *data = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int rc;

	assert(p->sort < USER_SORT__COUNT);
	*total = list_count(st, project_id, p, filter, &range, err);
	if (*total < 0)
		goto out;
	if (list_params_offset(p) >= *total) {   /* past the end: no page to read */
		data = xstrdup("[]");
		goto out;
	}
	s = stmt(st, (indexed ? SU_LIST_INDEXED : SU_LIST) + 2 * (int)p->sort + (p->desc ? 1 : 0));
	bind_filter(s, project_id, p, filter, &range);
	sqlite3_bind_int64(s, 5, p->page_size);
	sqlite3_bind_int64(s, 6, list_params_offset(p));
	/* "[" rows joined by "," "]" */
	data = xmalloc(cap = 4096);
	data[len++] = '[';
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *row = sqlite3_column_text(s, 0);   /* then its length */
		size_t n = (size_t)sqlite3_column_bytes(s, 0);
		if (len + n + 2 >= cap)
			data = xrealloc(data, cap = 2 * (len + n + 2));
		if (len > 1)
			data[len++] = ',';
		memcpy(data + len, row, n);
		len += n;
	}
	store_stmt_finish(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, err, "user list");
		free(data);
		data = NULL;
		goto out;
	}
	data[len++] = ']';
	data[len] = '\0';
out:
	search_range_free(&range);
	return data;
}

/* Binds the key in columns 0..2 of from as ?1..?3 of to. */
static void bind_suffix_key(sqlite3_stmt *to, sqlite3_stmt *from)
{
	sqlite3_bind_int64(to, 1, sqlite3_column_int64(from, 0));
	sqlite3_bind_text(to, 2, (const char *)sqlite3_column_text(from, 1),
	                  sqlite3_column_bytes(from, 1), SQLITE_TRANSIENT);
	sqlite3_bind_int64(to, 3, sqlite3_column_int64(from, 2));
}

int store_user_suffixes_move(struct store *st, int max_keys, struct api_error *err)
{
	sqlite3_stmt *bound = stmt(st, SU_SUFFIX_MOVE_BOUND);
	sqlite3_stmt *copy, *del;
	int rc;

	assert(max_keys > 0);
	sqlite3_bind_int(bound, 1, max_keys);
	rc = sqlite3_step(bound);
	if (rc != SQLITE_ROW) {
		store_stmt_finish(bound);
		return rc == SQLITE_DONE ? 0 : store_fail(st, err, "user suffixes move");
	}
	copy = stmt(st, SU_SUFFIX_MOVE_COPY);
	del = stmt(st, SU_SUFFIX_MOVE_DELETE);
	bind_suffix_key(copy, bound);
	bind_suffix_key(del, bound);
	store_stmt_finish(bound);
	if (store_begin(st, err) < 0)
		goto fail;
	if (store_step_done(st, copy, err) < 0 || store_step_done(st, del, err) < 0) {
		store_rollback(st);
		goto fail;
	}
	store_stmt_finish(copy);
	store_stmt_finish(del);
	return store_commit(st, err) < 0 ? -1 : 1;
fail:
	store_stmt_finish(copy);
	store_stmt_finish(del);
	return -1;
}

/* ---- what sign-in reads ----
 * The one read of a password hash in this file: sign-in's, which hands it
 * to the password check and nowhere else. */

static char *column_dup(sqlite3_stmt *s, int col)
{
	const char *v = store_column_text(s, col);

	return v ? xstrdup(v) : NULL;
}

/* Looks up the user of project_id by a second key (?2) with statement which. */
static void signin_user_read(struct store *st, enum store_users_stmt which,
                             const char *project_id, const char *key, struct signin_user *out,
                             struct completion done)
{
	sqlite3_stmt *s = stmt(st, which);
	struct api_error err;
	int rc;

	memset(out, 0, sizeof *out);
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, key);
	rc = store_step(st, s, &err);
	if (rc == 1) {
		out->found = true;
		out->user_id = column_dup(s, 0);
		out->is_active = sqlite3_column_int(s, 1) != 0;
		out->password_hash = column_dup(s, 2);
	}
	store_stmt_finish(s);
	complete(done, rc, &err);
}

void store_signin_user(struct store *st, const char *project_id, const char *email,
                       struct signin_user *out, struct completion done)
{
	signin_user_read(st, SU_SIGNIN_USER, project_id, email, out, done);
}

void store_byou_user(struct store *st, const char *project_id, const char *external_user_id,
                     struct signin_user *out, struct completion done)
{
	signin_user_read(st, SU_BYOU_USER, project_id, external_user_id, out, done);
}

void signin_user_release(struct signin_user *u)
{
	free(u->user_id);
	crypto_wipe_free(u->password_hash);
	memset(u, 0, sizeof *u);
}
