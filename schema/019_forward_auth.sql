-- edgeauth schema, version 19: forward authentication (docs/forward-auth.md).
--
-- A client's forward_auth_urls: the base URLs of an app with no login of
-- its own that a reverse proxy protects, a JSON array like redirect_uris.
-- Each also registers <base URL>/.edgeauth/callback as a redirect URI.
ALTER TABLE clients ADD COLUMN forward_auth_urls TEXT NOT NULL DEFAULT '[]';
