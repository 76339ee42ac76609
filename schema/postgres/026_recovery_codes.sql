-- Recovery codes, as schema/018_recovery_codes.sql on SQLite: ten single-use
-- codes per user kept only as their SHA-256 (base64url), spent by the
-- UPDATE that sets used_at (one use wins, on any node), gone with the
-- user's last confirmed factor.
CREATE TABLE recovery_codes (
	user_id    ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	code_hash  text NOT NULL,
	created_at bigint NOT NULL,
	used_at    bigint,
	PRIMARY KEY (user_id, code_hash)
);

CREATE FUNCTION edgeauth_recovery_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM user_factors WHERE user_id = OLD.user_id
	               AND confirmed_at IS NOT NULL) THEN
		DELETE FROM recovery_codes WHERE user_id = OLD.user_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER user_factors_gone_recovery AFTER DELETE ON user_factors
	FOR EACH ROW EXECUTE FUNCTION edgeauth_recovery_gone();

-- New codes (p_hashes: their hashes, space-separated) void the old ones.
CREATE FUNCTION edgeauth_recovery_set(p_user ctext, p_hashes text, p_event json)
RETURNS TABLE (done boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM recovery_codes WHERE user_id = p_user;
	INSERT INTO recovery_codes (user_id, code_hash, created_at)
		SELECT p_user, h, edgeauth_now_ms() FROM unnest(string_to_array(p_hashes, ' ')) AS h;
	RETURN QUERY SELECT true, edgeauth_event(p_event);
END $$;

-- A code used: once; the event when this use won.
CREATE FUNCTION edgeauth_recovery_use(p_user ctext, p_hash text, p_event json)
RETURNS TABLE (won boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE recovery_codes SET used_at = edgeauth_now_ms()
	WHERE user_id = p_user AND code_hash = p_hash AND used_at IS NULL;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;
