-- edgeauth schema, version 17: an ended session's codes are refused, no
-- longer deleted.
--
-- Version 13 deleted a session's unredeemed codes when it ended, through a
-- trigger and an index on auth_codes(session_id). The code grant refuses a
-- code whose session has ended or is gone (src/store/sqlite/sqlite_tokens.c,
-- SQL_SESSION_GONE), and that check alone makes them unredeemable, also for
-- a code stored while its session was ending. The index cost every code a
-- second B-tree insert and its page at commit: about 17,000 of a silent
-- sign-in's 264,000 instructions (docs/BENCHMARKS.md, "Comparisons"). The
-- codes left behind expire in a minute and the purge removes them.

DROP TRIGGER sessions_ended_codes;
DROP INDEX auth_codes_by_session;
