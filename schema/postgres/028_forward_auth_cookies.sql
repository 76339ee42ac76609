-- The app cookies of forward authentication (docs/forward-auth.md), as
-- schema/020_forward_auth_cookies.sql on SQLite: a random token kept only
-- as its hash, for one client, bound to the SSO session it was signed in
-- through, good while that session is live, and gone with it.
CREATE TABLE forward_auth_cookies (
	token_hash  ctext PRIMARY KEY,
	session_id  ctext NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	client_id   ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	created_at  bigint NOT NULL
);
CREATE INDEX forward_auth_cookies_by_session ON forward_auth_cookies(session_id);
CREATE INDEX forward_auth_cookies_by_client ON forward_auth_cookies(client_id);
-- Which app a URL belongs to is asked on every request a proxy checks: only
-- the clients with forward_auth_urls are read, not every client.
CREATE INDEX clients_forward_auth ON clients(id) WHERE forward_auth_urls <> '[]';
