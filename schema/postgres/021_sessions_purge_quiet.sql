-- The purge deletes sessions that ended or expired. Their ending already
-- told every node (the UPDATE of ended_at notifies), and an expired session
-- is refused by its expiry on every node, so deleting them changes nothing
-- a node's cache holds: only a live session's deletion (a user's or a
-- project's, by cascade) notifies. Before, every purge tick that found an
-- ended session emptied the caches of the whole fleet
-- (docs/operations.md §"A fleet on PostgreSQL").
DROP TRIGGER sessions_notify ON sessions;
CREATE TRIGGER sessions_notify AFTER UPDATE OF ended_at ON sessions
FOR EACH ROW EXECUTE FUNCTION edgeauth_notify();
CREATE TRIGGER sessions_deleted_notify AFTER DELETE ON sessions FOR EACH ROW
WHEN (OLD.ended_at IS NULL AND OLD.expires_at > edgeauth_now_ms())
EXECUTE FUNCTION edgeauth_notify();
