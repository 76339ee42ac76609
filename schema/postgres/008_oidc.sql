-- edgeauth's PostgreSQL schema, version 8: OpenID Connect and the records of
-- docs/signin.md §"OpenID Connect"; docs/api.md §"Read one and delete" (schema/008_oidc.sql).
--
-- A sign-in's OpenID Connect side travels with its code and then with its
-- refresh tokens: the OIDC scopes requested (NULL for a plain OAuth sign-in),
-- the nonce (codes only), when the user last proved a password (ms; for a
-- BYOU code, when it was minted), and the session it was made in (its public
-- id, the ID token's sid; NULL for BYOU).

ALTER TABLE auth_codes ADD COLUMN scope ctext;
ALTER TABLE auth_codes ADD COLUMN nonce ctext;
ALTER TABLE auth_codes ADD COLUMN auth_time bigint;
ALTER TABLE auth_codes ADD COLUMN session_id ctext;

ALTER TABLE refresh_tokens ADD COLUMN scope ctext;
ALTER TABLE refresh_tokens ADD COLUMN auth_time bigint;
ALTER TABLE refresh_tokens ADD COLUMN session_id ctext;
CREATE INDEX refresh_tokens_by_session ON refresh_tokens(session_id) WHERE session_id IS NOT NULL;

-- §7: an email set through the management API is vouched for; one the user
-- set themselves (PUT /api/v1/users/current) is not.
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT true;

-- §7-§8: where a client's tokens and logouts may go, and how it proves who it is.
ALTER TABLE clients ADD COLUMN post_logout_redirect_uris jsonb NOT NULL DEFAULT '[]'
	CHECK (jsonb_typeof(post_logout_redirect_uris) = 'array');
ALTER TABLE clients ADD COLUMN backchannel_logout_uri ctext;
ALTER TABLE clients ADD COLUMN token_endpoint_auth_method ctext NOT NULL DEFAULT 'none'
	CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post'));
ALTER TABLE clients ADD COLUMN id_token_signed_response_alg ctext NOT NULL DEFAULT 'RS256'
	CHECK (id_token_signed_response_alg IN ('RS256', 'ES256'));

-- §7: a browser's sign-in, shared by every client of the project. id is the
-- public identifier (the ID token's sid); the cookie holds a secret stored
-- only as its hash, and a new sign-in replaces it (no fixation).
CREATE TABLE sessions (
	id           ctext PRIMARY KEY,
	secret_hash  ctext NOT NULL UNIQUE,
	project_id   ctext NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	user_id      ctext NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	auth_time    bigint NOT NULL,   -- the latest password check, ms
	created_at   bigint NOT NULL,
	expires_at   bigint NOT NULL,
	ended_at     bigint             -- logout, deactivation, new password
);
CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

-- The clients that got a code in a session: back-channel logout tells each.
CREATE TABLE session_clients (
	session_id ctext NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	client_id  ctext NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	PRIMARY KEY (session_id, client_id)
);
CREATE INDEX session_clients_by_client ON session_clients(client_id);

-- Back-channel logout (§7): a logout token to deliver, per client, written by
-- the triggers below in the transaction of the change that ends a session,
-- deleted once delivered (or given up). id is the logout token's jti.
CREATE TABLE backchannel_outbox (
	id          ctext PRIMARY KEY,
	client_id   ctext NOT NULL,
	uri         ctext NOT NULL,     -- the client's backchannel_logout_uri, then
	alg         ctext NOT NULL,     -- its id_token_signed_response_alg, then
	subject     ctext NOT NULL,     -- the user's ID
	session_id  ctext,              -- sid; NULL for a BYOU user's logout
	created_at  bigint NOT NULL
);

-- A random jti for a logout token (128 bits; gen_random_uuid is the server's
-- strong random, 122 bits of it).
CREATE FUNCTION edgeauth_random_id() RETURNS ctext LANGUAGE sql VOLATILE
AS $$ SELECT replace(gen_random_uuid()::text, '-', '')::ctext $$;

-- A BYOU user (no session) is told of through every client holding a live
-- refresh token of theirs from outside a session, with no sid.
CREATE FUNCTION edgeauth_byou_logout(p_user ctext, p_at bigint) RETURNS void LANGUAGE sql
AS $$
	INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject, session_id, created_at)
	SELECT edgeauth_random_id(), c.id, c.backchannel_logout_uri,
	       c.id_token_signed_response_alg, p_user, NULL, p_at
	FROM clients c WHERE c.backchannel_logout_uri IS NOT NULL AND c.id IN (
		SELECT client_id FROM refresh_tokens WHERE user_id = p_user
		AND session_id IS NULL AND used_at IS NULL AND revoked_at IS NULL
		AND expires_at > p_at)
$$;

-- A session ends (logout, deactivation, a new password, deletion; expiry is no
-- end): the sign-ins made through it are revoked at once, their access tokens
-- too, and every client that got a code in it and has a back-channel URI is
-- told. Whoever ends a session gets all of this by setting ended_at.
CREATE FUNCTION edgeauth_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO revoked_tokens (jti, expires_at)
		SELECT access_jti, access_exp FROM refresh_tokens WHERE session_id = NEW.id
		ON CONFLICT DO NOTHING;
	UPDATE refresh_tokens SET revoked_at = NEW.ended_at
		WHERE session_id = NEW.id AND revoked_at IS NULL;
	INSERT INTO backchannel_outbox (id, client_id, uri, alg, subject, session_id, created_at)
		SELECT edgeauth_random_id(), c.id, c.backchannel_logout_uri,
		       c.id_token_signed_response_alg, NEW.user_id, NEW.id, NEW.ended_at
		FROM session_clients sc JOIN clients c ON c.id = sc.client_id
		WHERE sc.session_id = NEW.id AND c.backchannel_logout_uri IS NOT NULL;
	RETURN NULL;
END $$;
CREATE TRIGGER sessions_ended AFTER UPDATE OF ended_at ON sessions FOR EACH ROW
WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
EXECUTE FUNCTION edgeauth_session_ended();

CREATE FUNCTION edgeauth_user_deactivated_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE sessions SET ended_at = NEW.updated_at WHERE user_id = NEW.id AND ended_at IS NULL;
	PERFORM edgeauth_byou_logout(NEW.id, NEW.updated_at);
	RETURN NULL;
END $$;
CREATE TRIGGER users_deactivated_end AFTER UPDATE OF is_active ON users FOR EACH ROW
WHEN (OLD.is_active AND NOT NEW.is_active) EXECUTE FUNCTION edgeauth_user_deactivated_end();

CREATE FUNCTION edgeauth_user_password_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE sessions SET ended_at = NEW.updated_at WHERE user_id = NEW.id AND ended_at IS NULL;
	RETURN NULL;
END $$;
CREATE TRIGGER users_password_changed AFTER UPDATE OF password_hash ON users FOR EACH ROW
WHEN (OLD.password_hash IS DISTINCT FROM NEW.password_hash)
EXECUTE FUNCTION edgeauth_user_password_changed();

-- Before the rows go (sessions, codes and refresh tokens cascade with the
-- user), so that the ends above run and the outbox has what it needs.
CREATE FUNCTION edgeauth_user_deleted_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE sessions SET ended_at = edgeauth_now_ms() WHERE user_id = OLD.id AND ended_at IS NULL;
	PERFORM edgeauth_byou_logout(OLD.id, edgeauth_now_ms());
	RETURN OLD;
END $$;
CREATE TRIGGER users_deleted_end BEFORE DELETE ON users FOR EACH ROW
EXECUTE FUNCTION edgeauth_user_deleted_end();
