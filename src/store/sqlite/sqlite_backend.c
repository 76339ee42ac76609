/*
 * The SQLite backend's table of operations (store_backend.h): one line per
 * area, each area's operations in its sqlite_<area>.c.
 */
#include "sqlite_backend.h"

const struct store_backend sqlite_backend = {
	.name = "sqlite",
	.roles = &sqlite_roles_ops,
	.resources = &sqlite_resources_ops,
	.projects = &sqlite_projects_ops,
	.keys = &sqlite_keys_ops,
	.events = &sqlite_events_ops,
	.outbox = &sqlite_outbox_ops,
	.sessions = &sqlite_sessions_ops,
	.clients = &sqlite_clients_ops,
	.users = &sqlite_users_ops,
	.tokens = &sqlite_tokens_ops,
};
