-- edgeauth schema, version 1: projects and what they manage.
-- Times are integer milliseconds since the epoch (UTC). IDs are opaque text.
-- The uniqueness rules of docs/api.md §"Errors" (the 409s) live here, so a race cannot create duplicates.

CREATE TABLE projects (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);

CREATE TABLE resources (
	id          TEXT PRIMARY KEY,
	project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	code        TEXT NOT NULL,
	description TEXT,
	is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	UNIQUE (project_id, code)
);
CREATE INDEX resources_by_created ON resources(project_id, created_at, id);

CREATE TABLE permissions (
	id          TEXT PRIMARY KEY,
	resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
	project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	code        TEXT NOT NULL,
	description TEXT,
	position    INTEGER NOT NULL,   -- order within the resource, as sent
	UNIQUE (resource_id, code)
);
CREATE INDEX permissions_by_project ON permissions(project_id);

CREATE TABLE roles (
	id          TEXT PRIMARY KEY,
	project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	code        TEXT NOT NULL,
	name        TEXT NOT NULL,
	description TEXT,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	UNIQUE (project_id, code)
);
CREATE INDEX roles_by_created ON roles(project_id, created_at, id);
CREATE INDEX roles_by_updated ON roles(project_id, updated_at, id);
CREATE INDEX roles_by_name ON roles(project_id, name COLLATE NOCASE, id);

CREATE TABLE role_permissions (
	role_id       TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
	permission_id TEXT NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
	PRIMARY KEY (role_id, permission_id)
) WITHOUT ROWID;
CREATE INDEX role_permissions_by_permission ON role_permissions(permission_id);

CREATE TABLE users (
	id               TEXT PRIMARY KEY,
	project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	display_name     TEXT NOT NULL,
	avatar_url       TEXT,
	external_user_id TEXT,
	email            TEXT,
	password_hash    TEXT,
	is_active        INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
	role_id          TEXT REFERENCES roles(id) ON DELETE SET NULL,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
);
-- NULLs are distinct in a UNIQUE index: users without an email or external ID coexist.
CREATE UNIQUE INDEX users_by_external_id ON users(project_id, external_user_id);
CREATE UNIQUE INDEX users_by_email ON users(project_id, email COLLATE NOCASE);
CREATE INDEX users_by_created ON users(project_id, created_at, id);
CREATE INDEX users_by_updated ON users(project_id, updated_at, id);
CREATE INDEX users_by_display_name ON users(project_id, display_name COLLATE NOCASE, id);
CREATE INDEX users_by_active ON users(project_id, is_active, id);
CREATE INDEX users_by_role ON users(role_id);

CREATE TABLE clients (
	id            TEXT PRIMARY KEY,
	project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name          TEXT NOT NULL,
	description   TEXT,
	secret_hash   TEXT NOT NULL,      -- SHA-256 of a 256-bit random secret
	is_active     INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
	redirect_uris TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
);
CREATE INDEX clients_by_created ON clients(project_id, created_at, id);
CREATE INDEX clients_by_updated ON clients(project_id, updated_at, id);
CREATE INDEX clients_by_name ON clients(project_id, name COLLATE NOCASE, id);

CREATE TABLE client_permissions (
	client_id     TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	permission_id TEXT NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
	PRIMARY KEY (client_id, permission_id)
) WITHOUT ROWID;
CREATE INDEX client_permissions_by_permission ON client_permissions(permission_id);

-- Access tokens revoked before their expiry, by JWT ID.
CREATE TABLE revoked_tokens (
	jti        TEXT PRIMARY KEY,
	expires_at INTEGER NOT NULL
) WITHOUT ROWID;
