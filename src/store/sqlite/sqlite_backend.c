/*
 * The SQLite backend's table of operations (store_backend.h): one line per
 * area, each area's operations in its sqlite_<area>.c.
 */
#include "sqlite_backend.h"

/* SQLite's operations complete before they return: none is ever under way. */
static bool sqlite_idle(const struct store *st)
{
	(void)st;
	return true;
}

const struct store_backend sqlite_backend = {
	.name = "sqlite",
	.close = sqlite_store_close,
	.stamp = sqlite_store_stamp,
	.read_stamp = sqlite_store_read_stamp,
	.idle = sqlite_idle,
	.roles = &sqlite_roles_ops,
	.resources = &sqlite_resources_ops,
	.projects = &sqlite_projects_ops,
	.keys = &sqlite_keys_ops,
	.events = &sqlite_events_ops,
	.outbox = &sqlite_outbox_ops,
	.sessions = &sqlite_sessions_ops,
	.factors = &sqlite_factors_ops,
	.forward = &sqlite_forward_ops,
	.passkeys = &sqlite_passkeys_ops,
	.device = &sqlite_device_ops,
	.access = &sqlite_access_ops,
	.clients = &sqlite_clients_ops,
	.users = &sqlite_users_ops,
	.tokens = &sqlite_tokens_ops,
};
