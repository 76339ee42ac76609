-- edgeauth schema, version 22: the device authorization grant (RFC 8628,
-- docs/device.md).
--
-- device_flow: whether the client may use the grant; off unless set, and
-- setting it needs all twelve permissions (docs/signin.md §"Who may change
-- where tokens go"): a device's code is approved by a user of the project.
ALTER TABLE clients ADD COLUMN device_flow INTEGER NOT NULL DEFAULT 0;

-- One device's request. Both codes are stored only as their hashes
-- (crypto_hash_secret): device_hash of the 256-bit device_code, the key the
-- device polls with; user_code_hash of the user code without its dash, the
-- key the /device page looks up. scope: the OIDC scopes asked for
-- (NULL: plain OAuth). Times in ms by the node's clock; interval_s grows by
-- 5 at each poll that came sooner than it (RFC 8628 §3.5, slow_down; slowed
-- says the last poll was one). state: pending until the user decides;
-- approved names the user and session; issued once the tokens went out.
CREATE TABLE device_authorizations (
	device_hash    TEXT PRIMARY KEY,
	user_code_hash TEXT NOT NULL UNIQUE,
	project_id     TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id      TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	scope          TEXT,
	created_at     INTEGER NOT NULL,
	expires_at     INTEGER NOT NULL,
	interval_s     INTEGER NOT NULL,
	last_poll_at   INTEGER,
	slowed         INTEGER NOT NULL DEFAULT 0,
	address        TEXT,
	state          TEXT NOT NULL DEFAULT 'pending'
	               CHECK (state IN ('pending', 'approved', 'denied', 'issued')),
	user_id        TEXT REFERENCES users(id) ON DELETE CASCADE,
	session_id     TEXT,
	decided_at     INTEGER
) WITHOUT ROWID;
CREATE INDEX device_authorizations_by_expiry ON device_authorizations(expires_at);
