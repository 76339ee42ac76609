-- edgeauth schema, version 8: OpenID Connect and the records of docs/api.md §"Records"
-- and docs/signin.md. (Version 7 holds the signing keys.)
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

-- Back-channel logout (§7): a logout token to deliver, per client. Rows are
-- written by the triggers below, in the transaction of the change that ends
-- a session, and deleted by backchannel.c once delivered (or given up). id
-- is the logout token's jti, the same across retries.
CREATE TABLE backchannel_outbox (
	id          TEXT PRIMARY KEY,
	client_id   TEXT NOT NULL,
	uri         TEXT NOT NULL,     -- the client's backchannel_logout_uri, then
	alg         TEXT NOT NULL,     -- its id_token_signed_response_alg, then
	subject     TEXT NOT NULL,     -- the user's ID
	session_id  TEXT,              -- sid; NULL for a BYOU user's logout
	created_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- A session ends (logout, deactivation, a new password, deletion; expiry is
-- no end): the sign-ins made through it are revoked at once, their access
-- tokens too, and every client that got a code in it and has a back-channel
-- URI is told. Whoever ends a session (the logout endpoint, a user's update
-- or deletion, the CLI, another process) gets all of this by setting
-- ended_at.
CREATE TRIGGER sessions_ended AFTER UPDATE OF ended_at ON sessions
WHEN old.ended_at IS NULL AND new.ended_at IS NOT NULL BEGIN
	INSERT OR IGNORE INTO revoked_tokens (jti, expires_at)
		SELECT access_jti, access_exp FROM refresh_tokens WHERE session_id = new.id;
	UPDATE refresh_tokens SET revoked_at = new.ended_at
		WHERE session_id = new.id AND revoked_at IS NULL;
	INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject, session_id, created_at)
		SELECT lower(hex(randomblob(16))), c.id, c.backchannel_logout_uri,
		       c.id_token_signed_response_alg, new.user_id, new.id, new.ended_at
		FROM session_clients sc JOIN clients c ON c.id = sc.client_id
		WHERE sc.session_id = new.id AND c.backchannel_logout_uri IS NOT NULL;
END;

-- A BYOU user has no session: when deactivated or deleted, every client
-- holding a live refresh token of theirs from outside a session is told,
-- with no sid.
CREATE TRIGGER users_deactivated_end AFTER UPDATE OF is_active ON users
WHEN old.is_active = 1 AND new.is_active = 0 BEGIN
	UPDATE sessions SET ended_at = new.updated_at WHERE user_id = new.id AND ended_at IS NULL;
	INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject, session_id, created_at)
		SELECT lower(hex(randomblob(16))), c.id, c.backchannel_logout_uri,
		       c.id_token_signed_response_alg, new.id, NULL, new.updated_at
		FROM clients c WHERE c.backchannel_logout_uri IS NOT NULL AND c.id IN (
			SELECT client_id FROM refresh_tokens WHERE user_id = new.id
			AND session_id IS NULL AND used_at IS NULL AND revoked_at IS NULL
			AND expires_at > new.updated_at);
END;

CREATE TRIGGER users_password_changed AFTER UPDATE OF password_hash ON users
WHEN old.password_hash IS NOT new.password_hash BEGIN
	UPDATE sessions SET ended_at = new.updated_at WHERE user_id = new.id AND ended_at IS NULL;
END;

-- Before the rows go (sessions, codes and refresh tokens cascade with the
-- user), so that the ends above run and the outbox has what it needs.
CREATE TRIGGER users_deleted_end BEFORE DELETE ON users BEGIN
	UPDATE sessions SET ended_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		WHERE user_id = old.id AND ended_at IS NULL;
	INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject, session_id, created_at)
		SELECT lower(hex(randomblob(16))), c.id, c.backchannel_logout_uri,
		       c.id_token_signed_response_alg, old.id, NULL,
		       CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM clients c WHERE c.backchannel_logout_uri IS NOT NULL AND c.id IN (
			SELECT client_id FROM refresh_tokens WHERE user_id = old.id
			AND session_id IS NULL AND used_at IS NULL AND revoked_at IS NULL
			AND expires_at > CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
