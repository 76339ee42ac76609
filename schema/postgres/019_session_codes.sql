-- edgeauth's PostgreSQL schema, version 19: a session's codes end with it
-- (schema/013_session_codes.sql).
--
-- When a session ends (logout, deactivation, a new password, deletion,
-- invalidate-all; expiry is no end), its unredeemed codes go at once, as its
-- refresh tokens are revoked; a redeemed code stays, for its replay to be
-- seen (RFC 6749 §4.1.2). The code grant also refuses a code whose session
-- has ended or is gone (src/store/pg/pg_tokens.c).

CREATE INDEX auth_codes_by_session ON auth_codes(session_id) WHERE session_id IS NOT NULL;

-- Beside schema/postgres/008's sessions_ended, on the same change.
CREATE FUNCTION edgeauth_session_ended_codes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM auth_codes WHERE session_id = NEW.id AND used_at IS NULL;
	RETURN NULL;
END $$;
CREATE TRIGGER sessions_ended_codes AFTER UPDATE OF ended_at ON sessions FOR EACH ROW
WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
EXECUTE FUNCTION edgeauth_session_ended_codes();
