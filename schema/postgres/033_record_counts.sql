-- edgeauth's PostgreSQL schema, version 33: nothing. schema/025_record_counts.sql
-- keeps each project's number of clients, roles and resources in a row that
-- every create and delete updates, as schema/004 does for users; on
-- PostgreSQL that row would be one lock every node's creates of a project
-- queue on (postgres/004_user_counts.sql), and the lists count with an index.
SELECT 1;
