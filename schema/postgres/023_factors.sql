-- Second factors (docs/signin.md §"Second factors"), as schema/015_factors.sql
-- on SQLite: one row per user and kind ('totp'), the secret sealed under
-- the key-encryption key (base64url text), the last accepted time step for
-- replay refusal, confirmed_at NULL while an enrollment waits for its
-- first code.
CREATE TABLE user_factors (
	user_id      ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	kind         ctext NOT NULL CHECK (kind IN ('totp')),
	secret       text NOT NULL,
	last_step    bigint NOT NULL DEFAULT 0,
	created_at   bigint NOT NULL,
	confirmed_at bigint,
	PRIMARY KEY (user_id, kind)
);

-- The user record gains second_factors: the kinds enrolled (confirmed),
-- sorted, never a secret; the same key order as SQLite's USER_RECORD.
CREATE OR REPLACE FUNCTION edgeauth_user_json(u users, p_role_name ctext) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', u.id, 'display_name', u.display_name,
		'avatar_url', u.avatar_url, 'external_user_id', u.external_user_id, 'email', u.email,
		'email_verified', CASE WHEN u.email IS NULL THEN NULL ELSE u.email_verified END,
		'is_active', u.is_active, 'role_id', u.role_id, 'role_name', p_role_name,
		'second_factors', (SELECT coalesce(json_agg(f.kind ORDER BY f.kind), '[]'::json)
			FROM user_factors f WHERE f.user_id = u.id AND f.confirmed_at IS NOT NULL),
		'created_at', edgeauth_iso_time(u.created_at),
		'updated_at', edgeauth_iso_time(u.updated_at))
$$;

-- DELETE /users/{id}/factors and `edgeauth user reset-factors`: the user of
-- the project (not_found), no escalation as for a PUT of the user, then its
-- factors go and its sessions end (the triggers of version 8 revoke what
-- was signed in through them), and the event is recorded.
CREATE FUNCTION edgeauth_user_factors_reset(p_project ctext, p_id ctext, p_scope ctext,
                                            p_event json)
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
	DELETE FROM user_factors WHERE user_id = p_id;
	UPDATE sessions SET ended_at = edgeauth_now_ms() WHERE user_id = p_id AND ended_at IS NULL;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;

-- A user's own TOTP enrollment (the account page): a new secret waiting for
-- its first code replaces one that waits; a confirmed one stays (false).
CREATE FUNCTION edgeauth_totp_begin(p_user ctext, p_secret text) RETURNS boolean
LANGUAGE sql AS $$
	WITH w AS (
		INSERT INTO user_factors (user_id, kind, secret, created_at)
		VALUES (p_user, 'totp', p_secret, edgeauth_now_ms())
		ON CONFLICT (user_id, kind) DO UPDATE SET secret = EXCLUDED.secret, last_step = 0,
			created_at = EXCLUDED.created_at WHERE user_factors.confirmed_at IS NULL
		RETURNING 1)
	SELECT EXISTS (SELECT 1 FROM w)
$$;

-- A code of time step p_step accepted: only when the last accepted step is
-- earlier (one use wins, whichever node it reached), of a confirmed factor,
-- or (p_confirm) of one that waits, which it confirms. The event is
-- recorded when it won.
CREATE FUNCTION edgeauth_totp_use(p_user ctext, p_step bigint, p_confirm boolean, p_event json)
RETURNS TABLE (won boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE user_factors SET last_step = p_step,
		confirmed_at = CASE WHEN p_confirm THEN edgeauth_now_ms() ELSE confirmed_at END
	WHERE user_id = p_user AND kind = 'totp' AND last_step < p_step
	  AND (confirmed_at IS NULL) = p_confirm;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;

-- The user's own removal of TOTP (the account page); the event when one went.
CREATE FUNCTION edgeauth_totp_remove(p_user ctext, p_event json)
RETURNS TABLE (removed boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM user_factors WHERE user_id = p_user AND kind = 'totp';
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;
