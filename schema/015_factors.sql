-- edgeauth schema, version 15: second factors (docs/signin.md §"Second factors").
--
-- One row per user and kind of factor; only 'totp' so far. The TOTP secret
-- is sealed (AES-256-GCM) under the key-encryption key, with the user's ID
-- as associated data so that a sealed secret moved to another user's row
-- does not open; it is kept as base64url text. last_step is the RFC 6238
-- time step of the last code accepted: a code of that step or an earlier
-- one is refused (a replay), by an UPDATE that only one use can win.
-- confirmed_at NULL: an enrollment that waits for its first code, which
-- signs no one in and is not in the user's record.
CREATE TABLE user_factors (
	user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	kind         TEXT NOT NULL CHECK (kind IN ('totp')),
	secret       TEXT NOT NULL,
	last_step    INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL,
	confirmed_at INTEGER,
	PRIMARY KEY (user_id, kind)
) WITHOUT ROWID;
