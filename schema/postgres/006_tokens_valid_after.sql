-- edgeauth's PostgreSQL schema, version 6: deactivation ends a holder's tokens
-- for good (schema/006_tokens_valid_after.sql).
--
-- Deactivating a user, client or project stops its tokens at once (the bearer
-- check reads is_active); reactivating it must not bring back the tokens issued
-- before (docs/tokens.md §"Bearer check"). tokens_valid_after is the time (ms) of the last
-- deactivation: an access token whose iat falls in or before that second, and
-- a code or refresh token created at or before it, stays dead. NULL: never
-- deactivated. A trigger sets it, so every writer keeps the rule; the time is
-- the deactivating update's own updated_at.

ALTER TABLE users ADD COLUMN tokens_valid_after bigint;
ALTER TABLE clients ADD COLUMN tokens_valid_after bigint;
ALTER TABLE projects ADD COLUMN tokens_valid_after bigint;

CREATE FUNCTION edgeauth_deactivated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.tokens_valid_after := NEW.updated_at;
	RETURN NEW;
END $$;

CREATE TRIGGER users_deactivated BEFORE UPDATE OF is_active ON users FOR EACH ROW
WHEN (OLD.is_active AND NOT NEW.is_active) EXECUTE FUNCTION edgeauth_deactivated();
CREATE TRIGGER clients_deactivated BEFORE UPDATE OF is_active ON clients FOR EACH ROW
WHEN (OLD.is_active AND NOT NEW.is_active) EXECUTE FUNCTION edgeauth_deactivated();
CREATE TRIGGER projects_deactivated BEFORE UPDATE OF is_active ON projects FOR EACH ROW
WHEN (OLD.is_active AND NOT NEW.is_active) EXECUTE FUNCTION edgeauth_deactivated();
