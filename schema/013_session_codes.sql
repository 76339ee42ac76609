-- edgeauth schema, version 13: a session's codes end with it, and what one
-- session or one sign-in writes in a minute can be counted.
--
-- A code is a sign-in started through a session and not yet redeemed:
-- when the session ends (logout, deactivation, a new password, deletion,
-- invalidate-all; expiry is no end), its unredeemed codes go at once, as
-- its refresh tokens are revoked, so that none can be redeemed after the
-- end. A redeemed code stays: its replay must still be seen (RFC 6749
-- §4.1.2). The code grant also refuses a code whose session no longer
-- lives (src/store_tokens.c), for a code stored after the end.
--
-- The indexes serve that delete and the bounds of README's "Limits": the
-- codes one session was given in the last minute, and the refresh tokens
-- one sign-in (family) made in the last minute, each a range of one index.

CREATE INDEX auth_codes_by_session ON auth_codes(session_id, created_at)
	WHERE session_id IS NOT NULL;
CREATE INDEX refresh_tokens_by_family_time ON refresh_tokens(family_id, created_at);
DROP INDEX refresh_tokens_by_family;   -- the new index's prefix

-- Beside schema/008's sessions_ended, on the same change.
CREATE TRIGGER sessions_ended_codes AFTER UPDATE OF ended_at ON sessions
WHEN old.ended_at IS NULL AND new.ended_at IS NOT NULL BEGIN
	DELETE FROM auth_codes WHERE session_id = new.id AND used_at IS NULL;
END;
