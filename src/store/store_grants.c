/*
 * No escalation: the front (store_grants.h). The refusals' words, which
 * both backends answer with: SQLite's checks (sqlite_grants.c) and
 * PostgreSQL's statements (store_pg.c reads their kind).
 */
#include <string.h>

#include "store_grants.h"

/* Each kind of insufficient_permission, with the end of its sentence,
 * after the permission's name. */
static const struct refusal {
	const char *kind;
	const char *why;
} refusals[] = {
	{ "role", "which the role holds" },
	{ "client", "which the client holds" },
	{ "user", "which the user's role holds" },
	{ "permission", "so it cannot grant it" },
	{ "admin", "and only a token with all twelve default permissions may change where"
	           " a client's tokens go" },
};

int store_grant_refuse(const char *kind, const char *named, struct api_error *err)
{
	if (!strcmp(kind, "unknown"))
		return api_fail(err, E_SOME_PERMISSIONS_NOT_FOUND,
		                "One or more permission IDs do not exist in this project.");
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
		if (!strcmp(refusals[i].kind, kind))
			return api_fail(err, E_INSUFFICIENT_PERMISSION, "The token does not carry %s, %s.",
			                named ? named : "a permission", refusals[i].why);
	return api_fail(err, E_SYSTEM_ERROR, "The store failed.");
}
