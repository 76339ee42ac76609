-- edgeauth schema, version 20: the app cookies of forward authentication
-- (docs/forward-auth.md). A cookie's value is a random token kept only as
-- its hash, for one client (the app), bound to the SSO session it was
-- signed in through: it is good while that session is live (not ended by a
-- logout, deactivation or password change, not expired), and goes with it.
CREATE TABLE forward_auth_cookies (
	token_hash  TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	client_id   TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	created_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX forward_auth_cookies_by_session ON forward_auth_cookies(session_id);
CREATE INDEX forward_auth_cookies_by_client ON forward_auth_cookies(client_id);
-- Which app a URL belongs to is asked on every request a proxy checks: only
-- the clients with forward_auth_urls are read, not every client.
CREATE INDEX clients_forward_auth ON clients(id) WHERE forward_auth_urls <> '[]';
