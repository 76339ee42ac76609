-- edgeauth's PostgreSQL schema, version 5: nothing. schema/005_users_suffixes.sql
-- replaces SQLite's users search index with a table of suffixes; PostgreSQL
-- keeps version 3's pg_trgm index, which needs no moving of keys
-- (store_user_suffixes_move does nothing on PostgreSQL).
SELECT 1;
