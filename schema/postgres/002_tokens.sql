-- edgeauth's PostgreSQL schema, version 2: schema/002_tokens.sql, authorization
-- codes and refresh tokens, stored only as SHA-256 hashes. A family is one
-- sign-in: the code and every refresh token rotated from it share family_id,
-- so a replay can revoke all of them (docs/tokens.md §"Refresh tokens and codes").

CREATE TABLE auth_codes (
	hash           ctext PRIMARY KEY,
	family_id      ctext NOT NULL,
	project_id     ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id      ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	user_id        ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	redirect_uri   ctext NOT NULL,
	code_challenge ctext NOT NULL,
	created_at     bigint NOT NULL,
	expires_at     bigint NOT NULL,
	used_at        bigint
);
CREATE INDEX auth_codes_by_expiry ON auth_codes(expires_at);

CREATE TABLE refresh_tokens (
	hash        ctext PRIMARY KEY,
	family_id   ctext NOT NULL,
	project_id  ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id   ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	user_id     ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	access_jti  ctext NOT NULL,     -- the access token issued with it
	access_exp  bigint NOT NULL,    -- its expiry, seconds
	created_at  bigint NOT NULL,
	expires_at  bigint NOT NULL,
	used_at     bigint,
	revoked_at  bigint
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens(expires_at);
CREATE INDEX revoked_tokens_by_expiry ON revoked_tokens(expires_at);
-- (PostgreSQL does not index foreign keys by itself; the cascades of a
-- client's or user's delete read these.)
CREATE INDEX auth_codes_by_client ON auth_codes(client_id);
CREATE INDEX auth_codes_by_user ON auth_codes(user_id);
CREATE INDEX refresh_tokens_by_client ON refresh_tokens(client_id);
CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id);
