-- edgeauth schema, version 23: which roles may sign in to a client
-- (docs/signin.md §"Access rules").
--
-- allowed_role_ids: a JSON array of role IDs of the client's project; []
-- lets every user of the project in. A deleted role's ID stays in the
-- list, where it matches no one: taking it out could empty the list, and
-- an empty list lets everyone in (docs/decisions.md "A deleted role in an
-- access rule").
ALTER TABLE clients ADD COLUMN allowed_role_ids TEXT NOT NULL DEFAULT '[]';
