-- edgeauth schema, version 7: signing keys live in the store (docs/tokens.md §"Signing keys").
--
-- Every process on the file (the server, the CLI, later every node of a
-- fleet) signs and verifies with the same keys. private_key is the PKCS#8
-- DER of the key sealed with AES-256-GCM under the key-encryption key file
-- ([tokens] key_encryption_key_file): nonce (12) | ciphertext | tag (16),
-- with the kid as associated data, so a sealed key moved to another row
-- does not open. The kid is the RFC 7638 thumbprint of the public key, so
-- the public JWK is derived from the key and not stored beside it.
--
-- Times are ms. A key signs from activates_at (src/crypto/key_schedule.c says
-- which key signs when); publish_until is set once a newer key of its alg
-- is scheduled to take over: that key's activation plus the longest
-- lifetime of what a key signs (NULL: no key takes over, no bound yet).
-- A retired key (retired_at) signs and verifies nothing.

CREATE TABLE signing_keys (
	kid TEXT PRIMARY KEY,
	alg TEXT NOT NULL CHECK (alg IN ('ES256', 'RS256')),
	private_key BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	activates_at INTEGER NOT NULL,
	publish_until INTEGER,
	retired_at INTEGER
);

-- Moved by every write of signing_keys, by triggers so that every writer
-- keeps it: a server reads this one row (only when the store changed at
-- all) to know whether to read its keys again.
CREATE TABLE signing_keys_version (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	version INTEGER NOT NULL
);
INSERT INTO signing_keys_version (id, version) VALUES (1, 0);

CREATE TRIGGER signing_keys_inserted AFTER INSERT ON signing_keys BEGIN
	UPDATE signing_keys_version SET version = version + 1;
END;
CREATE TRIGGER signing_keys_updated AFTER UPDATE ON signing_keys BEGIN
	UPDATE signing_keys_version SET version = version + 1;
END;
CREATE TRIGGER signing_keys_deleted AFTER DELETE ON signing_keys BEGIN
	UPDATE signing_keys_version SET version = version + 1;
END;
