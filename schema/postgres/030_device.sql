-- The device authorization grant (RFC 8628, docs/device.md), as
-- schema/022_device.sql on SQLite: the clients' device_flow (off unless
-- set; setting or changing it needs all twelve permissions, as where tokens
-- go, docs/signin.md §"Who may change where tokens go"), and the device
-- authorizations, both codes stored as hashes. Times in ms by the node's
-- clock (they are written and compared with the node's now). The client
-- record and writes that carry device_flow are defined once, in their
-- final form, in 032_consents.sql.
ALTER TABLE clients ADD COLUMN device_flow boolean NOT NULL DEFAULT false;

CREATE TABLE device_authorizations (
	device_hash    ctext PRIMARY KEY,
	user_code_hash ctext NOT NULL UNIQUE,
	project_id     ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	client_id      ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	scope          ctext,
	created_at     bigint NOT NULL,
	expires_at     bigint NOT NULL,
	interval_s     integer NOT NULL,
	last_poll_at   bigint,
	slowed         boolean NOT NULL DEFAULT false,
	address        ctext,
	state          ctext NOT NULL DEFAULT 'pending'
	               CHECK (state IN ('pending', 'approved', 'denied', 'issued')),
	user_id        ctext REFERENCES users(id) ON DELETE CASCADE,
	session_id     ctext,
	decided_at     bigint
);
CREATE INDEX device_authorizations_by_expiry ON device_authorizations(expires_at);
