-- edgeauth schema, version 4: the number of users of each project, kept by
-- triggers, so that an unfiltered users list answers its total without
-- counting every row (src/store/store_users.c).

CREATE TABLE user_counts (
	project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
	total      INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO user_counts (project_id, total)
SELECT project_id, count(*) FROM users GROUP BY project_id;

CREATE TRIGGER user_counts_insert AFTER INSERT ON users BEGIN
	INSERT INTO user_counts (project_id, total) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET total = total + 1;
END;

CREATE TRIGGER user_counts_delete AFTER DELETE ON users BEGIN
	UPDATE user_counts SET total = total - 1 WHERE project_id = old.project_id;
END;
