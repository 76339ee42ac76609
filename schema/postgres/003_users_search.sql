-- edgeauth's PostgreSQL schema, version 3: the users search index
-- (schema/003_users_search.sql; SQLite's versions 3 to 5 are three home-made
-- indexes, PostgreSQL has the engine's own). A search is a case-insensitive
-- substring of the display name or the email, with % and _ literal
-- (docs/api.md §"Lists"): LIKE over lower() of the text, with the term's % _ \
-- escaped, which a pg_trgm GIN index answers for terms of 3 or more
-- characters. lower() of ctext folds ASCII only, as SQLite's LIKE does.
-- pg_trgm is a trusted extension: the database's owner may create it.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX users_search_display_name ON users USING gin (lower(display_name) gin_trgm_ops);
CREATE INDEX users_search_email ON users USING gin (lower(email) gin_trgm_ops);
