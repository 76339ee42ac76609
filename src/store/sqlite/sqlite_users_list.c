/*
 * The users list on SQLite (sqlite_user_list, sqlite_users_ops' list): a
 * page of records, its total, and the search, which a term of 3
 * characters or more runs on the suffix index of
 * schema/005_users_suffixes.sql. The search term arrives raw; what it means
 * for a LIKE and for the index is worked out here, and nowhere else.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_backend.h"
#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "sqlite_users_sql.h"
#include "store_users.h"
#include "util.h"

enum store_users_list_stmt {
	SL_COUNT,
	SL_COUNT_INDEXED,
	SL_COUNT_INDEX_ONLY,
	SL_COUNT_ALL,
	SL_SUFFIX_PENDING_BOUND,
	SL_SUFFIX_PENDING_SPAN,
	SL_SUFFIX_WRITE_NAMES,
	SL_SUFFIX_WRITE_EMAILS,
	SL_SUFFIX_PENDING_DELETE,
	SL_SUFFIX_MOVE_BOUND,
	SL_SUFFIX_MOVE_COPY,
	SL_SUFFIX_MOVE_DELETE,
	SL_LIST,   /* first of USER_SORT__COUNT * 2 statements: (sort, asc), (sort, desc) */
	SL_LIST_INDEXED = SL_LIST + USER_SORT__COUNT * 2,   /* the same, through user_suffixes */
	SL__COUNT = SL_LIST_INDEXED + USER_SORT__COUNT * 2
};

/* List filters: ?1 project, ?2 LIKE pattern, ?3 is_active, ?4 role_id (NULL: any).
 * docs/api.md §"Lists": search is a case-insensitive substring of display name or email. */
#define USER_FILTER \
	" WHERE u.project_id = ?1" \
	" AND (?2 IS NULL OR u.display_name LIKE ?2 ESCAPE '\\' OR u.email LIKE ?2 ESCAPE '\\')" \
	" AND (?3 IS NULL OR u.is_active = ?3) AND (?4 IS NULL OR u.role_id = ?4)"

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
/* The pending users (schema/012_user_suffixes_pending.sql: no keys yet)
 * that have a key in range: lo (?7) is in the lowered value exactly when
 * the suffix that starts there has the prefix lo. */
#define PENDING_IN_RANGE \
	" SELECT p.user_rowid FROM user_suffixes_pending p" \
	" CROSS JOIN users pu ON pu.rowid = p.user_rowid WHERE pu.project_id = ?1" \
	" AND (instr(lower(pu.display_name), ?7) > 0 OR instr(lower(pu.email), ?7) > 0)"
/* The users whose suffixes are in range: in the index, not yet moved to it,
 * or not yet written. */
#define SUFFIX_USERS \
	"(" SUFFIX_RANGE_OF("user_suffixes") " UNION ALL" \
	SUFFIX_RANGE_OF("user_suffixes_recent") " UNION ALL" PENDING_IN_RANGE ")"
#define USER_FROM_INDEXED \
	" FROM (SELECT DISTINCT user_rowid FROM " SUFFIX_USERS ") m" \
	" CROSS JOIN users u ON u.rowid = m.user_rowid"

/* docs/api.md §"Lists": text sorts ignore case; NULLs first ascending and last
 * descending (SQLite's order); ties broken by ID so pages never overlap. */
#define ORDER(key, dir) " ORDER BY " key " " dir ", u.id " dir " LIMIT ?5 OFFSET ?6"
#define LIST(key, dir) "SELECT " USER_RECORD USER_FROM USER_FILTER ORDER(key, dir)
#define LIST_BOTH(key) LIST(key, "ASC"), LIST(key, "DESC")
/* Two steps: the inner query sorts the matches carrying only their rowid and
 * sort key, and only the page's rows are then read whole and joined to their
 * role. The subquery's column k keeps key's collation for the outer sort. */
#define LIST_INDEXED(key, dir) "SELECT " USER_RECORD " FROM" \
	" (SELECT u.rowid AS rid, " key " AS k, u.id AS kid" \
	USER_FROM_INDEXED " LEFT JOIN roles r ON r.id = u.role_id" USER_FILTER \
	ORDER(key, dir) ") p" \
	" CROSS JOIN users u ON u.rowid = p.rid LEFT JOIN roles r ON r.id = u.role_id" \
	" ORDER BY p.k " dir ", p.kid " dir
#define LIST_INDEXED_BOTH(key) LIST_INDEXED(key, "ASC"), LIST_INDEXED(key, "DESC")
/* Each sort's statements, by enum user_sort. */
#define LISTS(first, both) \
	[first + 2 * USER_SORT_CREATED_AT] = both("u.created_at"), \
	[first + 2 * USER_SORT_UPDATED_AT] = both("u.updated_at"), \
	[first + 2 * USER_SORT_DISPLAY_NAME] = both("u.display_name COLLATE NOCASE"), \
	[first + 2 * USER_SORT_EMAIL] = both("u.email COLLATE NOCASE"), \
	[first + 2 * USER_SORT_IS_ACTIVE] = both("u.is_active"), \
	[first + 2 * USER_SORT_EXTERNAL_USER_ID] = both("u.external_user_id COLLATE NOCASE"), \
	[first + 2 * USER_SORT_ROLE_NAME] = both("r.name COLLATE NOCASE")

/* The keys of column col of the pending users up to ?1, into
 * user_suffixes_recent, from where they move on as an updated user's do. */
#define PENDING_KEYS(col) \
	"INSERT OR IGNORE INTO user_suffixes_recent (project, suffix, user_rowid)" \
	" SELECT pr.rowid, substr(lower(u." col "), n, 10), u.rowid" \
	" FROM user_suffixes_pending p CROSS JOIN users u ON u.rowid = p.user_rowid" \
	" JOIN projects pr ON pr.id = u.project_id JOIN search_positions ON n <= length(u." col ")" \
	" WHERE p.user_rowid <= ?1"

static const char *const sql[SL__COUNT] = {
	[SL_COUNT] = "SELECT count(*) FROM users u" USER_FILTER,
	[SL_COUNT_INDEXED] = "SELECT count(*)" USER_FROM_INDEXED USER_FILTER,
	/* A term that fits a key, and no other filter: the range (with the
	 * pending users in it) is the answer. */
	[SL_COUNT_INDEX_ONLY] = "SELECT count(DISTINCT user_rowid) FROM " SUFFIX_USERS,
	/* No filter: the count kept by triggers (schema/004), not a scan. */
	[SL_COUNT_ALL] =
		"SELECT coalesce((SELECT total FROM user_counts WHERE project_id = ?1), 0)",
	/* The last of the first ?1 pending users (NULL: none); the keys of those
	 * up to it are written (one statement a column, as the triggers of
	 * schema/011 do) and they stop pending, in one transaction. */
	[SL_SUFFIX_PENDING_BOUND] = "SELECT max(user_rowid) FROM (SELECT user_rowid"
		" FROM user_suffixes_pending ORDER BY user_rowid LIMIT ?1)",
	/* At least as many as the pending users (two look-ups, not a count). */
	[SL_SUFFIX_PENDING_SPAN] = "SELECT coalesce(max(user_rowid) - min(user_rowid) + 1, 0)"
		" FROM user_suffixes_pending",
	[SL_SUFFIX_WRITE_NAMES] = PENDING_KEYS("display_name"),
	[SL_SUFFIX_WRITE_EMAILS] = PENDING_KEYS("email"),
	[SL_SUFFIX_PENDING_DELETE] = "DELETE FROM user_suffixes_pending WHERE user_rowid <= ?1",
	/* The last of the first ?1 keys of user_suffixes_recent in key order,
	 * which bounds a move (store_user_suffixes_move); no row when empty. */
	[SL_SUFFIX_MOVE_BOUND] =
		"SELECT project, suffix, user_rowid FROM (SELECT project, suffix, user_rowid"
		" FROM user_suffixes_recent ORDER BY project, suffix, user_rowid LIMIT ?1)"
		" ORDER BY project DESC, suffix DESC, user_rowid DESC LIMIT 1",
	[SL_SUFFIX_MOVE_COPY] =
		"INSERT OR IGNORE INTO user_suffixes (project, suffix, user_rowid)"
		" SELECT project, suffix, user_rowid FROM user_suffixes_recent"
		" WHERE (project, suffix, user_rowid) <= (?1, ?2, ?3)",
	[SL_SUFFIX_MOVE_DELETE] =
		"DELETE FROM user_suffixes_recent WHERE (project, suffix, user_rowid) <= (?1, ?2, ?3)",
	LISTS(SL_LIST, LIST_BOTH),
	LISTS(SL_LIST_INDEXED, LIST_INDEXED_BOTH),
};
const struct stmt_set store_users_list_sql = { SL__COUNT, sql, NULL };

static sqlite3_stmt *stmt(struct store *st, int which)
{
	return sqlite_of(st)->users_list.stmt[which];
}

/* ---- the search term ---- */

/* A term of fewer characters finds so many suffixes that the scan of the
 * project's users is as quick; such a search is not indexed. */
#define SEARCH_INDEXED_MIN_CHARS 3
/* The length the index cuts suffixes to (schema/005_users_suffixes.sql). */
#define SEARCH_KEY_CHARS 10

/* A search as the statements take it. like: "%term%" with %, _ and \
 * escaped by \ (ESCAPE '\'), so that they are literal. lo and hi: the range
 * of user_suffixes keys that start with the term, when it is indexed: lo is
 * the term lowercased as SQLite's lower() does (ASCII only) and cut to
 * SEARCH_KEY_CHARS code points, hi is lo with its last byte raised by one
 * (valid UTF-8, as every query value is, has no 0xFF byte), so every key
 * with prefix lo sorts in [lo, hi) by BINARY collation. */
struct search {
	char *like;      /* NULL: no search; owns lo and hi too */
	char *lo, *hi;   /* NULL: not indexed */
	bool exact;      /* the term fits a key: the range is exactly the matches */
};

/* Makes s from the raw term (NULL: no search); search_release frees it. */
static void search_make(const char *term, struct search *s)
{
	size_t n = term ? strlen(term) : 0, chars = 0, len;
	char *like, *key;

	memset(s, 0, sizeof *s);
	if (!n)
		return;
	s->like = like = xmalloc((2 * n + 3) + 2 * (n + 1));
	s->lo = key = s->like + 2 * n + 3;
	*like++ = '%';
	for (const char *p = term; *p; p++) {
		if (*p == '%' || *p == '_' || *p == '\\')
			*like++ = '\\';
		*like++ = *p;
		if (((unsigned char)*p & 0xC0) != 0x80)
			chars++;
		if (chars <= SEARCH_KEY_CHARS)
			*key++ = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	}
	memcpy(like, "%", 2);
	*key = '\0';
	if (chars < SEARCH_INDEXED_MIN_CHARS) {
		s->lo = NULL;
		return;
	}
	s->exact = chars <= SEARCH_KEY_CHARS;
	len = (size_t)(key - s->lo);
	s->hi = key + 1;
	memcpy(s->hi, s->lo, len + 1);
	s->hi[len - 1] = (char)((unsigned char)s->hi[len - 1] + 1);
}

static void search_release(struct search *s)
{
	free(s->like);
	memset(s, 0, sizeof *s);
}

/* ---- count and page ---- */

/* Binds the list filters ?1..?4 shared by the count and list statements, and
 * ?7 and ?8, the search range, which only the _INDEXED ones have; the LIKE
 * is left out (NULL) where the range alone decides. */
static void bind_filter(sqlite3_stmt *s, const char *project_id, const struct list_query *q,
                        const struct search *search)
{
	store_bind_text(s, 1, project_id);
	store_bind_text(s, 2, search->lo && search->exact ? NULL : search->like);
	if (q->is_active >= 0)
		sqlite3_bind_int(s, 3, q->is_active);
	else
		sqlite3_bind_null(s, 3);
	store_bind_text(s, 4, q->role_id);
	if (search->lo) {
		store_bind_text(s, 7, search->lo);
		store_bind_text(s, 8, search->hi);
	}
}

/* The number of users that match into *total: 0, or -1 with err. */
static int list_count(struct store *st, const char *project_id, const struct list_query *q,
                      const struct search *search, long long *total, struct api_error *err)
{
	bool only_search = q->is_active < 0 && !q->role_id;
	sqlite3_stmt *s;
	int rc;

	if (only_search && !search->like) {
		s = stmt(st, SL_COUNT_ALL);
		store_bind_text(s, 1, project_id);
	} else if (only_search && search->lo && search->exact) {
		s = stmt(st, SL_COUNT_INDEX_ONLY);
		store_bind_text(s, 1, project_id);
		store_bind_text(s, 7, search->lo);
		store_bind_text(s, 8, search->hi);
	} else {
		s = stmt(st, search->lo ? SL_COUNT_INDEXED : SL_COUNT);
		bind_filter(s, project_id, q, search);
	}
	rc = store_step(st, s, err);
	if (rc == 1)
		*total = sqlite3_column_int64(s, 0);
	else if (rc == 0)   /* a count has a row */
		rc = store_fail(st, err, "user count");
	store_stmt_finish(s);
	return rc < 0 ? -1 : 0;
}

/* Steps s and joins its rows' column 0 (records) into the text of a JSON
 * array, *out (caller frees). 0, or -1 with err. Finishes s. */
static int page_read(struct store *st, sqlite3_stmt *s, char **out, struct api_error *err)
{
	size_t len = 0, cap = 4096;
	char *data = xmalloc(cap);
	int rc;

	data[len++] = '[';
	while ((rc = store_step(st, s, err)) == 1) {
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
	if (rc < 0) {
		free(data);
		return -1;
	}
	data[len++] = ']';
	data[len] = '\0';
	*out = data;
	return 0;
}

static int list_page(struct store *st, const char *project_id, const struct list_query *q,
                     const struct search *search, struct page *out, struct api_error *err)
{
	sqlite3_stmt *s;

	if (list_count(st, project_id, q, search, &out->total, err) < 0)
		return -1;
	if (list_offset(q) >= out->total) {   /* past the end: no page to read */
		out->data = xstrdup("[]");
		return 0;
	}
	s = stmt(st, (search->lo ? SL_LIST_INDEXED : SL_LIST) + 2 * (int)q->sort + (q->desc ? 1 : 0));
	bind_filter(s, project_id, q, search);
	sqlite3_bind_int64(s, 5, q->page_size);
	sqlite3_bind_int64(s, 6, list_offset(q));
	return page_read(st, s, &out->data, err);
}

void sqlite_user_list(struct store *st, const char *project_id, const struct list_query *q,
                      struct page *out, struct completion done)
{
	struct search search;
	struct api_error err;
	int rc;

	assert(q->sort < USER_SORT__COUNT);
	out->data = NULL;
	out->total = 0;
	search_make(q->search, &search);
	rc = list_page(st, project_id, q, &search, out, &err);
	search_release(&search);
	complete(done, rc, &err);
}

/* ---- the index's upkeep ---- */

/* Binds the key in columns 0..2 of from as ?1..?3 of to. */
static void bind_suffix_key(sqlite3_stmt *to, sqlite3_stmt *from)
{
	sqlite3_bind_int64(to, 1, sqlite3_column_int64(from, 0));
	sqlite3_bind_text(to, 2, (const char *)sqlite3_column_text(from, 1),
	                  sqlite3_column_bytes(from, 1), SQLITE_TRANSIENT);
	sqlite3_bind_int64(to, 3, sqlite3_column_int64(from, 2));
}

/* Copies the keys up to the bound (bound to both statements) into the index
 * and deletes them from user_suffixes_recent. */
static int move_keys(struct store *st, void *arg, struct api_error *err)
{
	sqlite3_stmt *copy = stmt(st, SL_SUFFIX_MOVE_COPY), *del = stmt(st, SL_SUFFIX_MOVE_DELETE);

	(void)arg;
	if (store_step_write(st, copy, NULL, 0, NULL, err) < 0) {
		store_stmt_finish(del);   /* the bound is bound to both */
		return -1;
	}
	return store_step_write(st, del, NULL, 0, NULL, err);
}

/* A step's statements, in order; each takes the bound as ?1. */
static const int pending_steps[] = {
	SL_SUFFIX_WRITE_NAMES, SL_SUFFIX_WRITE_EMAILS, SL_SUFFIX_PENDING_DELETE };
enum { PENDING_STEPS = sizeof pending_steps / sizeof pending_steps[0] };

/* Writes the keys of the pending users up to the bound and takes them off
 * the pending list. */
static int write_pending_keys(struct store *st, void *arg, struct api_error *err)
{
	(void)arg;
	for (int i = 0; i < PENDING_STEPS; i++)
		if (store_step_write(st, stmt(st, pending_steps[i]), NULL, 0, NULL, err) < 0)
			return -1;   /* the caller finishes the ones not stepped */
	return 0;
}

/* A step of max_keys takes the pending users of max_keys / KEYS_A_STEP_USER
 * (20 at the server's 2,000): their keys, a dozen or two a user, land on as
 * many pages of user_suffixes_recent, and the step's savepoint journal (in
 * memory) holds the original of each; 100 users' held ~5 MiB more at the
 * server's peak (docs/BENCHMARKS.md). */
#define KEYS_A_STEP_USER 100

/* The keys of up to max_keys / KEYS_A_STEP_USER pending users (at least one):
 * 1 when there were some, 0 when none, -1 with err. */
static int write_pending(struct store *st, int max_keys, struct api_error *err)
{
	sqlite3_stmt *bound = stmt(st, SL_SUFFIX_PENDING_BOUND);
	sqlite3_int64 last = 0;
	int rc;

	sqlite3_bind_int(bound, 1, max_keys / KEYS_A_STEP_USER > 1 ? max_keys / KEYS_A_STEP_USER : 1);
	rc = store_step(st, bound, err);
	if (rc == 1 && sqlite3_column_type(bound, 0) != SQLITE_NULL)
		last = sqlite3_column_int64(bound, 0);
	else if (rc == 1)
		rc = 0;   /* max() of no row: none pending */
	else if (rc == 0)
		rc = store_fail(st, err, "pending search keys");   /* an aggregate has its row */
	store_stmt_finish(bound);
	if (rc <= 0)
		return rc;
	for (int i = 0; i < PENDING_STEPS; i++)
		sqlite3_bind_int64(stmt(st, pending_steps[i]), 1, last);
	rc = store_write_tx(st, write_pending_keys, NULL, NULL, err);
	for (int i = 0; i < PENDING_STEPS; i++)
		store_stmt_finish(stmt(st, pending_steps[i]));   /* if the transaction never began */
	return rc < 0 ? -1 : 1;
}

void sqlite_user_suffixes_backlog(struct store *st, long long users, bool *over,
                                  struct completion done)
{
	sqlite3_stmt *s = stmt(st, SL_SUFFIX_PENDING_SPAN);
	struct api_error err;

	/* a failure (logged by store_fail) reads as no backlog: the idle mover
	 * still writes the keys */
	*over = store_step(st, s, &err) == 1 && sqlite3_column_int64(s, 0) > users;
	store_stmt_finish(s);
	complete(done, 0, NULL);
}

static int suffixes_move(struct store *st, int max_keys, struct api_error *err)
{
	sqlite3_stmt *bound = stmt(st, SL_SUFFIX_MOVE_BOUND);
	sqlite3_stmt *copy = stmt(st, SL_SUFFIX_MOVE_COPY), *del = stmt(st, SL_SUFFIX_MOVE_DELETE);
	int rc;

	assert(max_keys > 0);
	rc = write_pending(st, max_keys, err);
	if (rc != 0)
		return rc;
	sqlite3_bind_int(bound, 1, max_keys);
	rc = store_step(st, bound, err);
	if (rc == 1) {
		bind_suffix_key(copy, bound);
		bind_suffix_key(del, bound);
	}
	store_stmt_finish(bound);
	if (rc <= 0)
		return rc;
	rc = store_write_tx(st, move_keys, NULL, NULL, err);
	store_stmt_finish(copy);   /* if the transaction never began */
	store_stmt_finish(del);
	return rc < 0 ? -1 : 1;
}

void sqlite_user_suffixes_move(struct store *st, int max_keys, int *moved, struct completion done)
{
	struct api_error err;

	*moved = suffixes_move(st, max_keys, &err);
	complete(done, *moved, &err);
}
