-- edgeauth schema, version 26: the number of clients, roles and resources of
-- each project, kept by triggers as user_counts (004) keeps its users, so
-- that an unfiltered list of them, and the console's overview that shows
-- the four totals, answers its total without counting every row.

CREATE TABLE record_counts (
	project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
	clients    INTEGER NOT NULL DEFAULT 0,
	roles      INTEGER NOT NULL DEFAULT 0,
	resources  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO record_counts (project_id, clients, roles, resources)
SELECT p.id,
	(SELECT count(*) FROM clients c WHERE c.project_id = p.id),
	(SELECT count(*) FROM roles r WHERE r.project_id = p.id),
	(SELECT count(*) FROM resources s WHERE s.project_id = p.id)
FROM projects p;

CREATE TRIGGER record_counts_client_insert AFTER INSERT ON clients BEGIN
	INSERT INTO record_counts (project_id, clients) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET clients = clients + 1;
END;
CREATE TRIGGER record_counts_client_delete AFTER DELETE ON clients BEGIN
	UPDATE record_counts SET clients = clients - 1 WHERE project_id = old.project_id;
END;
CREATE TRIGGER record_counts_role_insert AFTER INSERT ON roles BEGIN
	INSERT INTO record_counts (project_id, roles) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET roles = roles + 1;
END;
CREATE TRIGGER record_counts_role_delete AFTER DELETE ON roles BEGIN
	UPDATE record_counts SET roles = roles - 1 WHERE project_id = old.project_id;
END;
CREATE TRIGGER record_counts_resource_insert AFTER INSERT ON resources BEGIN
	INSERT INTO record_counts (project_id, resources) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET resources = resources + 1;
END;
CREATE TRIGGER record_counts_resource_delete AFTER DELETE ON resources BEGIN
	UPDATE record_counts SET resources = resources - 1 WHERE project_id = old.project_id;
END;
