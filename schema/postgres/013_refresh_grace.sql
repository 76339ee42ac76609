-- edgeauth's PostgreSQL schema, version 13: the refresh grace of docs/tokens.md
-- §"Refresh grace" (schema/009_refresh_grace.sql: the successor a rotation issued, kept
-- in the used token's row; NULL: not rotated, or no grace).
--
-- The PostgreSQL versions number on their own: each translation of a SQLite
-- version (schema/NNN_*.sql) takes the next free number here, beside the
-- PostgreSQL-only versions (the NOTIFYs, the write functions).

ALTER TABLE refresh_tokens ADD COLUMN successor_hash ctext;
