-- The device authorization grant (RFC 8628, docs/device.md), as
-- schema/022_device.sql on SQLite: the clients' device_flow (off unless
-- set; setting or changing it needs all twelve permissions, as where tokens
-- go, docs/signin.md §"Who may change where tokens go"), and the device
-- authorizations, both codes stored as hashes. Times in ms by the node's
-- clock (they are written and compared with the node's now).
ALTER TABLE clients ADD COLUMN device_flow boolean NOT NULL DEFAULT false;

CREATE TABLE device_authorizations (
	device_hash    ctext PRIMARY KEY,
	user_code_hash ctext NOT NULL UNIQUE,
	project_id     ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id      ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	scope          ctext,
	created_at     bigint NOT NULL,
	expires_at     bigint NOT NULL,
	interval_s     integer NOT NULL,
	last_poll_at   bigint,
	slowed         boolean NOT NULL DEFAULT false,
	address        ctext,
	state          ctext NOT NULL DEFAULT 'pending'
	               CHECK (state IN ('pending', 'approved', 'denied', 'issued')),
	user_id        ctext REFERENCES users(id) ON DELETE CASCADE,
	session_id     ctext,
	decided_at     bigint
);
CREATE INDEX device_authorizations_by_expiry ON device_authorizations(expires_at);

-- The record gains device_flow, before the timestamps (CLIENT_JSON in
-- src/store/sqlite/sqlite_clients.c).
CREATE OR REPLACE FUNCTION edgeauth_client_json(c clients, p_permission_ids json) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', c.id, 'name', c.name, 'description', c.description,
		'is_active', c.is_active,
		'permission_ids', p_permission_ids,
		'redirect_uris', c.redirect_uris,
		'post_logout_redirect_uris', c.post_logout_redirect_uris,
		'backchannel_logout_uri', c.backchannel_logout_uri,
		'token_endpoint_auth_method', c.token_endpoint_auth_method,
		'id_token_signed_response_alg', c.id_token_signed_response_alg,
		'forward_auth_urls', c.forward_auth_urls,
		'device_flow', c.device_flow,
		'created_at', edgeauth_iso_time(c.created_at),
		'updated_at', edgeauth_iso_time(c.updated_at))
$$;

-- The writes take p_device_flow last: create, whether to set it; update,
-- NULL keeps it. Otherwise as in version 27 (forward authentication).
DROP FUNCTION edgeauth_client_create(ctext, ctext, ctext, ctext, ctext, jsonb, jsonb, jsonb,
	ctext, ctext, ctext, ctext, json, jsonb);
DROP FUNCTION edgeauth_client_update(ctext, ctext, ctext, boolean, boolean, ctext, boolean,
	jsonb, boolean, jsonb, boolean, jsonb, boolean, ctext, ctext, ctext, ctext, json, boolean,
	jsonb);

CREATE FUNCTION edgeauth_client_create(p_project ctext, p_id ctext, p_name ctext,
	p_description ctext, p_secret_hash ctext, p_permission_ids jsonb, p_redirect jsonb,
	p_post_logout jsonb, p_backchannel ctext, p_method ctext, p_alg ctext, p_scope ctext,
	p_event json, p_forward jsonb, p_device_flow boolean)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
	now_ms bigint := edgeauth_now_ms();
	c clients;
	perms json := '[]';
BEGIN
	IF cardinality(ids) > 0 THEN   -- none: nothing to lock or check
		PERFORM edgeauth_permissions_lock(ids);
		r := edgeauth_check_ids(p_project, p_scope, ids);
	END IF;
	IF r.status IS NULL AND (edgeauth_client_routing_changes('[]', '[]', NULL, 'none',
	   true, p_redirect, true, p_post_logout, true, p_backchannel, p_method)
	   OR p_forward IS DISTINCT FROM '[]' OR p_device_flow) THEN
		r := edgeauth_check_admin(p_project, p_scope);
	END IF;
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,
	                     redirect_uris, created_at, updated_at, post_logout_redirect_uris,
	                     backchannel_logout_uri, token_endpoint_auth_method,
	                     id_token_signed_response_alg, forward_auth_urls, device_flow)
	VALUES (p_id, p_project, p_name, p_description, p_secret_hash, true, p_redirect, now_ms,
	        now_ms, p_post_logout, p_backchannel, p_method, p_alg, p_forward, p_device_flow)
	RETURNING * INTO c;
	-- an INSERT of no rows would still fire client_permissions' trigger
	-- (version 9), whose notification empties every node's caches
	IF cardinality(ids) > 0 THEN
		INSERT INTO client_permissions (client_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
		perms := (SELECT p.ids FROM edgeauth_client_permissions_of(p_id) p);
	END IF;
	-- the record of the row in hand (reading it back cost a create 8% more)
	RETURN edgeauth_done_event(edgeauth_client_json(c, perms)::text,
	                           edgeauth_event(p_event));
END $$;

CREATE FUNCTION edgeauth_client_update(p_project ctext, p_id ctext, p_name ctext,
	p_is_active boolean, p_set_description boolean, p_description ctext,
	p_set_permissions boolean, p_permission_ids jsonb, p_set_redirect boolean, p_redirect jsonb,
	p_set_post_logout boolean, p_post_logout jsonb, p_set_backchannel boolean,
	p_backchannel ctext, p_method ctext, p_alg ctext, p_scope ctext, p_event json,
	p_set_forward boolean, p_forward jsonb, p_device_flow boolean)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	c clients;
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
BEGIN
	SELECT * INTO c FROM clients WHERE id = p_id AND project_id = p_project FOR UPDATE;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('not_found');
	END IF;
	IF p_set_permissions THEN
		PERFORM edgeauth_permissions_lock(ids);
		r := edgeauth_check_ids(p_project, p_scope, ids);
	END IF;
	IF r.status IS NULL THEN
		r := edgeauth_check_holder(p_scope, 'client', p_id);
	END IF;
	IF r.status IS NULL AND (edgeauth_client_routing_changes(c.redirect_uris,
	   c.post_logout_redirect_uris, c.backchannel_logout_uri, c.token_endpoint_auth_method,
	   p_set_redirect, p_redirect, p_set_post_logout, p_post_logout, p_set_backchannel,
	   p_backchannel, p_method)
	   OR (p_set_forward AND p_forward IS DISTINCT FROM c.forward_auth_urls)
	   OR (p_device_flow IS NOT NULL AND p_device_flow <> c.device_flow)) THEN
		r := edgeauth_check_admin(p_project, p_scope);
	END IF;
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	UPDATE clients SET name = p_name, is_active = p_is_active,
		description = CASE WHEN p_set_description THEN p_description ELSE description END,
		redirect_uris = CASE WHEN p_set_redirect THEN p_redirect ELSE redirect_uris END,
		post_logout_redirect_uris = CASE WHEN p_set_post_logout THEN p_post_logout
		                                 ELSE post_logout_redirect_uris END,
		backchannel_logout_uri = CASE WHEN p_set_backchannel THEN p_backchannel
		                              ELSE backchannel_logout_uri END,
		token_endpoint_auth_method = coalesce(p_method, token_endpoint_auth_method),
		id_token_signed_response_alg = coalesce(p_alg, id_token_signed_response_alg),
		forward_auth_urls = CASE WHEN p_set_forward THEN p_forward ELSE forward_auth_urls END,
		device_flow = coalesce(p_device_flow, device_flow),
		updated_at = edgeauth_now_ms()
	WHERE id = p_id;
	IF p_set_permissions THEN
		DELETE FROM client_permissions WHERE client_id = p_id;
		INSERT INTO client_permissions (client_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	END IF;
	RETURN edgeauth_done_event(edgeauth_client_record(p_id), edgeauth_event(p_event));
END $$;
