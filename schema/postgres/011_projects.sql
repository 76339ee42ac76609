-- edgeauth's PostgreSQL schema, version 11 (PostgreSQL only): a project's
-- creation (src/store/store_projects.c), one statement: the project, its four
-- default resources with their twelve permissions (docs/api.md §"Permissions and default resources", as
-- store_resource_insert_defaults makes them) and its admin client. IDs are
-- edgeauth's own (crypto_new_id), passed in.

-- An active admin client of the project, holding the twelve permissions of
-- its default resources (docs/api.md §"Permissions and default resources", §"Read one and delete"); p_name, p_description and
-- p_method are store_admin_client's (src/store/store_projects.c).
CREATE FUNCTION edgeauth_admin_client_insert(p_project ctext, p_client ctext,
	p_secret_hash ctext, p_name ctext, p_description ctext, p_method ctext, p_now bigint)
RETURNS void LANGUAGE sql AS $$
	INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,
	                     token_endpoint_auth_method, created_at, updated_at)
	VALUES (p_client, p_project, p_name, p_description, p_secret_hash, true, p_method, p_now,
	        p_now);
	INSERT INTO client_permissions (client_id, permission_id)
	SELECT p_client, id FROM named_permissions WHERE project_id = p_project AND is_default;
$$;

-- p_ids: 16 new IDs, the four resources' then their permissions'.
CREATE FUNCTION edgeauth_project_create(p_id ctext, p_name ctext, p_ids jsonb, p_client ctext,
	p_secret_hash ctext, p_client_name ctext, p_client_description ctext, p_client_method ctext)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_ids);
	now_ms bigint := edgeauth_now_ms();
BEGIN
	INSERT INTO projects (id, name, is_active, created_at, updated_at)
	VALUES (p_id, p_name, true, now_ms, now_ms);
	INSERT INTO resources (id, project_id, name, code, description, is_default, created_at,
	                       updated_at)
	SELECT ids[d.n], p_id, d.name, d.code, d.description, true, now_ms, now_ms
	FROM (VALUES (1, 'Resources', 'resources', 'Resources and their permissions'),
	             (2, 'Users', 'users', 'Users of the project'),
	             (3, 'Roles', 'roles', 'Roles: sets of permissions'),
	             (4, 'Clients', 'clients', 'Applications that obtain tokens'))
	     AS d(n, name, code, description);
	INSERT INTO permissions (id, resource_id, project_id, name, code, description, position)
	SELECT ids[4 + (r.n - 1) * 3 + p.n], ids[r.n], p_id, p.name, p.code, p.name || ' ' || r.code,
	       p.n - 1
	FROM (VALUES (1, 'resources'), (2, 'users'), (3, 'roles'), (4, 'clients')) AS r(n, code),
	     (VALUES (1, 'Create', 'create'), (2, 'Update', 'update'), (3, 'Read', 'read'))
	     AS p(n, name, code);
	PERFORM edgeauth_admin_client_insert(p_id, p_client, p_secret_hash, p_client_name,
	                                     p_client_description, p_client_method, now_ms);
END $$;

-- A new admin client of an existing project (the CLI's recovery, §8): false
-- when there is no such project.
CREATE FUNCTION edgeauth_project_admin_client(p_project ctext, p_client ctext,
	p_secret_hash ctext, p_client_name ctext, p_client_description ctext, p_client_method ctext)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM projects WHERE id = p_project) THEN
		RETURN false;
	END IF;
	PERFORM edgeauth_admin_client_insert(p_project, p_client, p_secret_hash, p_client_name,
	                                     p_client_description, p_client_method, edgeauth_now_ms());
	RETURN true;
END $$;
