-- edgeauth schema, version 25: recovery codes stay while any second factor
-- does (docs/signin.md §"Second factors").
--
-- Version 18 deleted a user's recovery codes with the last confirmed TOTP
-- factor, also when a passkey remained. They now go only when the user has
-- neither a confirmed TOTP factor nor a passkey left: after the removal of
-- either (the user's own, or an administrator's reset, which removes both).
DROP TRIGGER user_factors_gone_recovery;
CREATE TRIGGER user_factors_gone_recovery AFTER DELETE ON user_factors
WHEN NOT EXISTS (SELECT 1 FROM user_factors WHERE user_id = old.user_id
                 AND confirmed_at IS NOT NULL)
 AND NOT EXISTS (SELECT 1 FROM user_passkeys WHERE user_id = old.user_id) BEGIN
	DELETE FROM recovery_codes WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_passkeys_gone_recovery AFTER DELETE ON user_passkeys
WHEN NOT EXISTS (SELECT 1 FROM user_factors WHERE user_id = old.user_id
                 AND confirmed_at IS NOT NULL)
 AND NOT EXISTS (SELECT 1 FROM user_passkeys WHERE user_id = old.user_id) BEGIN
	DELETE FROM recovery_codes WHERE user_id = old.user_id;
END;
