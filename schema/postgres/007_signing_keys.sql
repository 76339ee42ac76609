-- edgeauth's PostgreSQL schema, version 7: signing keys live in the store
-- (schema/007_signing_keys.sql, docs/tokens.md §"Signing keys"), so that every node signs and
-- verifies with the same keys. private_key is the PKCS#8 DER of the key sealed
-- with AES-256-GCM under the key-encryption key file (nonce | ciphertext |
-- tag, the kid as associated data). Times are ms; publish_until NULL: no key
-- takes over yet; a retired key signs and verifies nothing.

CREATE TABLE signing_keys (
	kid          ctext PRIMARY KEY,
	alg          ctext NOT NULL CHECK (alg IN ('ES256', 'RS256')),
	private_key  bytea NOT NULL,
	created_at   bigint NOT NULL,
	activates_at bigint NOT NULL,
	publish_until bigint,
	retired_at   bigint
);

-- Moved by every write of signing_keys, by triggers so that every writer keeps
-- it: a node reads this one row (only when its caches were invalidated) to
-- know whether to read its keys again.
CREATE TABLE signing_keys_version (
	id      integer PRIMARY KEY CHECK (id = 1),
	version bigint NOT NULL
);
INSERT INTO signing_keys_version (id, version) VALUES (1, 0);

CREATE FUNCTION edgeauth_signing_keys_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE signing_keys_version SET version = version + 1;
	RETURN NULL;
END $$;

CREATE TRIGGER signing_keys_moved AFTER INSERT OR UPDATE OR DELETE ON signing_keys
FOR EACH ROW EXECUTE FUNCTION edgeauth_signing_keys_moved();
