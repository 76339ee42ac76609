-- A role may require a second factor, as schema/027_role_second_factor.sql
-- on SQLite (docs/signin.md §"Second factors"): its users who have none
-- enroll a TOTP factor right after the password, before any code is issued.

ALTER TABLE roles ADD COLUMN requires_second_factor boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION edgeauth_role_json(r roles) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id, 'code', r.code, 'name', r.name,
		'description', r.description,
		'permission_ids', edgeauth_role_permission_ids(r.id),
		'requires_second_factor', r.requires_second_factor,
		'created_at', edgeauth_iso_time(r.created_at),
		'updated_at', edgeauth_iso_time(r.updated_at))
$$;

-- the signatures of version 15
DROP FUNCTION edgeauth_role_create(ctext, ctext, ctext, ctext, ctext, jsonb, ctext, json);
DROP FUNCTION edgeauth_role_update(ctext, ctext, ctext, ctext, boolean, ctext, jsonb, ctext,
	json);

-- Creates a role (the order of docs/api.md §"Which error wins"): some_permissions_not_found and
-- insufficient_permission for what it would be given (p_permission_ids NULL:
-- none), then 'code_taken' (a create racing it included).
CREATE FUNCTION edgeauth_role_create(p_project ctext, p_id ctext, p_code ctext, p_name ctext,
	p_description ctext, p_permission_ids jsonb, p_scope ctext, p_event json,
	p_second_factor boolean)
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
	INSERT INTO roles (id, project_id, code, name, description, requires_second_factor,
		created_at, updated_at)
	VALUES (p_id, p_project, p_code, p_name, p_description, p_second_factor, now_ms, now_ms)
	ON CONFLICT (project_id, code) DO NOTHING;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('code_taken');
	END IF;
	INSERT INTO role_permissions (role_id, permission_id)
	SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	RETURN edgeauth_done_event(edgeauth_role_record(p_id), edgeauth_event(p_event));
END $$;

-- Updates a role; p_second_factor NULL keeps the stored value.
CREATE FUNCTION edgeauth_role_update(p_project ctext, p_id ctext, p_code ctext, p_name ctext,
	p_keep_description boolean, p_description ctext, p_permission_ids jsonb, p_scope ctext,
	p_event json, p_second_factor boolean)
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
			requires_second_factor = coalesce(p_second_factor, requires_second_factor),
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
