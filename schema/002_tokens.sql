-- edgeauth schema, version 2: authorization codes and refresh tokens.
-- Codes and refresh tokens are stored only as SHA-256 hashes. A family is one
-- sign-in: the code and every refresh token rotated from it share family_id,
-- so a replay can revoke all of them (docs/tokens.md §"Refresh tokens and codes").

CREATE TABLE auth_codes (
	hash           TEXT PRIMARY KEY,
	family_id      TEXT NOT NULL,
	project_id     TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id      TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	redirect_uri   TEXT NOT NULL,
	code_challenge TEXT NOT NULL,
	created_at     INTEGER NOT NULL,
	expires_at     INTEGER NOT NULL,
	used_at        INTEGER
) WITHOUT ROWID;
CREATE INDEX auth_codes_by_expiry ON auth_codes(expires_at);

CREATE TABLE refresh_tokens (
	hash        TEXT PRIMARY KEY,
	family_id   TEXT NOT NULL,
	project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id   TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	access_jti  TEXT NOT NULL,      -- the access token issued with it
	access_exp  INTEGER NOT NULL,   -- its expiry, seconds
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	used_at     INTEGER,
	revoked_at  INTEGER
) WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens(expires_at);
CREATE INDEX revoked_tokens_by_expiry ON revoked_tokens(expires_at);
