-- edgeauth's PostgreSQL schema, version 19: a session's codes end with it,
-- and what one session or one sign-in writes in a minute is bounded
-- (schema/013_session_codes.sql).
--
-- When a session ends (logout, deactivation, a new password, deletion,
-- invalidate-all; expiry is no end), its unredeemed codes go at once, as its
-- refresh tokens are revoked; a redeemed code stays, for its replay to be
-- seen (RFC 6749 §4.1.2). The code grant also refuses a code whose session
-- no longer lives (src/pg_tokens.c).

CREATE INDEX auth_codes_by_session ON auth_codes(session_id, created_at)
	WHERE session_id IS NOT NULL;
CREATE INDEX refresh_tokens_by_family_time ON refresh_tokens(family_id, created_at);
DROP INDEX refresh_tokens_by_family;   -- the new index's prefix

-- Beside schema/postgres/008's sessions_ended, on the same change.
CREATE FUNCTION edgeauth_session_ended_codes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM auth_codes WHERE session_id = NEW.id AND used_at IS NULL;
	RETURN NULL;
END $$;
CREATE TRIGGER sessions_ended_codes AFTER UPDATE OF ended_at ON sessions FOR EACH ROW
WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
EXECUTE FUNCTION edgeauth_session_ended_codes();

-- store_code_insert: schema/postgres/017's edgeauth_code_insert, after the
-- bound of README's "Limits": a code of a session is stored only while the
-- session has been given fewer than p_max_codes codes in the last minute,
-- else 'throttled'. The session's row is locked first, so that
-- simultaneous sign-ins of one session, on any node, count one after the
-- other.
CREATE FUNCTION edgeauth_code_insert_bounded(p_hash ctext, p_family ctext, p_project ctext,
	p_client ctext, p_user ctext, p_redirect ctext, p_challenge ctext, p_expires_at bigint,
	p_scope ctext, p_nonce ctext, p_auth_time bigint, p_session ctext, p_grant_scope ctext,
	p_max_codes integer)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
BEGIN
	IF p_session IS NOT NULL THEN
		PERFORM 1 FROM sessions WHERE id = p_session FOR NO KEY UPDATE;
		IF (SELECT count(*) FROM auth_codes WHERE session_id = p_session
		    AND created_at > edgeauth_now_ms() - 60000) >= p_max_codes THEN
			RETURN edgeauth_failed('throttled');
		END IF;
	END IF;
	RETURN edgeauth_code_insert(p_hash, p_family, p_project, p_client, p_user, p_redirect,
		p_challenge, p_expires_at, p_scope, p_nonce, p_auth_time, p_session, p_grant_scope);
END $$;
