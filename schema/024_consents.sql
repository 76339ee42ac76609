-- edgeauth schema, version 24: consent for third-party apps (docs/signin.md
-- §"Consent").
--
-- consent_required: the client is an app the box does not own; its users
-- are asked, once per set of scopes, before it gets a code. A consent is
-- the scopes a user allowed a client (the OIDC scopes, space-separated,
-- in SIGNIN_OIDC_SCOPES' order; '' for a plain OAuth request): a request
-- within them is not asked again, a wider one is, and its Allow widens
-- the row. Revoking a consent deletes the row and revokes the client's
-- refresh tokens of the user (store_access.h).
ALTER TABLE clients ADD COLUMN consent_required INTEGER NOT NULL DEFAULT 0;
CREATE TABLE consents (
	user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	client_id  TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	scopes     TEXT NOT NULL,
	granted_at INTEGER NOT NULL,
	PRIMARY KEY (user_id, client_id)
) WITHOUT ROWID;
CREATE INDEX consents_by_client ON consents(client_id);
