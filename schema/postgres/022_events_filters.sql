-- edgeauth's PostgreSQL schema, version 22: the indexes of the audit
-- trail's list (schema/014_events_filters.sql for PostgreSQL).
--
-- A page of a project's events, newest first (time, then id), filtered by
-- an exact action, actor or target and a time range: one index per filter,
-- ending with id so that ties of time need no sort
-- (src/store/pg/pg_events.c picks it).

CREATE INDEX events_by_project_action ON events(project_id, action, time, id);
CREATE INDEX events_by_project_actor ON events(project_id, actor, time, id);
CREATE INDEX events_by_project_target ON events(project_id, target, time, id);
