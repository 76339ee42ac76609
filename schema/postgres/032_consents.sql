-- Consent for third-party apps, as schema/024_consents.sql on SQLite
-- (docs/signin.md §"Consent"): a client's consent_required, guarded by the
-- twelve permissions as allowed_role_ids is; and the consents users gave,
-- per user and client, the scopes they allowed (SIGNIN_OIDC_SCOPES' order,
-- space-separated).
ALTER TABLE clients ADD COLUMN consent_required boolean NOT NULL DEFAULT false;
CREATE TABLE consents (
	user_id    ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	client_id  ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	scopes     ctext NOT NULL,
	granted_at bigint NOT NULL,
	PRIMARY KEY (user_id, client_id)
);
CREATE INDEX consents_by_client ON consents(client_id);

-- The client record and writes, in their final form for the columns of
-- versions 27 (forward_auth_urls), 30 (device_flow), 31 (allowed_role_ids)
-- and this one (consent_required), each defined here once. The record
-- carries them before the timestamps (CLIENT_JSON in
-- src/store/sqlite/sqlite_clients.c). The writes take p_roles and
-- p_consent before p_scope, and p_forward (update: p_set_forward, whether
-- to set it) and p_device_flow last; on update a NULL p_roles, p_consent
-- or p_device_flow keeps the client's. Setting any of them to other than
-- its default, or changing it, needs the twelve permissions, as where
-- tokens go does; an allowed role must be one of the project's.
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
		'allowed_role_ids', c.allowed_role_ids,
		'consent_required', c.consent_required,
		'created_at', edgeauth_iso_time(c.created_at),
		'updated_at', edgeauth_iso_time(c.updated_at))
$$;

-- the signatures of version 12
DROP FUNCTION edgeauth_client_create(ctext, ctext, ctext, ctext, ctext, jsonb, jsonb, jsonb,
	ctext, ctext, ctext, ctext, json);
DROP FUNCTION edgeauth_client_update(ctext, ctext, ctext, boolean, boolean, ctext, boolean,
	jsonb, boolean, jsonb, boolean, jsonb, boolean, ctext, ctext, ctext, ctext, json);

CREATE FUNCTION edgeauth_client_create(p_project ctext, p_id ctext, p_name ctext,
	p_description ctext, p_secret_hash ctext, p_permission_ids jsonb, p_redirect jsonb,
	p_post_logout jsonb, p_backchannel ctext, p_method ctext, p_alg ctext, p_roles jsonb,
	p_consent boolean, p_scope ctext, p_event json, p_forward jsonb, p_device_flow boolean)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
	now_ms bigint := edgeauth_now_ms();
	c clients;
	perms json := '[]';
BEGIN
	IF NOT edgeauth_client_roles_ok(p_project, p_roles, NULL) THEN
		RETURN edgeauth_failed('unknown_role');
	END IF;
	IF cardinality(ids) > 0 THEN   -- none: nothing to lock or check
		PERFORM edgeauth_permissions_lock(ids);
		r := edgeauth_check_ids(p_project, p_scope, ids);
	END IF;
	IF r.status IS NULL AND (edgeauth_client_routing_changes('[]', '[]', NULL, 'none',
	   true, p_redirect, true, p_post_logout, true, p_backchannel, p_method)
	   OR p_roles <> '[]' OR p_consent OR p_forward IS DISTINCT FROM '[]' OR p_device_flow) THEN
		r := edgeauth_check_admin(p_project, p_scope);
	END IF;
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,
	                     redirect_uris, created_at, updated_at, post_logout_redirect_uris,
	                     backchannel_logout_uri, token_endpoint_auth_method,
	                     id_token_signed_response_alg, forward_auth_urls, device_flow,
	                     allowed_role_ids, consent_required)
	VALUES (p_id, p_project, p_name, p_description, p_secret_hash, true, p_redirect, now_ms,
	        now_ms, p_post_logout, p_backchannel, p_method, p_alg, p_forward, p_device_flow,
	        p_roles, p_consent)
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
	p_backchannel ctext, p_method ctext, p_alg ctext, p_roles jsonb, p_consent boolean,
	p_scope ctext, p_event json, p_set_forward boolean, p_forward jsonb, p_device_flow boolean)
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
	IF p_roles IS NOT NULL AND NOT edgeauth_client_roles_ok(p_project, p_roles,
	   c.allowed_role_ids) THEN
		RETURN edgeauth_failed('unknown_role');
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
	   OR (p_device_flow IS NOT NULL AND p_device_flow <> c.device_flow)
	   OR (p_roles IS NOT NULL AND p_roles IS DISTINCT FROM c.allowed_role_ids::jsonb)
	   OR (p_consent IS NOT NULL AND p_consent IS DISTINCT FROM c.consent_required)) THEN
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
		allowed_role_ids = coalesce(p_roles, allowed_role_ids),
		consent_required = coalesce(p_consent, consent_required),
		updated_at = edgeauth_now_ms()
	WHERE id = p_id;
	IF p_set_permissions THEN
		DELETE FROM client_permissions WHERE client_id = p_id;
		INSERT INTO client_permissions (client_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	END IF;
	RETURN edgeauth_done_event(edgeauth_client_record(p_id), edgeauth_event(p_event));
END $$;

-- What a sign-in reads of a client and a user (src/oauth/access_rules.c):
-- the access rule, the user's role, whether the client asks for consent,
-- the scopes the user allowed it (NULL: none) and the user's named
-- permissions (what the consent page lists).
CREATE FUNCTION edgeauth_access_facts(p_client ctext, p_user ctext,
	OUT allowed_role_ids text, OUT role_id ctext, OUT consent_required boolean,
	OUT consented ctext, OUT permissions ctext)
LANGUAGE plpgsql STABLE AS $$
BEGIN
	SELECT c.allowed_role_ids::text, c.consent_required INTO allowed_role_ids, consent_required
	FROM clients c WHERE c.id = p_client;
	role_id := (SELECT u.role_id FROM users u WHERE u.id = p_user);
	consented := (SELECT k.scopes FROM consents k WHERE k.user_id = p_user
	              AND k.client_id = p_client);
	permissions := edgeauth_scope_of_user(p_user);
END $$;

-- Revokes the user's consent to the client: the row goes, and the
-- client's refresh tokens of the user with their access tokens. Whether a
-- row went.
CREATE FUNCTION edgeauth_consent_revoke(p_user ctext, p_client ctext) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
BEGIN
	DELETE FROM consents WHERE user_id = p_user AND client_id = p_client;
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	INSERT INTO revoked_tokens (jti, expires_at)
		SELECT access_jti, access_exp FROM refresh_tokens
		WHERE user_id = p_user AND client_id = p_client AND revoked_at IS NULL
		ON CONFLICT DO NOTHING;
	UPDATE refresh_tokens SET revoked_at = now_ms
		WHERE user_id = p_user AND client_id = p_client AND revoked_at IS NULL;
	RETURN true;
END $$;
