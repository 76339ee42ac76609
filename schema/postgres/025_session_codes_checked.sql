-- edgeauth's PostgreSQL schema, version 25: an ended session's codes are
-- refused, no longer deleted (schema/017_session_codes_checked.sql).
--
-- The code grant refuses a code whose session has ended or is gone
-- (src/store/pg/pg_tokens.c, SESSION_GONE); the trigger and index of
-- version 19 only made each code's insert dearer.

DROP TRIGGER sessions_ended_codes ON sessions;
DROP FUNCTION edgeauth_session_ended_codes();
DROP INDEX auth_codes_by_session;
