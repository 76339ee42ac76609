-- edgeauth schema, version 10: the audit trail of docs/operations.md §"Audit trail".
--
-- One row per event, written by the transaction that makes the change it
-- records (a rolled-back change leaves none). time is ms since the epoch;
-- project_id is NULL for store-wide events (a key rotation); actor is a
-- client or user ID, or 'cli'; target an ID or NULL; address the client's
-- (NULL for the CLI); outcome 'success' or an error code. Never a secret,
-- nor text a user typed: no column holds more than IDs and fixed words.
-- IDs only rise (AUTOINCREMENT: a purge that empties the table never
-- brings an ID back, so a reader of the file may key on it). No foreign
-- keys: the trail outlives what it names. Old rows go by time
-- ([audit] retention_days), hence the index on time; the CLI filters by
-- project (and time) or by action over a time range.

CREATE TABLE events (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	time       INTEGER NOT NULL,
	project_id TEXT,
	actor      TEXT NOT NULL,
	action     TEXT NOT NULL,
	target     TEXT,
	address    TEXT,
	outcome    TEXT NOT NULL
);
CREATE INDEX events_by_time ON events(time);
CREATE INDEX events_by_project ON events(project_id, time);
