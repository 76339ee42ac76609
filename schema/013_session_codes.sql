-- edgeauth schema, version 13: a session's codes end with it.
--
-- A code is a sign-in started through a session and not yet redeemed:
-- when the session ends (logout, deactivation, a new password, deletion,
-- invalidate-all; expiry is no end), its unredeemed codes go at once, as
-- its refresh tokens are revoked (schema/008's sessions_ended), so that
-- none can be redeemed after the end. A redeemed code stays: its replay
-- must still be seen (RFC 6749 §4.1.2). The code grant also refuses a code
-- whose session has ended or is gone (src/store/store_tokens.c), for a code
-- stored after the end.

CREATE INDEX auth_codes_by_session ON auth_codes(session_id) WHERE session_id IS NOT NULL;

-- Beside schema/008's sessions_ended, on the same change.
CREATE TRIGGER sessions_ended_codes AFTER UPDATE OF ended_at ON sessions
WHEN old.ended_at IS NULL AND new.ended_at IS NOT NULL BEGIN
	DELETE FROM auth_codes WHERE session_id = new.id AND used_at IS NULL;
END;
