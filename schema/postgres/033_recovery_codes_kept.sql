-- Recovery codes stay while any second factor does, as
-- schema/025_recovery_codes_kept.sql on SQLite: they go when the user has
-- neither a confirmed TOTP factor nor a passkey left, after the removal of
-- either. And a code is spent only while the user has as many unused codes
-- as the sign-in's first step saw (p_left), and a passkey's use always
-- moves its last use, so that one first step signs in once (docs/signin.md
-- §"Second factors").
CREATE OR REPLACE FUNCTION edgeauth_recovery_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM user_factors WHERE user_id = OLD.user_id
	               AND confirmed_at IS NOT NULL)
	   AND NOT EXISTS (SELECT 1 FROM user_passkeys WHERE user_id = OLD.user_id) THEN
		DELETE FROM recovery_codes WHERE user_id = OLD.user_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER user_passkeys_gone_recovery AFTER DELETE ON user_passkeys
	FOR EACH ROW EXECUTE FUNCTION edgeauth_recovery_gone();

-- The user's row locked first: two uses with one first step, on any nodes,
-- count one after the other (each statement then sees the other's commit).
DROP FUNCTION edgeauth_recovery_use(ctext, text, json);
CREATE FUNCTION edgeauth_recovery_use(p_user ctext, p_hash text, p_left bigint, p_event json)
RETURNS TABLE (won boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM users WHERE id = p_user FOR NO KEY UPDATE;
	UPDATE recovery_codes SET used_at = edgeauth_now_ms()
	WHERE user_id = p_user AND code_hash = p_hash AND used_at IS NULL
	  AND (SELECT count(*) FROM recovery_codes WHERE user_id = p_user AND used_at IS NULL)
	      = p_left;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;

-- A passkey's use moves last_used_at always (past the old value on a clock
-- that stands still) and only from the value read, so that a use spends
-- the sign-in's first step also for an authenticator whose count stays 0.
DROP FUNCTION edgeauth_passkey_use(ctext, bigint, bigint, json);
CREATE FUNCTION edgeauth_passkey_use(p_id ctext, p_old bigint, p_new bigint, p_event json,
                                     p_used bigint)
RETURNS TABLE (won boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE user_passkeys SET sign_count = p_new,
		last_used_at = greatest(edgeauth_now_ms(), coalesce(last_used_at, 0) + 1)
	WHERE id = p_id AND sign_count = p_old AND coalesce(last_used_at, 0) = p_used;
	IF FOUND THEN
		RETURN QUERY SELECT true, edgeauth_event(p_event);
	ELSE
		RETURN QUERY SELECT false, NULL::text;
	END IF;
END $$;
