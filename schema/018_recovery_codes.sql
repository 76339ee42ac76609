-- edgeauth schema, version 18: recovery codes (docs/signin.md §"Second factors").
--
-- Ten single-use codes per user, each replacing the second factor once at
-- sign-in. Only the SHA-256 of a code is kept (base64url, as the other
-- secrets' hashes): a code is 128 random bits, so no slow hash is needed
-- (docs/security.md). used_at set: spent. When a user's last confirmed
-- factor goes (removal, an administrator's reset), so do the codes.
CREATE TABLE recovery_codes (
	user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	code_hash  TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	used_at    INTEGER,
	PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

CREATE TRIGGER user_factors_gone_recovery AFTER DELETE ON user_factors
WHEN NOT EXISTS (SELECT 1 FROM user_factors WHERE user_id = old.user_id
                 AND confirmed_at IS NOT NULL) BEGIN
	DELETE FROM recovery_codes WHERE user_id = old.user_id;
END;
