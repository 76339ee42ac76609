#ifndef EDGEAUTH_STORE_USERS_SQL_H
#define EDGEAUTH_STORE_USERS_SQL_H
/*
 * The user record as the SQLite backend writes it, for every read of it:
 * sqlite_users.c (the read back of a write, the external ID) and
 * sqlite_users_list.c (pages). One column list, one key order: a field is
 * added here, once. Only those two files include this; it also names the
 * list's operations, which sqlite_users.c puts in sqlite_users_ops.
 */
#include <stdbool.h>

#include "store_backend.h"

/* docs/api.md §"Records": {id, display_name, avatar_url, external_user_id, email,
 * email_verified, is_active, role_id, role_name, second_factors, created_at,
 * updated_at},
 * empty fields null (email_verified too, for a user with no email),
 * over users u and their role r (USER_FROM). SQLite writes the text: building
 * and freeing jansson trees was half of a list page's cost. iso_time is
 * format_timestamp (sqlite_store.c), which writes any time, before 1970 too. */
#define USER_RECORD \
	"json_object('id', u.id, 'display_name', u.display_name," \
	" 'avatar_url', u.avatar_url, 'external_user_id', u.external_user_id, 'email', u.email," \
	" 'email_verified', json(CASE WHEN u.email IS NULL THEN 'null'" \
	" WHEN u.email_verified THEN 'true' ELSE 'false' END)," \
	" 'is_active', json(CASE WHEN u.is_active THEN 'true' ELSE 'false' END)," \
	" 'role_id', u.role_id, 'role_name', r.name," \
	" 'second_factors', json((SELECT json_group_array(kind) FROM (SELECT kind" \
	" FROM user_factors f WHERE f.user_id = u.id AND f.confirmed_at IS NOT NULL" \
	" UNION SELECT 'passkey' FROM user_passkeys k WHERE k.user_id = u.id" \
	" ORDER BY kind)))," \
	" 'created_at', iso_time(u.created_at), 'updated_at', iso_time(u.updated_at))"
#define USER_FROM " FROM users u LEFT JOIN roles r ON r.id = u.role_id"

/* sqlite_users_list.c: store_users_ops' list, suffixes_move and
 * suffixes_backlog (store_users.h). */
void sqlite_user_list(struct store *st, const char *project_id, const struct list_query *q,
                      struct page *out, struct completion done);
void sqlite_user_suffixes_move(struct store *st, int max_keys, int *moved, struct completion done);
void sqlite_user_suffixes_backlog(struct store *st, long long users, bool *over,
                                  struct completion done);

#endif
