-- edgeauth's PostgreSQL schema, version 10 (PostgreSQL only): what the writes
-- of schema/postgres/ share. An operation on PostgreSQL is one statement, so
-- the checks SQLite's store runs inside a write's transaction
-- (src/store/store_grants.c: no escalation, docs/api.md §"No escalation") are functions here.
--
-- A write function answers one row of edgeauth_outcome: status NULL and the
-- record it wrote, or status saying why it wrote nothing: 'not_found' (the
-- area's *_not_found), 'grant:<kind>' with the named permission the caller
-- lacks (store_grant_refuse: unknown, role, client, user, permission, admin),
-- or a conflict of the area. An expected outcome never raises, so one
-- request's refusal never aborts the batch that carries others' writes. event
-- is the record of the audit event the write recorded (schema/postgres/014;
-- NULL: none), which the node hands to the audit file once it has committed.

CREATE TYPE edgeauth_outcome AS (status ctext, detail ctext, record text, event text);
CREATE TYPE edgeauth_refusal AS (status ctext, detail ctext);

-- The outcomes a write function returns: done (with its record, or NULL),
-- refused (a check's refusal), or not found; or (status) a conflict of its area.
CREATE FUNCTION edgeauth_done(p_record text) RETURNS edgeauth_outcome LANGUAGE sql IMMUTABLE
AS $$ SELECT (NULL, NULL, p_record, NULL)::edgeauth_outcome $$;
-- done, with the record of the event it recorded (edgeauth_event's answer)
CREATE FUNCTION edgeauth_done_event(p_record text, p_event text) RETURNS edgeauth_outcome
LANGUAGE sql IMMUTABLE AS $$ SELECT (NULL, NULL, p_record, p_event)::edgeauth_outcome $$;
CREATE FUNCTION edgeauth_refused(r edgeauth_refusal) RETURNS edgeauth_outcome
LANGUAGE sql IMMUTABLE AS $$ SELECT (r.status, r.detail, NULL, NULL)::edgeauth_outcome $$;
CREATE FUNCTION edgeauth_failed(p_status ctext) RETURNS edgeauth_outcome LANGUAGE sql IMMUTABLE
AS $$ SELECT (p_status, NULL, NULL, NULL)::edgeauth_outcome $$;

-- A permission's named form (docs/api.md §"Permissions and default resources": "users:read"), and whether a
-- token may carry it: both codes are ones a create accepts, so that a scope
-- never needs a JSON escape (SQL_SCOPE_CODES_OK in include/store/store.h).
CREATE VIEW named_permissions AS
SELECT pm.id, pm.project_id, r.is_default, (r.code || ':' || pm.code)::ctext AS named,
       r.code ~ '^[A-Za-z0-9_-]+$' AND pm.code ~ '^[A-Za-z0-9_-]+$' AS scope_ok
FROM permissions pm JOIN resources r ON r.id = pm.resource_id;

-- A list of IDs as statements take it: a JSON array of strings (NULL: none).
-- plpgsql, whose plans are kept for the session: as a SQL function with a
-- subquery (never inlined) it was parsed and planned again on every call.
-- An empty list runs no query.
CREATE FUNCTION edgeauth_ids(p jsonb) RETURNS ctext[] LANGUAGE plpgsql IMMUTABLE
AS $$ BEGIN
	IF p IS NULL THEN
		RETURN NULL;
	ELSIF jsonb_array_length(p) = 0 THEN
		RETURN '{}';
	END IF;
	RETURN ARRAY(SELECT jsonb_array_elements_text(p))::ctext[];
END $$;

-- What a token of a holder carries: its named permissions, sorted, joined
-- with spaces ('' for none): the client, the role, or the role of the user.
-- (The functions with a FROM are plpgsql, whose plans are kept for the
-- session; a SQL function's are made again on every call.)
CREATE FUNCTION edgeauth_scope_of_client(p_id ctext) RETURNS ctext LANGUAGE plpgsql STABLE
AS $$ BEGIN
	RETURN (SELECT coalesce(string_agg(np.named, ' ' ORDER BY np.named), '')
	        FROM client_permissions cp JOIN named_permissions np ON np.id = cp.permission_id
	        WHERE cp.client_id = p_id AND np.scope_ok);
END $$;
CREATE FUNCTION edgeauth_scope_of_role(p_id ctext) RETURNS ctext LANGUAGE plpgsql STABLE
AS $$ BEGIN
	RETURN (SELECT coalesce(string_agg(np.named, ' ' ORDER BY np.named), '')
	        FROM role_permissions rp JOIN named_permissions np ON np.id = rp.permission_id
	        WHERE rp.role_id = p_id AND np.scope_ok);
END $$;
CREATE FUNCTION edgeauth_scope_of_user(p_id ctext) RETURNS ctext LANGUAGE plpgsql STABLE
AS $$ BEGIN
	RETURN coalesce((SELECT edgeauth_scope_of_role(role_id) FROM users WHERE id = p_id), '');
END $$;

-- Whether scope (names joined by single spaces, RFC 6749 §3.3) carries named.
CREATE FUNCTION edgeauth_carries(p_scope ctext, p_named ctext) RETURNS boolean LANGUAGE sql
IMMUTABLE AS $$ SELECT strpos(' ' || p_scope || ' ', ' ' || p_named || ' ') > 0 $$;

-- The checks. Each is NULL when the write may go on (and always when scope
-- is NULL: no limit), else the refusal.

-- Locks the permissions p_ids names (FOR KEY SHARE) until the transaction
-- ends, before a write checks and grants them: one deleted meanwhile is then
-- found missing (some_permissions_not_found), not a foreign key violation of
-- the write's insert, which would raise.
CREATE FUNCTION edgeauth_permissions_lock(p_ids ctext[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM permissions WHERE id = ANY (p_ids) FOR KEY SHARE;
END $$;

-- A write would grant ids: each must be a permission of the project, and
-- scope must carry each that is of a default resource (the first lacking,
-- in the list's order, is named).
CREATE FUNCTION edgeauth_check_ids(p_project ctext, p_scope ctext, p_ids ctext[])
RETURNS edgeauth_refusal LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (
		SELECT CASE
			WHEN p_ids IS NULL THEN NULL
			WHEN EXISTS (SELECT 1 FROM unnest(p_ids) i WHERE NOT EXISTS (
			             SELECT 1 FROM permissions WHERE id = i AND project_id = p_project))
				THEN ('grant:unknown', NULL)::edgeauth_refusal
			WHEN p_scope IS NULL THEN NULL
			ELSE (SELECT ('grant:permission', np.named)::edgeauth_refusal FROM named_permissions np
			      WHERE np.id = ANY (p_ids) AND np.is_default AND NOT edgeauth_carries(p_scope, np.named)
			      ORDER BY array_position(p_ids, np.id) LIMIT 1)
		END);
END $$;

-- A role, client or user (kind) must not hold a default-resource permission
-- scope lacks (the first by name is named).
CREATE FUNCTION edgeauth_check_holder(p_scope ctext, p_kind ctext, p_id ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (
		SELECT ('grant:' || p_kind, np.named)::edgeauth_refusal FROM named_permissions np
		WHERE p_scope IS NOT NULL AND np.is_default AND NOT edgeauth_carries(p_scope, np.named)
		AND np.id IN (
			SELECT permission_id FROM client_permissions WHERE p_kind = 'client' AND client_id = p_id
			UNION ALL
			SELECT permission_id FROM role_permissions WHERE p_kind = 'role' AND role_id = p_id
			UNION ALL
			SELECT rp.permission_id FROM users u JOIN role_permissions rp ON rp.role_id = u.role_id
			WHERE p_kind = 'user' AND u.id = p_id)
		ORDER BY np.named LIMIT 1);
END $$;

-- docs/signin.md §"Who may change where tokens go": scope must carry all twelve permissions of the project's
-- default resources.
CREATE FUNCTION edgeauth_check_admin(p_project ctext, p_scope ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (
		SELECT ('grant:admin', np.named)::edgeauth_refusal FROM named_permissions np
		WHERE p_scope IS NOT NULL AND np.project_id = p_project AND np.is_default
		AND NOT edgeauth_carries(p_scope, np.named)
		ORDER BY np.named LIMIT 1);
END $$;
