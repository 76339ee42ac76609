-- Passkeys (docs/signin.md §"Passkeys"), as schema/021_passkeys.sql on
-- SQLite: a user's WebAuthn credentials, the credential ID unique across
-- users, the COSE public key and the last sign count accepted.
CREATE TABLE user_passkeys (
	id              ctext PRIMARY KEY,
	user_id         ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	credential_id   ctext NOT NULL UNIQUE,
	public_key      text NOT NULL,
	alg             integer NOT NULL CHECK (alg IN (-7, -257)),
	sign_count      bigint NOT NULL DEFAULT 0,
	backup_eligible boolean NOT NULL DEFAULT false,
	name            text NOT NULL,
	created_at      bigint NOT NULL,
	last_used_at    bigint
);
CREATE INDEX user_passkeys_user ON user_passkeys (user_id, created_at);

-- The user record's second_factors gains "passkey" when the user has one.
CREATE OR REPLACE FUNCTION edgeauth_user_json(u users, p_role_name ctext) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', u.id, 'display_name', u.display_name,
		'avatar_url', u.avatar_url, 'external_user_id', u.external_user_id, 'email', u.email,
		'email_verified', CASE WHEN u.email IS NULL THEN NULL ELSE u.email_verified END,
		'is_active', u.is_active, 'role_id', u.role_id, 'role_name', p_role_name,
		'second_factors', (SELECT coalesce(json_agg(k.kind ORDER BY k.kind), '[]'::json)
			FROM (SELECT f.kind::text AS kind FROM user_factors f
			      WHERE f.user_id = u.id AND f.confirmed_at IS NOT NULL
			      UNION SELECT 'passkey' FROM user_passkeys p WHERE p.user_id = u.id) k),
		'created_at', edgeauth_iso_time(u.created_at),
		'updated_at', edgeauth_iso_time(u.updated_at))
$$;

-- The administrator's reset removes passkeys with the other factors.
CREATE OR REPLACE FUNCTION edgeauth_user_factors_reset(p_project ctext, p_id ctext, p_scope ctext,
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
	DELETE FROM user_passkeys WHERE user_id = p_id;
	UPDATE sessions SET ended_at = edgeauth_now_ms() WHERE user_id = p_id AND ended_at IS NULL;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;

-- A registration: nothing when the credential ID is registered already or
-- the user has p_max passkeys (the user's row locked, so that two
-- registrations count one after the other); the event when one was added.
CREATE FUNCTION edgeauth_passkey_add(p_id ctext, p_user ctext, p_cred ctext, p_key text,
                                     p_alg integer, p_count bigint, p_be boolean, p_name text,
                                     p_max integer, p_event json)
RETURNS TABLE (added boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM users WHERE id = p_user FOR UPDATE;
	IF (SELECT count(*) FROM user_passkeys WHERE user_id = p_user) < p_max THEN
		INSERT INTO user_passkeys (id, user_id, credential_id, public_key, alg, sign_count,
		                           backup_eligible, name, created_at)
		VALUES (p_id, p_user, p_cred, p_key, p_alg, p_count, p_be, p_name, edgeauth_now_ms())
		ON CONFLICT (credential_id) DO NOTHING;
		IF FOUND THEN
			RETURN QUERY SELECT true, edgeauth_event(p_event);
			RETURN;
		END IF;
	END IF;
	RETURN QUERY SELECT false, NULL::text;
END $$;

-- A verified assertion: the count moves only from the one it was checked
-- against (one use wins, whichever node it reached).
CREATE FUNCTION edgeauth_passkey_use(p_id ctext, p_old bigint, p_new bigint, p_event json)
RETURNS TABLE (won boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE user_passkeys SET sign_count = p_new, last_used_at = edgeauth_now_ms()
	WHERE id = p_id AND sign_count = p_old;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;

-- The user's own removal of a passkey; the event when one went.
CREATE FUNCTION edgeauth_passkey_remove(p_user ctext, p_id ctext, p_event json)
RETURNS TABLE (removed boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM user_passkeys WHERE user_id = p_user AND id = p_id;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;
