-- edgeauth schema, version 14: the indexes of the audit trail's list
-- (GET /api/v1/projects/{project_id}/events, docs/api.md §"Audit trail").
--
-- A page of a project's events, newest first, filtered by an exact action,
-- actor or target and a time range: each filter has an index on
-- (project_id, column, time), whose entries end with the rowid (the
-- event's ID), so the page and its count are one range of one index
-- (src/store/sqlite/sqlite_events.c picks it). Without a filter,
-- schema/010's events_by_project serves.

CREATE INDEX events_by_project_action ON events(project_id, action, time);
CREATE INDEX events_by_project_actor ON events(project_id, actor, time);
CREATE INDEX events_by_project_target ON events(project_id, target, time);
