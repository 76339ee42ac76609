-- edgeauth schema, version 3: a trigram index over users' display names and
-- emails, so that a search of 3 or more characters reads the index instead of
-- scanning every user of the project (src/store/store_users.c). The index only
-- narrows: the search still applies its LIKE to the rows it returns, so the
-- results are those of the scan (LIKE folds ASCII case only, the trigram
-- tokenizer all of Unicode's simple folds: the index finds a superset).
--
-- External content: the index stores no copy of the text; it is keyed by the
-- users row's rowid and kept in step by the triggers below, in the writer's
-- own transaction. users has no INTEGER PRIMARY KEY, so its rowids are only
-- as stable as SQLite keeps them (VACUUM copies them unchanged, through its
-- transfer optimisation). Should they ever be renumbered, rebuild the index:
--   INSERT INTO users_search(users_search) VALUES ('rebuild');

CREATE VIRTUAL TABLE users_search USING fts5(
	display_name, email,
	content = 'users', tokenize = 'trigram case_sensitive 0'
);

CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
	INSERT INTO users_search (rowid, display_name, email)
	VALUES (new.rowid, new.display_name, new.email);
END;

-- The 'delete' command must be given the values the row was indexed with.
CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
	INSERT INTO users_search (users_search, rowid, display_name, email)
	VALUES ('delete', old.rowid, old.display_name, old.email);
END;

-- Every update sets display_name; re-index only when the text changed.
CREATE TRIGGER users_search_update AFTER UPDATE OF display_name, email ON users
WHEN old.display_name IS NOT new.display_name OR old.email IS NOT new.email BEGIN
	INSERT INTO users_search (users_search, rowid, display_name, email)
	VALUES ('delete', old.rowid, old.display_name, old.email);
	INSERT INTO users_search (rowid, display_name, email)
	VALUES (new.rowid, new.display_name, new.email);
END;

-- The users that were there before this migration.
INSERT INTO users_search (users_search) VALUES ('rebuild');
