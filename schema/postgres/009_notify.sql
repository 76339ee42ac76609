-- edgeauth's PostgreSQL schema, version 9 (PostgreSQL only): what tells every
-- node that its caches are stale (docs/operations.md §"A fleet on PostgreSQL").
--
-- Each node caches what it derives from the store (a client's scope, a role's
-- permissions, a bearer token's verdict, the signing keys) and LISTENs on the
-- channel edgeauth. Every write that can change one of those NOTIFYs it in the
-- writer's own transaction, by these triggers, so that no writer (a node, the
-- CLI, a tool of the operator's) can forget to; the notification is delivered
-- when, and only if, the transaction commits. The payload is empty: any
-- notification empties every cache of the node. PostgreSQL folds the
-- notifications of one transaction into one.

CREATE FUNCTION edgeauth_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('edgeauth', '');
	RETURN NULL;
END $$;

-- a project's or client's activity, tokens_valid_after, deletion
CREATE TRIGGER projects_notify AFTER UPDATE OR DELETE ON projects
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER clients_notify AFTER UPDATE OR DELETE ON clients
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
-- a user's activity, role, deletion
CREATE TRIGGER users_notify AFTER UPDATE OF is_active, role_id, tokens_valid_after OR DELETE
ON users FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
-- scopes: the permission sets of clients and roles, and the named forms
-- (resource and permission codes)
CREATE TRIGGER client_permissions_notify AFTER INSERT OR UPDATE OR DELETE ON client_permissions
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER role_permissions_notify AFTER INSERT OR UPDATE OR DELETE ON role_permissions
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER roles_notify AFTER DELETE ON roles
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER resources_notify AFTER UPDATE OF code OR DELETE ON resources
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER permissions_notify AFTER UPDATE OF code OR DELETE ON permissions
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
-- revocations, and a session's end (which revokes its sign-ins)
CREATE TRIGGER revoked_tokens_notify AFTER INSERT ON revoked_tokens
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
-- (for each row: a statement trigger fires on a statement that changes no
-- row, and the purge deletes sessions every tick, most often none)
CREATE TRIGGER sessions_notify AFTER UPDATE OF ended_at OR DELETE ON sessions
FOR EACH ROW EXECUTE FUNCTION edgeauth_notify();
-- the signing keys
CREATE TRIGGER signing_keys_notify AFTER INSERT OR UPDATE OR DELETE ON signing_keys
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
