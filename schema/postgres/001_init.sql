-- edgeauth's PostgreSQL schema, version 1: schema/001_init.sql for PostgreSQL
-- (docs/operations.md §"A fleet on PostgreSQL"). Every schema/NNN file has its postgres/NNN here, giving the
-- same behaviour; edgeauth applies them at start under an advisory lock.
--
-- As in SQLite: times are integer milliseconds since the epoch (UTC), IDs are
-- opaque text made by edgeauth. Text is the domain ctext, compared, sorted and
-- lower()ed bytewise with ASCII case folding (COLLATE "C"), as SQLite's BINARY,
-- NOCASE and LIKE do, so both backends give the same pages and conflicts
-- whatever locale the operator created the database with. Flags are booleans.

CREATE DOMAIN ctext AS text COLLATE "C";

-- The time of the transaction, in ms: times compared across nodes come from
-- the database, never from a node's clock.
CREATE FUNCTION edgeauth_now_ms() RETURNS bigint LANGUAGE sql STABLE
AS $$ SELECT floor(extract(epoch FROM now()) * 1000)::bigint $$;

-- ms as RFC 3339 UTC with milliseconds (2026-11-22T12:00:00.123Z), as
-- format_timestamp (src/util/util.c) writes it: records are built here as JSON text.
-- Clamped to the years 0001..9999 (PostgreSQL has no year 0). One expression,
-- STABLE as to_char is, so that the planner inlines it into every record.
CREATE FUNCTION edgeauth_iso_time(ms bigint) RETURNS text LANGUAGE sql STABLE
AS $$
	SELECT to_char(timestamp '1970-01-01' + make_interval(secs =>
	               floor(least(greatest(ms, -62135596800000), 253402300799999) / 1000.0)::float8),
	               'YYYY-MM-DD"T"HH24:MI:SS')
	       || '.' || lpad(mod(mod(ms, 1000) + 1000, 1000)::text, 3, '0') || 'Z'
$$;

CREATE TABLE projects (
	id          ctext PRIMARY KEY,
	name        ctext NOT NULL,
	is_active   boolean NOT NULL DEFAULT true,
	created_at  bigint NOT NULL,
	updated_at  bigint NOT NULL
);

CREATE TABLE resources (
	id          ctext PRIMARY KEY,
	project_id  ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name        ctext NOT NULL,
	code        ctext NOT NULL,
	description ctext,
	is_default  boolean NOT NULL DEFAULT false,
	created_at  bigint NOT NULL,
	updated_at  bigint NOT NULL,
	UNIQUE (project_id, code)
);
CREATE INDEX resources_by_created ON resources(project_id, created_at, id);

CREATE TABLE permissions (
	id          ctext PRIMARY KEY,
	resource_id ctext NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
	project_id  ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name        ctext NOT NULL,
	code        ctext NOT NULL,
	description ctext,
	position    integer NOT NULL,   -- order within the resource, as sent
	UNIQUE (resource_id, code)
);
CREATE INDEX permissions_by_project ON permissions(project_id);

CREATE TABLE roles (
	id          ctext PRIMARY KEY,
	project_id  ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	code        ctext NOT NULL,
	name        ctext NOT NULL,
	description ctext,
	created_at  bigint NOT NULL,
	updated_at  bigint NOT NULL,
	UNIQUE (project_id, code)
);
CREATE INDEX roles_by_created ON roles(project_id, created_at, id);
CREATE INDEX roles_by_updated ON roles(project_id, updated_at, id);
CREATE INDEX roles_by_name ON roles(project_id, lower(name), id);

CREATE TABLE role_permissions (
	role_id       ctext NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
	permission_id ctext NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
	PRIMARY KEY (role_id, permission_id)
);
CREATE INDEX role_permissions_by_permission ON role_permissions(permission_id);

CREATE TABLE users (
	id               ctext PRIMARY KEY,
	project_id       ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	display_name     ctext NOT NULL,
	avatar_url       ctext,
	external_user_id ctext,
	email            ctext,
	password_hash    ctext,
	is_active        boolean NOT NULL DEFAULT true,
	role_id          ctext REFERENCES roles(id) ON DELETE SET NULL,
	created_at       bigint NOT NULL,
	updated_at       bigint NOT NULL
);
-- NULLs are distinct in a UNIQUE index: users without an email or external ID
-- coexist. Emails are unique without regard to ASCII case (SQLite's NOCASE).
CREATE UNIQUE INDEX users_by_external_id ON users(project_id, external_user_id);
CREATE UNIQUE INDEX users_by_email ON users(project_id, lower(email));
CREATE INDEX users_by_created ON users(project_id, created_at, id);
CREATE INDEX users_by_updated ON users(project_id, updated_at, id);
CREATE INDEX users_by_display_name ON users(project_id, lower(display_name), id);
CREATE INDEX users_by_active ON users(project_id, is_active, id);
CREATE INDEX users_by_role ON users(role_id);

CREATE TABLE clients (
	id            ctext PRIMARY KEY,
	project_id    ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name          ctext NOT NULL,
	description   ctext,
	secret_hash   ctext NOT NULL,      -- SHA-256 of a 256-bit random secret
	is_active     boolean NOT NULL DEFAULT true,
	redirect_uris jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(redirect_uris) = 'array'),
	created_at    bigint NOT NULL,
	updated_at    bigint NOT NULL
);
CREATE INDEX clients_by_created ON clients(project_id, created_at, id);
CREATE INDEX clients_by_updated ON clients(project_id, updated_at, id);
CREATE INDEX clients_by_name ON clients(project_id, lower(name), id);

CREATE TABLE client_permissions (
	client_id     ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	permission_id ctext NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
	PRIMARY KEY (client_id, permission_id)
);
CREATE INDEX client_permissions_by_permission ON client_permissions(permission_id);

-- Access tokens revoked before their expiry, by JWT ID.
CREATE TABLE revoked_tokens (
	jti        ctext PRIMARY KEY,
	expires_at bigint NOT NULL     -- seconds
);
