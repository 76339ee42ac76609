-- Which roles may sign in to a client, as schema/023_access_rules.sql on
-- SQLite (docs/signin.md §"Access rules"): allowed_role_ids, a JSON array of
-- role IDs of the client's project, [] letting everyone in. A deleted
-- role's ID stays in the list, where it matches no one (docs/decisions.md
-- "A deleted role in an access rule"). Changing it needs the twelve
-- permissions, as where tokens go does. The client record and writes that
-- carry it, and what a sign-in reads of it (edgeauth_access_facts), are
-- defined once, in their final form, in 032_consents.sql.
ALTER TABLE clients ADD COLUMN allowed_role_ids edgeauth_uri_list NOT NULL DEFAULT '[]';

-- Whether every ID of p_roles is a role of p_project, or one the client
-- lists already (p_now: a deleted role's ID a record carries back).
CREATE FUNCTION edgeauth_client_roles_ok(p_project ctext, p_roles jsonb, p_now jsonb)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(p_roles) j(id)
		WHERE NOT EXISTS (SELECT 1 FROM roles r WHERE r.id = j.id AND r.project_id = p_project)
		AND NOT coalesce(p_now, '[]') @> jsonb_build_array(j.id));
END $$;
