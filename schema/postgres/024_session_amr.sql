-- How a session's user proved who they are, as schema/016_session_amr.sql on
-- SQLite: amr (RFC 8176) space-separated, 'pwd' or 'pwd otp mfa'; each
-- sign-in that starts or renews the session sets it (edgeauth_session_start
-- takes it last), the ID tokens of its sign-ins carry it.
ALTER TABLE sessions ADD COLUMN amr text NOT NULL DEFAULT 'pwd';

DROP FUNCTION edgeauth_session_start(ctext, ctext, ctext, ctext, ctext, ctext, bigint, bigint,
	json);
CREATE FUNCTION edgeauth_session_start(p_id ctext, p_secret_hash ctext, p_old_hash ctext,
	p_project ctext, p_user ctext, p_client ctext, p_auth_time bigint, p_expires_at bigint,
	p_event json, p_amr ctext)
RETURNS TABLE (sid ctext, event text) LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
	prev sessions;
BEGIN
	-- the user may have gone since the password check: then no row, and
	-- nothing done (locked, so that a delete cannot commit before the insert)
	PERFORM 1 FROM users WHERE id = p_user AND is_active FOR KEY SHARE;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	IF p_old_hash IS NOT NULL THEN
		SELECT * INTO prev FROM sessions WHERE secret_hash = p_old_hash AND project_id = p_project
		AND ended_at IS NULL AND expires_at > now_ms FOR UPDATE;
	END IF;
	IF prev.id IS NOT NULL AND prev.user_id = p_user THEN
		UPDATE sessions SET secret_hash = p_secret_hash, auth_time = p_auth_time,
			expires_at = p_expires_at, amr = p_amr WHERE id = prev.id;
		sid := prev.id;
	ELSE
		IF prev.id IS NOT NULL THEN
			UPDATE sessions SET ended_at = now_ms WHERE id = prev.id AND ended_at IS NULL;
		END IF;
		INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,
			expires_at, amr)
		VALUES (p_id, p_secret_hash, p_project, p_user, p_auth_time, p_auth_time,
			p_expires_at, p_amr);
		sid := p_id;
	END IF;
	PERFORM edgeauth_session_add_client(sid, p_client);
	event := edgeauth_event(p_event);
	RETURN NEXT;
END $$;
