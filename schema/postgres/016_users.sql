-- edgeauth's PostgreSQL schema, version 16 (PostgreSQL only): the users area
-- (src/store/store_users.c, src/store/pg/pg_users.c): the record's one definition, the
-- search's pattern and the writes, each one statement that checks, writes and
-- answers the record (edgeauth_outcome, version 10). The search runs on
-- version 3's pg_trgm indexes.

CREATE EXTENSION IF NOT EXISTS pg_trgm;   -- version 3 made it; said again for the reader

-- Times as format_timestamp (src/util/util.c) writes them, out of range too:
-- version 1 clamped to the years 0001..9999 and took the milliseconds of the
-- time before clamping; SQLite's records clamp to 0000-01-01T00:00:00.000Z ..
-- 9999-12-31T23:59:59.999Z first (the proleptic year 0, PostgreSQL's 1 BC,
-- which to_char writes 0001). One expression each, so that the planner still
-- inlines them into every record.
CREATE FUNCTION edgeauth_iso_time_clamped(c bigint) RETURNS text LANGUAGE sql STABLE
AS $$
	SELECT CASE WHEN c < -62135596800000 THEN '0000' ELSE '' END
	       || substr(to_char(timestamp '1970-01-01' + make_interval(secs =>
	                         floor(c / 1000.0)::float8), 'YYYY-MM-DD"T"HH24:MI:SS'),
	                 CASE WHEN c < -62135596800000 THEN 5 ELSE 1 END)
	       || '.' || lpad(mod(mod(c, 1000) + 1000, 1000)::text, 3, '0') || 'Z'
$$;
CREATE OR REPLACE FUNCTION edgeauth_iso_time(ms bigint) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT edgeauth_iso_time_clamped(least(greatest(ms, -62167219200000), 253402300799999)) $$;

-- The record (docs/api.md §"Records") of the users row u with its role's name: the
-- keys, their order and the timestamps of USER_RECORD in
-- include/store/store_users_sql.h (email_verified null when there is no email).
-- One expression, so that the planner inlines it.
CREATE FUNCTION edgeauth_user_json(u users, p_role_name ctext) RETURNS json LANGUAGE sql STABLE
AS $$
	SELECT json_build_object('id', u.id, 'display_name', u.display_name,
		'avatar_url', u.avatar_url, 'external_user_id', u.external_user_id, 'email', u.email,
		'email_verified', CASE WHEN u.email IS NULL THEN NULL ELSE u.email_verified END,
		'is_active', u.is_active, 'role_id', u.role_id, 'role_name', p_role_name,
		'created_at', edgeauth_iso_time(u.created_at),
		'updated_at', edgeauth_iso_time(u.updated_at))
$$;

CREATE FUNCTION edgeauth_user_record(p_id ctext) RETURNS text LANGUAGE sql STABLE
AS $$
	SELECT edgeauth_user_json(u, r.name)::text FROM users u LEFT JOIN roles r ON r.id = u.role_id
	WHERE u.id = p_id
$$;

-- record (a user's) with "permissions" last: the named permissions of the role
-- that a token carries, sorted (store_user_get_external).
CREATE FUNCTION edgeauth_user_with_permissions(p_record text, p_role ctext) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN left(p_record, -1) || ',"permissions":' || (
		SELECT coalesce(json_agg(np.named ORDER BY np.named), '[]')::text
		FROM role_permissions rp JOIN named_permissions np ON np.id = rp.permission_id
		WHERE rp.role_id = p_role AND np.scope_ok) || '}';
END $$;

-- docs/api.md §"Lists": a search is a case-insensitive substring, % and _ literal.
-- The LIKE pattern of a term: lowered (ASCII folding, as ctext's lower() and
-- SQLite's LIKE do), its \ % _ escaped with LIKE's default escape, \. Compared
-- with lower(display_name) and lower(email), which version 3's trigram indexes
-- answer for a term of 3 characters or more (a shorter one: a scan).
CREATE FUNCTION edgeauth_contains_pattern(p_term ctext) RETURNS text LANGUAGE sql IMMUTABLE
AS $$
	SELECT '%' || replace(replace(replace(lower(p_term), '\', '\\'), '%', '\%'), '_', '\_')
	       || '%'
$$;

-- The conflicts of a write, in docs/api.md §"Which error wins": another user of the project
-- (not p_id, the one updated) has the external ID, or the email without
-- regard to case. NULL values set nothing.
CREATE FUNCTION edgeauth_user_conflict(p_project ctext, p_id ctext, p_external ctext,
	p_email ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF p_external IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE project_id = p_project
	   AND external_user_id = p_external AND (p_id IS NULL OR id <> p_id)) THEN
		RETURN ('external_id_used', NULL)::edgeauth_refusal;
	END IF;
	IF p_email IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE project_id = p_project
	   AND lower(email) = lower(p_email) AND (p_id IS NULL OR id <> p_id)) THEN
		RETURN ('email_used', NULL)::edgeauth_refusal;
	END IF;
	RETURN NULL;
END $$;

-- store_user_check's checks, in the order of docs/api.md §"Which error wins" (include/store/store_users.h):
-- not_found (p_id, an update's user, not in the project), role_not_found
-- (p_role, a role the write sets, not of the project), no escalation (the
-- user's role now: grant:user; then the role set: grant:role), with a locked
-- email (p_email_locked) that p_set_email would change in between
-- (email_locked), then the conflicts. p_external and p_email: the values the
-- write sets (NULL: none, or cleared).
CREATE FUNCTION edgeauth_user_refusal(p_project ctext, p_id ctext, p_external ctext,
	p_set_email boolean, p_email ctext, p_email_locked boolean, p_role ctext, p_scope ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql STABLE AS $$
DECLARE
	r edgeauth_refusal;
BEGIN
	IF p_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users WHERE id = p_id
	   AND project_id = p_project) THEN
		RETURN ('not_found', NULL)::edgeauth_refusal;
	END IF;
	-- the foreign key would take a role of another project
	IF p_role IS NOT NULL AND NOT EXISTS (SELECT 1 FROM roles WHERE id = p_role
	   AND project_id = p_project) THEN
		RETURN ('role_not_found', NULL)::edgeauth_refusal;
	END IF;
	IF p_id IS NOT NULL THEN
		r := edgeauth_check_holder(p_scope, 'user', p_id);
	END IF;
	IF r.status IS NULL AND p_id IS NOT NULL AND p_email_locked AND p_set_email
	   AND EXISTS (SELECT 1 FROM users WHERE id = p_id AND email IS DISTINCT FROM p_email) THEN
		r := ('email_locked', NULL)::edgeauth_refusal;
	END IF;
	IF r.status IS NULL AND p_role IS NOT NULL THEN
		r := edgeauth_check_holder(p_scope, 'role', p_role);
	END IF;
	IF r.status IS NULL THEN
		r := edgeauth_user_conflict(p_project, p_id, p_external, p_email);
	END IF;
	RETURN r;
END $$;

-- Every write takes p_event, the audit event it records when it has written
-- (pg_event_json; NULL: none), and answers its record in the outcome.

-- The role a write sets (p_role; NULL: none) is locked before the checks,
-- so that it is still there when the foreign key looks: a delete of it
-- waits for the write, or went first and the checks answer role_not_found,
-- never a foreign_key_violation. (Before the user's own lock: a role's
-- delete locks the role, then its users.)
CREATE FUNCTION edgeauth_user_lock_role(p_role ctext) RETURNS void LANGUAGE sql
AS $$ SELECT FROM roles WHERE id = p_role FOR KEY SHARE $$;

-- Inserts an active user: edgeauth_user_refusal's checks, then the write. A
-- value another transaction took after the checks is a conflict too (ON
-- CONFLICT waits for it, and the checks then see it).
CREATE FUNCTION edgeauth_user_create(p_project ctext, p_id ctext, p_display_name ctext,
	p_avatar ctext, p_external ctext, p_email ctext, p_password_hash ctext, p_role ctext,
	p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal;
	now_ms bigint := edgeauth_now_ms();
BEGIN
	PERFORM edgeauth_user_lock_role(p_role);
	r := edgeauth_user_refusal(p_project, NULL, p_external, true, p_email, false, p_role,
	                           p_scope);
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO users (id, project_id, display_name, avatar_url, external_user_id, email,
	                   password_hash, is_active, role_id, created_at, updated_at)
	VALUES (p_id, p_project, p_display_name, p_avatar, p_external, p_email, p_password_hash,
	        true, p_role, now_ms, now_ms)
	ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN
		r := edgeauth_user_conflict(p_project, NULL, p_external, p_email);
		RETURN edgeauth_failed(coalesce(r.status, 'id_used'));   -- id_used: a system_error
	END IF;
	RETURN edgeauth_done_event(edgeauth_user_record(p_id), edgeauth_event(p_event));
END $$;

-- Updates the user (PUT: a p_set_* false keeps that field, a NULL
-- p_is_active or p_password_hash keeps it; docs/signin.md §"email_verified": an email set by an
-- administrator is verified, one the user sets (p_email_by_user) is not, the
-- same one sent back keeps what it was). Checks as edgeauth_user_refusal,
-- the row locked first; a value another transaction took after them is a
-- conflict (the unique_violation caught in its own block).
CREATE FUNCTION edgeauth_user_update(p_project ctext, p_id ctext, p_display_name ctext,
	p_is_active boolean, p_set_avatar boolean, p_avatar ctext, p_set_external boolean,
	p_external ctext, p_set_email boolean, p_email ctext, p_email_by_user boolean,
	p_email_locked boolean, p_set_role boolean, p_role ctext, p_password_hash ctext,
	p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal;
BEGIN
	PERFORM edgeauth_user_lock_role(p_role);
	PERFORM 1 FROM users WHERE id = p_id AND project_id = p_project FOR UPDATE;
	r := edgeauth_user_refusal(p_project, p_id, p_external, p_set_email, p_email,
	                           p_email_locked, p_role, p_scope);
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	BEGIN
		UPDATE users SET display_name = p_display_name,
			is_active = coalesce(p_is_active, is_active),
			avatar_url = CASE WHEN p_set_avatar THEN p_avatar ELSE avatar_url END,
			external_user_id = CASE WHEN p_set_external THEN p_external ELSE external_user_id END,
			email = CASE WHEN p_set_email THEN p_email ELSE email END,
			email_verified = CASE WHEN NOT p_set_email THEN email_verified
			                      WHEN NOT p_email_by_user THEN true
			                      WHEN email IS NOT DISTINCT FROM p_email THEN email_verified
			                      ELSE false END,
			role_id = CASE WHEN p_set_role THEN p_role ELSE role_id END,
			password_hash = coalesce(p_password_hash, password_hash),
			updated_at = edgeauth_now_ms()
		WHERE id = p_id;
	EXCEPTION WHEN unique_violation THEN
		r := edgeauth_user_conflict(p_project, p_id, p_external, p_email);
		RETURN edgeauth_failed(coalesce(r.status, 'conflict'));
	END;
	RETURN edgeauth_done_event(edgeauth_user_record(p_id), edgeauth_event(p_event));
END $$;

-- Deletes the user (docs/api.md §"Read one and delete"): not_found, then no escalation
-- (grant:user). Version 8's trigger ends its sessions before the row goes;
-- its sessions, codes and refresh tokens cascade, and its access tokens fail
-- the bearer check, which finds no user.
CREATE FUNCTION edgeauth_user_delete(p_project ctext, p_id ctext, p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal;
BEGIN
	PERFORM 1 FROM users WHERE id = p_id AND project_id = p_project FOR UPDATE;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('not_found');
	END IF;
	r := edgeauth_check_holder(p_scope, 'user', p_id);
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	DELETE FROM users WHERE id = p_id;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;

-- Version 9 notified on every update that named is_active or role_id, which
-- every user update does (a PUT writes each column): notify only when what
-- the caches derive from a user changes (its activity, role, deactivation
-- time), or it goes.
DROP TRIGGER users_notify ON users;
CREATE TRIGGER users_notify AFTER UPDATE ON users FOR EACH ROW
WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active OR OLD.role_id IS DISTINCT FROM NEW.role_id
      OR OLD.tokens_valid_after IS DISTINCT FROM NEW.tokens_valid_after)
EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER users_deleted_notify AFTER DELETE ON users
FOR EACH STATEMENT EXECUTE FUNCTION edgeauth_notify();
