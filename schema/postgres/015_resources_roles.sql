-- edgeauth's PostgreSQL schema, version 15 (PostgreSQL only): the resources
-- and roles areas (src/store/store_resources.c and src/store/store_roles.c; on PostgreSQL
-- src/store/pg/pg_resources.c and src/store/pg/pg_roles.c): the records' one definition and the
-- writes, each one statement that checks, writes and answers the record
-- (edgeauth_outcome, version 10) with the event it recorded (version 14). The
-- caches these tables feed (a role's or a client's scope) are told by the
-- triggers of version 9: role_permissions, and the codes and deletions of
-- resources, permissions and roles.

-- ---- resources ----

-- A resource's permissions in their stored order. plpgsql, whose plans are
-- kept for the session (as edgeauth_ids, version 10).
CREATE FUNCTION edgeauth_resource_permissions(p_id ctext) RETURNS json LANGUAGE plpgsql STABLE
AS $$
BEGIN
	RETURN (SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name,
	                'code', p.code, 'description', p.description) ORDER BY p.position), '[]')
	        FROM permissions p WHERE p.resource_id = p_id);
END $$;

-- The record (docs/api.md §"Records") of the resources row r: the keys, their order
-- and the timestamps of RESOURCE_JSON in src/store/store_resources.c.
CREATE FUNCTION edgeauth_resource_json(r resources) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id, 'name', r.name, 'code', r.code,
		'description', r.description, 'is_default', r.is_default,
		'permissions', edgeauth_resource_permissions(r.id),
		'created_at', edgeauth_iso_time(r.created_at),
		'updated_at', edgeauth_iso_time(r.updated_at))
$$;

CREATE FUNCTION edgeauth_resource_record(p_id ctext) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT edgeauth_resource_json(r)::text FROM resources r WHERE r.id = p_id $$;

-- The permission items of a write, as src/store/pg/pg_resources.c sends them: a JSON
-- array of {id, is_new, name, code, description, keep_description, position}
-- (is_new: id is made for this write; keep_description: the item left it out).
CREATE TYPE edgeauth_permission_item AS (id ctext, is_new boolean, name ctext, code ctext,
	description ctext, keep_description boolean, position integer);

CREATE FUNCTION edgeauth_permission_items(p jsonb) RETURNS SETOF edgeauth_permission_item
LANGUAGE sql STABLE
AS $$ SELECT * FROM jsonb_populate_recordset(NULL::edgeauth_permission_item, p) $$;

-- Whether two items share a code: the api file refuses that first, and a
-- write that went on would break UNIQUE (resource_id, code) and raise.
CREATE FUNCTION edgeauth_permission_codes_repeat(p jsonb) RETURNS boolean LANGUAGE sql STABLE
AS $$ SELECT count(DISTINCT code) < count(*) FROM edgeauth_permission_items(p) $$;

-- Writes the items as permissions of the resource p_id: a new one is
-- inserted, an existing one updated, each at its position. The codes they
-- take must be free (parked, see edgeauth_resource_update).
CREATE FUNCTION edgeauth_permissions_write(p_project ctext, p_id ctext, p_items jsonb)
RETURNS void LANGUAGE sql AS $$
	UPDATE permissions p SET name = i.name, code = i.code,
		description = CASE WHEN i.keep_description THEN p.description ELSE i.description END,
		position = i.position
	FROM edgeauth_permission_items(p_items) i WHERE NOT i.is_new AND p.id = i.id;
	INSERT INTO permissions (id, resource_id, project_id, name, code, description, position)
	SELECT i.id, p_id, p_project, i.name, i.code, i.description, i.position
	FROM edgeauth_permission_items(p_items) i WHERE i.is_new;
$$;

-- Whether the project's resource p_id may be written: NULL, or 'not_found',
-- or p_default when it is a default one (docs/api.md §"Permissions and default resources"). Locks its row.
CREATE FUNCTION edgeauth_resource_writable(p_project ctext, p_id ctext, p_default ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql AS $$
DECLARE
	v_default boolean;
BEGIN
	SELECT is_default INTO v_default FROM resources
	WHERE id = p_id AND project_id = p_project FOR UPDATE;
	RETURN CASE WHEN NOT FOUND THEN ('not_found', NULL)::edgeauth_refusal
	            WHEN v_default THEN (p_default, NULL)::edgeauth_refusal END;
END $$;

-- Every write takes p_event, the audit event it records when it has written
-- (pg_event_json; NULL: none), and answers its record in the outcome.

-- Creates a resource with its permissions: 'code_taken' when the project has
-- a resource of that code (a create racing it included: ON CONFLICT waits for
-- it), 'permission_code_taken' when two items share a code.
CREATE FUNCTION edgeauth_resource_create(p_project ctext, p_id ctext, p_name ctext,
	p_code ctext, p_description ctext, p_items jsonb, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
BEGIN
	IF edgeauth_permission_codes_repeat(p_items) THEN
		RETURN edgeauth_failed('permission_code_taken');
	END IF;
	INSERT INTO resources (id, project_id, name, code, description, is_default, created_at,
	                       updated_at)
	VALUES (p_id, p_project, p_name, p_code, p_description, false, now_ms, now_ms)
	ON CONFLICT (project_id, code) DO NOTHING;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('code_taken');
	END IF;
	PERFORM edgeauth_permissions_write(p_project, p_id, p_items);
	RETURN edgeauth_done_event(edgeauth_resource_record(p_id), edgeauth_event(p_event));
END $$;

-- Updates a resource (the order of docs/api.md §"Which error wins"): not_found, 'default_update',
-- 'foreign_permission' (an item's ID is not one of this resource's
-- permissions), 'code_taken'. p_items NULL keeps the permissions;
-- else they become exactly the items: every stored code is parked first (to
-- U+0001 and the row's ID, which no valid code can be) so that the items may
-- swap codes, and what no item took back is deleted, its grants to roles and
-- clients with it (ON DELETE CASCADE). p_keep_description: the body left the
-- description out.
CREATE FUNCTION edgeauth_resource_update(p_project ctext, p_id ctext, p_name ctext,
	p_code ctext, p_keep_description boolean, p_description ctext, p_items jsonb,
	p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_resource_writable(p_project, p_id, 'default_update');
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	IF EXISTS (SELECT 1 FROM edgeauth_permission_items(p_items) i WHERE NOT i.is_new
	           AND NOT EXISTS (SELECT 1 FROM permissions WHERE id = i.id AND resource_id = p_id)) THEN
		RETURN edgeauth_failed('foreign_permission');
	END IF;
	IF edgeauth_permission_codes_repeat(p_items) THEN
		RETURN edgeauth_failed('permission_code_taken');
	END IF;
	BEGIN
		UPDATE resources SET name = p_name, code = p_code,
			description = CASE WHEN p_keep_description THEN description ELSE p_description END,
			updated_at = edgeauth_now_ms()
		WHERE id = p_id;
	EXCEPTION WHEN unique_violation THEN   -- a resource of the project has the code
		RETURN edgeauth_failed('code_taken');
	END;
	IF p_items IS NOT NULL THEN
		UPDATE permissions SET code = chr(1) || id WHERE resource_id = p_id;
		PERFORM edgeauth_permissions_write(p_project, p_id, p_items);
		DELETE FROM permissions WHERE resource_id = p_id AND code = chr(1) || id;
	END IF;
	RETURN edgeauth_done_event(edgeauth_resource_record(p_id), edgeauth_event(p_event));
END $$;

-- Deletes a resource and its permissions, which leave every role and client
-- (ON DELETE CASCADE): not_found, then 'default_delete' (docs/api.md §"Permissions and default resources", §"Read one and delete").
CREATE FUNCTION edgeauth_resource_delete(p_project ctext, p_id ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_resource_writable(p_project, p_id, 'default_delete');
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	DELETE FROM resources WHERE id = p_id;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;

-- ---- roles ----

-- The role's permission IDs, sorted (plpgsql: see edgeauth_resource_permissions).
CREATE FUNCTION edgeauth_role_permission_ids(p_id ctext) RETURNS json LANGUAGE plpgsql STABLE
AS $$
BEGIN
	RETURN (SELECT coalesce(json_agg(permission_id ORDER BY permission_id), '[]')
	        FROM role_permissions WHERE role_id = p_id);
END $$;

-- The record (docs/api.md §"Records") of the roles row r: ROLE_JSON's keys, order
-- and timestamps (src/store/store_roles.c).
CREATE FUNCTION edgeauth_role_json(r roles) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id, 'code', r.code, 'name', r.name,
		'description', r.description,
		'permission_ids', edgeauth_role_permission_ids(r.id),
		'created_at', edgeauth_iso_time(r.created_at),
		'updated_at', edgeauth_iso_time(r.updated_at))
$$;

CREATE FUNCTION edgeauth_role_record(p_id ctext) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT edgeauth_role_json(r)::text FROM roles r WHERE r.id = p_id $$;

-- Creates a role (the order of docs/api.md §"Which error wins"): some_permissions_not_found and
-- insufficient_permission for what it would be given (p_permission_ids NULL:
-- none), then 'code_taken' (a create racing it included).
CREATE FUNCTION edgeauth_role_create(p_project ctext, p_id ctext, p_code ctext, p_name ctext,
	p_description ctext, p_permission_ids jsonb, p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
	now_ms bigint := edgeauth_now_ms();
BEGIN
	PERFORM edgeauth_permissions_lock(ids);
	r := edgeauth_check_ids(p_project, p_scope, ids);
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO roles (id, project_id, code, name, description, created_at, updated_at)
	VALUES (p_id, p_project, p_code, p_name, p_description, now_ms, now_ms)
	ON CONFLICT (project_id, code) DO NOTHING;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('code_taken');
	END IF;
	INSERT INTO role_permissions (role_id, permission_id)
	SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	RETURN edgeauth_done_event(edgeauth_role_record(p_id), edgeauth_event(p_event));
END $$;

-- Whether the project's role p_id may be written by a caller with scope,
-- given p_ids (NULL: no new set) (the order of docs/api.md §"Which error wins"): NULL, or
-- 'not_found', some_permissions_not_found or insufficient_permission for the
-- new set, then insufficient_permission for what the role holds. Locks its row.
CREATE FUNCTION edgeauth_role_writable(p_project ctext, p_id ctext, p_scope ctext,
	p_ids ctext[])
RETURNS edgeauth_refusal LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal;
BEGIN
	PERFORM 1 FROM roles WHERE id = p_id AND project_id = p_project FOR UPDATE;
	IF NOT FOUND THEN
		RETURN ('not_found', NULL)::edgeauth_refusal;
	END IF;
	PERFORM edgeauth_permissions_lock(p_ids);
	r := edgeauth_check_ids(p_project, p_scope, p_ids);
	IF r.status IS NULL THEN
		r := edgeauth_check_holder(p_scope, 'role', p_id);
	END IF;
	RETURN r;
END $$;

-- Updates a role (PUT: p_keep_description keeps the description, a NULL
-- p_permission_ids the permission set; '[]' clears it): edgeauth_role_writable's
-- refusals, then 'code_taken'.
CREATE FUNCTION edgeauth_role_update(p_project ctext, p_id ctext, p_code ctext, p_name ctext,
	p_keep_description boolean, p_description ctext, p_permission_ids jsonb, p_scope ctext,
	p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal := edgeauth_role_writable(p_project, p_id, p_scope, ids);
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	BEGIN
		UPDATE roles SET code = p_code, name = p_name,
			description = CASE WHEN p_keep_description THEN description ELSE p_description END,
			updated_at = edgeauth_now_ms()
		WHERE id = p_id;
	EXCEPTION WHEN unique_violation THEN   -- a role of the project has the code
		RETURN edgeauth_failed('code_taken');
	END;
	IF ids IS NOT NULL THEN
		DELETE FROM role_permissions WHERE role_id = p_id;
		INSERT INTO role_permissions (role_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	END IF;
	RETURN edgeauth_done_event(edgeauth_role_record(p_id), edgeauth_event(p_event));
END $$;

-- Deletes the role: not_found, then insufficient_permission (what it holds).
-- Its users are left with no role (ON DELETE SET NULL), its grants go with it.
CREATE FUNCTION edgeauth_role_delete(p_project ctext, p_id ctext, p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_role_writable(p_project, p_id, p_scope, NULL);
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	DELETE FROM roles WHERE id = p_id;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;
