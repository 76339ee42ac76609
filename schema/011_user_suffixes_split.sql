-- edgeauth schema, version 11: a user's search keys (version 5) written by
-- one INSERT for the display name and one for the email, the same keys as
-- before.
--
-- Why: the UNION ALL of the two values was materialised into a temporary
-- table on every create (a b-tree opened, filled and dropped for two
-- values): 6-10% of a create's user INSERT, 16,500-26,000 instructions
-- (callgrind; docs/BENCHMARKS.md). Each INSERT below reads search_positions
-- for its own value; a NULL email has no length and so no keys, as the
-- UNION ALL's NULL row had none. The update trigger keeps version 5's
-- spelling of the same keys: an update of a name is rare, a create is the
-- bulk load.

DROP TRIGGER user_suffixes_insert;
CREATE TRIGGER user_suffixes_insert AFTER INSERT ON users BEGIN
	INSERT OR IGNORE INTO user_suffixes_recent (project, suffix, user_rowid)
	SELECT (SELECT rowid FROM projects WHERE id = new.project_id),
	       substr(lower(new.display_name), n, 10), new.rowid
	FROM search_positions WHERE n <= length(new.display_name);
	INSERT OR IGNORE INTO user_suffixes_recent (project, suffix, user_rowid)
	SELECT (SELECT rowid FROM projects WHERE id = new.project_id),
	       substr(lower(new.email), n, 10), new.rowid
	FROM search_positions WHERE n <= length(new.email);
END;
