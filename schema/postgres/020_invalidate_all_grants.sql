-- edgeauth's PostgreSQL schema, version 20: invalidate-all ends the store's
-- grants by their rows, not only by a time cut-off (on SQLite the same
-- statements are store_projects.c's; no SQLite migration is needed).
--
-- tokens_valid_after compares times, and a clock stepped back since a token
-- was issued puts the cut-off before it: what the store holds is therefore
-- ended directly, whatever the clocks say: the access token of every
-- refresh token that may still live (a clock stepped back takes more, never
-- fewer), every refresh token, every unredeemed code.
CREATE OR REPLACE FUNCTION edgeauth_invalidate_all(p_event json) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
BEGIN
	UPDATE projects SET tokens_valid_after = greatest(coalesce(tokens_valid_after, 0), now_ms);
	UPDATE sessions SET ended_at = now_ms WHERE ended_at IS NULL;
	INSERT INTO revoked_tokens (jti, expires_at)
		SELECT access_jti, access_exp FROM refresh_tokens WHERE access_exp > now_ms / 1000
		ON CONFLICT DO NOTHING;
	UPDATE refresh_tokens SET revoked_at = now_ms WHERE revoked_at IS NULL;
	DELETE FROM auth_codes WHERE used_at IS NULL;
	RETURN edgeauth_event(p_event);
END $$;
