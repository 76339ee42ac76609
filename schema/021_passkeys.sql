-- edgeauth schema, version 21: passkeys (docs/signin.md §"Passkeys").
--
-- A user's WebAuthn credentials. credential_id (base64url of the
-- authenticator's credential ID) is unique across users: WebAuthn Level 2
-- §7.1 step 22 refuses a credential registered already, and a passkey
-- sign-in finds its user by it. public_key is the COSE key's bytes as
-- base64url, as the authenticator gave them; sign_count the last one
-- accepted (§7.2 step 21: one that does not grow is refused), moved by an
-- UPDATE that only one use can win. backup_eligible: the BE flag at
-- registration, whether the ID token's amr says swk rather than hwk.
-- Any row puts "passkey" in the user's second_factors.
CREATE TABLE user_passkeys (
	id              TEXT PRIMARY KEY,
	user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	credential_id   TEXT NOT NULL UNIQUE,
	public_key      TEXT NOT NULL,
	alg             INTEGER NOT NULL CHECK (alg IN (-7, -257)),
	sign_count      INTEGER NOT NULL DEFAULT 0,
	backup_eligible INTEGER NOT NULL DEFAULT 0,
	name            TEXT NOT NULL,
	created_at      INTEGER NOT NULL,
	last_used_at    INTEGER
);
CREATE INDEX user_passkeys_user ON user_passkeys (user_id, created_at);
