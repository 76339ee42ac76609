-- edgeauth's PostgreSQL schema, version 14: the audit trail of docs/operations.md §"Audit trail"
-- (schema/010_audit.sql for PostgreSQL).
--
-- One row per event, inserted by the statement that makes the change it
-- records, so a change that rolls back (or answers a refusal) leaves none.
-- IDs come from an identity column and never come back. No foreign keys: the
-- trail outlives what it names.

CREATE TABLE events (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	time       bigint NOT NULL,
	project_id ctext,
	actor      ctext NOT NULL,
	action     ctext NOT NULL,
	target     ctext,
	address    ctext,
	outcome    ctext NOT NULL
);
CREATE INDEX events_by_time ON events(time);
CREATE INDEX events_by_project ON events(project_id, time);

-- The record, as the list and the audit file show it: SQL_EVENT_RECORD's keys
-- and order (src/store/store_events.c).
CREATE FUNCTION edgeauth_event_json(e events) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', e.id, 'time', edgeauth_iso_time(e.time),
		'project_id', e.project_id, 'actor', e.actor, 'action', e.action,
		'target', e.target, 'address', e.address, 'outcome', e.outcome)
$$;

-- Records p_event, the JSON object pg_event_json makes of a struct event
-- (project_id, actor, action, target, address, outcome; NULL: nothing is
-- recorded), p_target when not NULL replacing its target (an ID the write
-- made). Answers the event's record, for the audit file, or NULL.
CREATE FUNCTION edgeauth_event(p_event json, p_target ctext DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	e events;
BEGIN
	IF p_event IS NULL THEN
		RETURN NULL;
	END IF;
	INSERT INTO events (time, project_id, actor, action, target, address, outcome)
	VALUES (edgeauth_now_ms(), p_event->>'project_id', p_event->>'actor', p_event->>'action',
	        coalesce(p_target, p_event->>'target'), p_event->>'address',
	        coalesce(p_event->>'outcome', 'success'))
	RETURNING * INTO e;
	RETURN edgeauth_event_json(e)::text;
END $$;

-- Several events at once, each its row (store_event_record: a failed sign-in,
-- a throttle that starts): p_events a JSON array of pg_event_json objects.
CREATE FUNCTION edgeauth_events_record(p_events json) RETURNS TABLE (event text)
LANGUAGE sql AS $$
	SELECT edgeauth_event(e) FROM json_array_elements(p_events) WITH ORDINALITY AS a(e, n)
	ORDER BY n
$$;
