-- edgeauth's PostgreSQL schema, version 4: nothing. schema/004_user_counts.sql
-- keeps each project's number of users in a row that every create and delete
-- updates, so that SQLite answers an unfiltered list's total without counting.
-- On PostgreSQL that row would be one lock that every node's creates of a
-- project queue on; the users list counts with an index-only scan of
-- users_by_created instead.
SELECT 1;
