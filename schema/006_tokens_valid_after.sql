-- edgeauth schema, version 6: deactivation ends a holder's tokens for good.
--
-- Deactivating a user, client or project stops its tokens at once (the
-- bearer check reads is_active); reactivating it must not bring back the
-- tokens issued before (docs/tokens.md §"Bearer check"). tokens_valid_after is the time (ms)
-- of the last deactivation: an access token whose iat falls in or before
-- that second, and a code or refresh token created at or before it, stays
-- dead. NULL: never deactivated.
--
-- A trigger sets it, so every writer (the API, the CLI, another process on
-- the same file) keeps the rule. The time is the deactivating update's own
-- updated_at, which every update of these tables sets to its clock.

ALTER TABLE users ADD COLUMN tokens_valid_after INTEGER;
ALTER TABLE clients ADD COLUMN tokens_valid_after INTEGER;
ALTER TABLE projects ADD COLUMN tokens_valid_after INTEGER;

CREATE TRIGGER users_deactivated AFTER UPDATE OF is_active ON users
WHEN old.is_active = 1 AND new.is_active = 0 BEGIN
	UPDATE users SET tokens_valid_after = new.updated_at WHERE id = new.id;
END;

CREATE TRIGGER clients_deactivated AFTER UPDATE OF is_active ON clients
WHEN old.is_active = 1 AND new.is_active = 0 BEGIN
	UPDATE clients SET tokens_valid_after = new.updated_at WHERE id = new.id;
END;

CREATE TRIGGER projects_deactivated AFTER UPDATE OF is_active ON projects
WHEN old.is_active = 1 AND new.is_active = 0 BEGIN
	UPDATE projects SET tokens_valid_after = new.updated_at WHERE id = new.id;
END;
