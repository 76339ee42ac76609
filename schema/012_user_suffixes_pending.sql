-- edgeauth schema, version 12: a new user's search keys are written by the
-- server while it is idle, not by the create.
--
-- Why: a create wrote every suffix of the display name and email into
-- user_suffixes_recent (version 5), a dozen or more keys on as many random
-- pages of a table that grows while creates never pause, each page then
-- written to the WAL at the batch's commit. That was 40% of a create's CPU
-- time (a store without those keys: 230 against 400 us a create, 100,000
-- users; docs/BENCHMARKS.md). Now a create only appends its user's rowid to
-- user_suffixes_pending (one row, on the table's last page), and the server
-- writes the keys of many pending users, 20 a transaction, while no request
-- is waiting (or past 10,000 pending; src/main.c), into user_suffixes_recent
-- as before, from where
-- they move into user_suffixes as before.
--
-- A search reads the keys of both tables and scans the pending users
-- (src/store/store_users_list.c): `instr(lower(v), lo) > 0` holds exactly when
-- some key of v is in the search's range, so results and totals are the same.
--
-- Invariant: a user that is not pending has exactly its keys (in
-- user_suffixes, user_suffixes_recent, or part in each); a pending one has
-- none, or those an update wrote (the update trigger of version 5 is kept:
-- it deletes the old keys and writes the new, which the server's INSERT OR
-- IGNORE then finds there), never a stale one.

CREATE TABLE user_suffixes_pending (user_rowid INTEGER PRIMARY KEY);

DROP TRIGGER user_suffixes_insert;
CREATE TRIGGER user_suffixes_insert AFTER INSERT ON users BEGIN
	INSERT OR IGNORE INTO user_suffixes_pending (user_rowid) VALUES (new.rowid);
END;

-- A deleted user's rowid may be given to the next new user (users has no
-- AUTOINCREMENT), whose insert then finds it gone.
CREATE TRIGGER user_suffixes_pending_delete AFTER DELETE ON users BEGIN
	DELETE FROM user_suffixes_pending WHERE user_rowid = old.rowid;
END;
