-- edgeauth schema, version 8: OpenID Connect and the records of CONTRACT.md
-- §7-§8. (Version 7 holds the signing keys.)
--
-- A sign-in's OpenID Connect side travels with its code and then with its
-- refresh tokens, so that the code grant and every refresh of the sign-in
-- can issue an ID token: the OIDC scopes requested (of openid, profile,
-- email, roles; NULL for a plain OAuth sign-in), the nonce (codes only:
-- only the code grant's ID token carries it), when the user last proved a
-- password (ms; for a BYOU code, when it was minted), and the session it
-- was made in (its public id, the ID token's sid; NULL for BYOU).

ALTER TABLE auth_codes ADD COLUMN scope TEXT;
ALTER TABLE auth_codes ADD COLUMN nonce TEXT;
ALTER TABLE auth_codes ADD COLUMN auth_time INTEGER;
ALTER TABLE auth_codes ADD COLUMN session_id TEXT;

ALTER TABLE refresh_tokens ADD COLUMN scope TEXT;
ALTER TABLE refresh_tokens ADD COLUMN auth_time INTEGER;
ALTER TABLE refresh_tokens ADD COLUMN session_id TEXT;
CREATE INDEX refresh_tokens_by_session ON refresh_tokens(session_id) WHERE session_id IS NOT NULL;

-- §7: an email set through the management API is vouched for; one the user
-- set themselves (PUT /api/v1/users/current) is not. Existing emails were
-- all set by an administrator.
ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 1
	CHECK (email_verified IN (0, 1));

-- §7-§8: where a client's tokens and logouts may go, and how it proves
-- who it is.
ALTER TABLE clients ADD COLUMN post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]';
ALTER TABLE clients ADD COLUMN backchannel_logout_uri TEXT;
ALTER TABLE clients ADD COLUMN token_endpoint_auth_method TEXT NOT NULL DEFAULT 'none'
	CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post'));
ALTER TABLE clients ADD COLUMN id_token_signed_response_alg TEXT NOT NULL DEFAULT 'RS256'
	CHECK (id_token_signed_response_alg IN ('RS256', 'ES256'));

-- §7: a browser's sign-in, shared by every client of the project. id is the
-- public identifier (the ID token's sid); the cookie holds a secret stored
-- only as its hash, and a new sign-in replaces it (no fixation).
CREATE TABLE sessions (
	id           TEXT PRIMARY KEY,
	secret_hash  TEXT NOT NULL UNIQUE,
	project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	auth_time    INTEGER NOT NULL,   -- the latest password check, ms
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	ended_at     INTEGER             -- logout, deactivation, new password
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

-- The clients that got a code in a session: back-channel logout tells each.
CREATE TABLE session_clients (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	client_id  TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	PRIMARY KEY (session_id, client_id)
) WITHOUT ROWID;
