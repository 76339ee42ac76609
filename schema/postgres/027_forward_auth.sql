-- Forward authentication (docs/forward-auth.md), as schema/019_forward_auth.sql
-- on SQLite: a client's forward_auth_urls, the base URLs of an app a reverse
-- proxy protects (each also registers <base URL>/.edgeauth/callback as a
-- redirect URI). Setting or changing them needs all twelve permissions, like
-- redirect_uris (docs/signin.md §"Who may change where tokens go"). The
-- client record and writes that carry them are defined once, in their final
-- form, in 032_consents.sql.
ALTER TABLE clients ADD COLUMN forward_auth_urls edgeauth_uri_list NOT NULL DEFAULT '[]';
