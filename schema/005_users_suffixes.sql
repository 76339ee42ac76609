-- edgeauth schema, version 5: the users search index becomes a sorted table of
-- suffixes, replacing version 3's FTS5 trigram index.
--
-- Why: a trigram index answers a substring by reading the whole posting list
-- of every trigram of the term, so a search's cost grew with the store (×8.5
-- from 10,000 to 1,000,000 users at a steady number found). Here every suffix
-- of a user's display name and email, lowercased and cut to its first 10
-- characters, is a key; a term is a prefix of some suffix exactly when the
-- name contains it, so a search is one range of the index: its cost follows
-- the number of users found (log of the store to reach the range).
--
-- lower() folds ASCII only, as the search's LIKE does, so for a term of up to
-- 10 characters the range holds exactly the users whose name or email the
-- LIKE would match, and src/store/store_users.c counts them from the index alone.
-- A longer term is looked up by its first 10 characters, and the LIKE then
-- decides. Keys start with the project's rowid, so one project's search never
-- reads another's users.
--
-- Rows point at users and projects by rowid, as the FTS5 index did. Neither
-- table has an INTEGER PRIMARY KEY, so their rowids are only as stable as
-- SQLite keeps them (VACUUM copies them unchanged, through its transfer
-- optimisation). Should they ever be renumbered, rebuild the index with the
-- INSERT at the end of this file after emptying both tables.
--
-- Cost: about 18 bytes a character of display name and email (36 MB for
-- 100,000 users with 15-character names).
--
-- Writes: a user's suffixes land all over the big index, and a create that
-- dirtied 15 random pages of it ran at half the speed. New suffixes go to
-- user_suffixes_recent instead, which is small and stays in the page cache;
-- the server moves them into user_suffixes in key order while no request
-- writes (src/main.c), where a run of them shares each page it touches.
-- Searches read both tables.

DROP TRIGGER users_search_insert;
DROP TRIGGER users_search_delete;
DROP TRIGGER users_search_update;
DROP TABLE users_search;

-- 1..256, more than the longest display name or email (docs/api.md §"Limits": 50, 100);
-- triggers cannot use a recursive CTE.
CREATE TABLE search_positions (n INTEGER PRIMARY KEY);
WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 256)
INSERT INTO search_positions SELECT n FROM c;

CREATE TABLE user_suffixes (
	project    INTEGER NOT NULL,   -- projects.rowid
	suffix     TEXT NOT NULL,
	user_rowid INTEGER NOT NULL,
	PRIMARY KEY (project, suffix, user_rowid)
) WITHOUT ROWID;

CREATE TABLE user_suffixes_recent (
	project    INTEGER NOT NULL,
	suffix     TEXT NOT NULL,
	user_rowid INTEGER NOT NULL,
	PRIMARY KEY (project, suffix, user_rowid)
) WITHOUT ROWID;

-- A user's keys: every suffix of the display name and of the email. The
-- triggers spell this out for old and new rows (a trigger cannot call a
-- view with arguments): SELECT substr(lower(v), n, 10) FROM (SELECT
-- display_name AS v UNION ALL SELECT email) JOIN search_positions ON n <=
-- length(v). OR IGNORE: a name may repeat a key (cut to 10 characters), or
-- share one with the email.
CREATE TRIGGER user_suffixes_insert AFTER INSERT ON users BEGIN
	INSERT OR IGNORE INTO user_suffixes_recent (project, suffix, user_rowid)
	SELECT (SELECT rowid FROM projects WHERE id = new.project_id),
	       substr(lower(v), n, 10), new.rowid
	FROM (SELECT new.display_name AS v UNION ALL SELECT new.email)
	JOIN search_positions ON n <= length(v);
END;

-- A user's keys may be in either table, or (part moved) in both.
CREATE TRIGGER user_suffixes_delete AFTER DELETE ON users BEGIN
	DELETE FROM user_suffixes
	WHERE project = (SELECT rowid FROM projects WHERE id = old.project_id)
	AND user_rowid = old.rowid AND suffix IN (
		SELECT substr(lower(v), n, 10)
		FROM (SELECT old.display_name AS v UNION ALL SELECT old.email)
		JOIN search_positions ON n <= length(v));
	DELETE FROM user_suffixes_recent
	WHERE project = (SELECT rowid FROM projects WHERE id = old.project_id)
	AND user_rowid = old.rowid AND suffix IN (
		SELECT substr(lower(v), n, 10)
		FROM (SELECT old.display_name AS v UNION ALL SELECT old.email)
		JOIN search_positions ON n <= length(v));
END;

-- A project's users go with it (ON DELETE CASCADE), but by then their
-- project's rowid can no longer be looked up: the project's rows go first.
CREATE TRIGGER user_suffixes_project_delete BEFORE DELETE ON projects BEGIN
	DELETE FROM user_suffixes WHERE project = old.rowid;
	DELETE FROM user_suffixes_recent WHERE project = old.rowid;
END;

-- Every update sets display_name; re-index only when the text changed, as a
-- delete and an insert would. A user never moves to another project.
CREATE TRIGGER user_suffixes_update AFTER UPDATE OF display_name, email ON users
WHEN old.display_name IS NOT new.display_name OR old.email IS NOT new.email BEGIN
	DELETE FROM user_suffixes
	WHERE project = (SELECT rowid FROM projects WHERE id = old.project_id)
	AND user_rowid = old.rowid AND suffix IN (
		SELECT substr(lower(v), n, 10)
		FROM (SELECT old.display_name AS v UNION ALL SELECT old.email)
		JOIN search_positions ON n <= length(v));
	DELETE FROM user_suffixes_recent
	WHERE project = (SELECT rowid FROM projects WHERE id = old.project_id)
	AND user_rowid = old.rowid AND suffix IN (
		SELECT substr(lower(v), n, 10)
		FROM (SELECT old.display_name AS v UNION ALL SELECT old.email)
		JOIN search_positions ON n <= length(v));
	INSERT OR IGNORE INTO user_suffixes_recent (project, suffix, user_rowid)
	SELECT (SELECT rowid FROM projects WHERE id = new.project_id),
	       substr(lower(v), n, 10), new.rowid
	FROM (SELECT new.display_name AS v UNION ALL SELECT new.email)
	JOIN search_positions ON n <= length(v);
END;

-- The users that were there before this migration, straight into the index.
INSERT OR IGNORE INTO user_suffixes (project, suffix, user_rowid)
SELECT p.rowid, substr(lower(v), n, 10), k.user_rowid
FROM (SELECT rowid AS user_rowid, project_id, display_name AS v FROM users
      UNION ALL SELECT rowid, project_id, email FROM users) k
JOIN projects p ON p.id = k.project_id
JOIN search_positions ON n <= length(v);
