-- edgeauth's PostgreSQL schema, version 18 (PostgreSQL only): several nodes
-- share the back-channel outbox without sending a logout twice.
--
-- A node's read claims the rows it takes (claimed_by, its host and listen
-- address; claimed_until, renewed by each of its reads, about every second)
-- and skips the rows another node's live claim holds; a node that restarts
-- goes on with its own claims, one that stopped for good leaves claims that
-- lapse, and the rows go to whoever reads next. A new
-- row NOTIFYs 'outbox' on the channel, so that a node delivers it at once
-- rather than at its next poll.

ALTER TABLE backchannel_outbox ADD COLUMN claimed_by text, ADD COLUMN claimed_until bigint;

CREATE FUNCTION edgeauth_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('edgeauth', 'outbox');
	RETURN NULL;
END $$;
-- (for each row: a statement trigger fires for an INSERT ... SELECT of no row)
CREATE TRIGGER backchannel_outbox_notify AFTER INSERT ON backchannel_outbox FOR EACH ROW
EXECUTE FUNCTION edgeauth_outbox_notify();
