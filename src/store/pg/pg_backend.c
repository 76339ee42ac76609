/*
 * The PostgreSQL backend's table of operations (store_backend.h): one line
 * per area, each area's operations in its pg_<area>.c.
 */
#include "pg_backend.h"

const struct store_backend pg_backend = {
	.name = "postgres",
	.close = pg_store_close,
	.stamp = pg_store_stamp,
	.read_stamp = pg_store_stamp,
	.idle = pg_store_idle,
	.roles = &pg_roles_ops,
	.resources = &pg_resources_ops,
	.projects = &pg_projects_ops,
	.keys = &pg_keys_ops,
	.events = &pg_events_ops,
	.outbox = &pg_outbox_ops,
	.sessions = &pg_sessions_ops,
	.device = &pg_device_ops,
	.factors = &pg_factors_ops,
	.forward = &pg_forward_ops,
	.passkeys = &pg_passkeys_ops,
	.access = &pg_access_ops,
	.clients = &pg_clients_ops,
	.users = &pg_users_ops,
	.tokens = &pg_tokens_ops,
};
