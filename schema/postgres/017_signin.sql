-- edgeauth's PostgreSQL schema, version 17 (PostgreSQL only): the writes of
-- sign-in and of the token lifecycle (src/store/store_sessions.c,
-- src/store/store_tokens.c; src/store/pg/pg_tokens.c, src/store/pg/pg_sessions.c), each one statement
-- that checks, writes and answers, and never raises on an expected outcome
-- (a lost race, a session already ended).
--
-- Single use across nodes: a use is one UPDATE ... WHERE used_at IS NULL
-- (revoked_at IS NULL) on the row itself. Of two nodes using one code or
-- refresh token at once, the second's UPDATE waits for the first's commit,
-- then finds the row used and changes nothing: exactly one wins. Times
-- compared across nodes are the database's (edgeauth_now_ms).

-- store_code_insert: a new code, after no escalation (p_grant_scope, a BYOU
-- code's issuer's scope, must carry what the user holds; NULL: no check);
-- 'not_found' when its user is gone (or its client or project).
CREATE FUNCTION edgeauth_code_insert(p_hash ctext, p_family ctext, p_project ctext,
	p_client ctext, p_user ctext, p_redirect ctext, p_challenge ctext, p_expires_at bigint,
	p_scope ctext, p_nonce ctext, p_auth_time bigint, p_session ctext, p_grant_scope ctext)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_check_holder(p_grant_scope, 'user', p_user);
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO auth_codes (hash, family_id, project_id, client_id, user_id, redirect_uri,
		code_challenge, created_at, expires_at, scope, nonce, auth_time, session_id)
	SELECT p_hash, p_family, p_project, p_client, p_user, p_redirect, p_challenge,
		edgeauth_now_ms(), p_expires_at, p_scope, p_nonce, p_auth_time, p_session
	WHERE EXISTS (SELECT 1 FROM users WHERE id = p_user)
	AND EXISTS (SELECT 1 FROM clients WHERE id = p_client)
	AND EXISTS (SELECT 1 FROM projects WHERE id = p_project);
	IF NOT FOUND THEN
		RETURN edgeauth_failed('not_found');
	END IF;
	RETURN edgeauth_done(NULL);
END $$;

-- The refresh token a won use issues (struct new_refresh).
CREATE FUNCTION edgeauth_refresh_insert(p_hash ctext, p_family ctext, p_project ctext,
	p_client ctext, p_user ctext, p_access_jti ctext, p_access_exp bigint, p_expires_at bigint,
	p_scope ctext, p_auth_time bigint, p_session ctext)
RETURNS void LANGUAGE sql AS $$
	INSERT INTO refresh_tokens (hash, family_id, project_id, client_id, user_id, access_jti,
		access_exp, created_at, expires_at, scope, auth_time, session_id)
	VALUES (p_hash, p_family, p_project, p_client, p_user, p_access_jti, p_access_exp,
		edgeauth_now_ms(), p_expires_at, p_scope, p_auth_time, p_session)
$$;

-- store_code_redeem (p_refresh false) and store_refresh_rotate (true): marks
-- the code, or the refresh token, used unless a use (or for a refresh token,
-- a revocation) came first, and then stores the successor p_hash (a refresh
-- token's row records it, for the refresh grace). Whether this use won.
CREATE FUNCTION edgeauth_use_once(p_refresh boolean, p_used ctext, p_hash ctext,
	p_family ctext, p_project ctext, p_client ctext, p_user ctext, p_access_jti ctext,
	p_access_exp bigint, p_expires_at bigint, p_scope ctext, p_auth_time bigint,
	p_session ctext)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF p_refresh THEN
		UPDATE refresh_tokens SET used_at = edgeauth_now_ms(), successor_hash = p_hash
		WHERE hash = p_used AND used_at IS NULL AND revoked_at IS NULL;
	ELSE
		UPDATE auth_codes SET used_at = edgeauth_now_ms() WHERE hash = p_used AND used_at IS NULL;
	END IF;
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	PERFORM edgeauth_refresh_insert(p_hash, p_family, p_project, p_client, p_user,
		p_access_jti, p_access_exp, p_expires_at, p_scope, p_auth_time, p_session);
	RETURN true;
END $$;

-- store_refresh_regrace: p_used was rotated at most p_grace_ms ago (the
-- database's clock) and its successor is still unused and not revoked. Then
-- the successor is revoked (the single use, on its row: a use of it and this
-- repeat race for the same row), its access token too, and the new token is
-- stored. p_used's successor stays the revoked one, so a second repeat does
-- not win. Whether this repeat won.
CREATE FUNCTION edgeauth_refresh_regrace(p_used ctext, p_grace_ms bigint, p_hash ctext,
	p_family ctext, p_project ctext, p_client ctext, p_user ctext, p_access_jti ctext,
	p_access_exp bigint, p_expires_at bigint, p_scope ctext, p_auth_time bigint,
	p_session ctext)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
	s refresh_tokens;
BEGIN
	UPDATE refresh_tokens SET revoked_at = now_ms
	WHERE hash = (SELECT successor_hash FROM refresh_tokens WHERE hash = p_used
	              AND used_at >= now_ms - p_grace_ms AND revoked_at IS NULL)
	AND used_at IS NULL AND revoked_at IS NULL
	RETURNING * INTO s;
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	INSERT INTO revoked_tokens (jti, expires_at) VALUES (s.access_jti, s.access_exp)
	ON CONFLICT DO NOTHING;
	PERFORM edgeauth_refresh_insert(p_hash, p_family, p_project, p_client, p_user,
		p_access_jti, p_access_exp, p_expires_at, p_scope, p_auth_time, p_session);
	RETURN true;
END $$;

-- store_family_revoke: every refresh token of the sign-in, and the access
-- tokens issued with them; records p_event (the reuse detection, or the
-- revocation) and answers its record.
CREATE FUNCTION edgeauth_family_revoke(p_family ctext, p_event json) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO revoked_tokens (jti, expires_at)
	SELECT access_jti, access_exp FROM refresh_tokens WHERE family_id = p_family
	ON CONFLICT DO NOTHING;
	UPDATE refresh_tokens SET revoked_at = edgeauth_now_ms()
	WHERE family_id = p_family AND revoked_at IS NULL;
	RETURN edgeauth_event(p_event);
END $$;

-- store_access_revoke: one access token until p_exp_s; records p_event.
CREATE FUNCTION edgeauth_access_revoke(p_jti ctext, p_exp_s bigint, p_event json) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO revoked_tokens (jti, expires_at) VALUES (p_jti, p_exp_s) ON CONFLICT DO NOTHING;
	RETURN edgeauth_event(p_event);
END $$;

-- ---- sessions (docs/signin.md §"Sessions") ----

-- Records that p_client got a code in the session p_session, if it has not
-- ended (a client that got a code after the end would never be told) and the
-- client still exists.
CREATE FUNCTION edgeauth_session_add_client(p_session ctext, p_client ctext) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO session_clients (session_id, client_id)
	SELECT s.id, c.id FROM sessions s, clients c
	WHERE s.id = p_session AND s.ended_at IS NULL AND c.id = p_client
	ON CONFLICT DO NOTHING
$$;

-- store_session_start: when p_old_hash names a live session of the project,
-- it goes on under p_secret_hash if it is p_user's, and ends if it is another
-- user's; unless it went on, the session p_id is made. auth_time and the
-- expiry are the node's (the password check's time, which the code carries
-- too); whether a session is live is asked of the database's clock.
-- Answers the id of the session now behind p_secret_hash and the record of
-- p_event (the sign-in's).
CREATE FUNCTION edgeauth_session_start(p_id ctext, p_secret_hash ctext, p_old_hash ctext,
	p_project ctext, p_user ctext, p_client ctext, p_auth_time bigint, p_expires_at bigint,
	p_event json)
RETURNS TABLE (sid ctext, event text) LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
	prev sessions;
BEGIN
	-- the user may have gone since the password check: then no row, and
	-- nothing done (locked, so that a delete cannot commit before the insert)
	PERFORM 1 FROM users WHERE id = p_user AND is_active FOR KEY SHARE;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	IF p_old_hash IS NOT NULL THEN
		SELECT * INTO prev FROM sessions WHERE secret_hash = p_old_hash AND project_id = p_project
		AND ended_at IS NULL AND expires_at > now_ms FOR UPDATE;
	END IF;
	IF prev.id IS NOT NULL AND prev.user_id = p_user THEN
		UPDATE sessions SET secret_hash = p_secret_hash, auth_time = p_auth_time,
			expires_at = p_expires_at WHERE id = prev.id;
		sid := prev.id;
	ELSE
		IF prev.id IS NOT NULL THEN
			UPDATE sessions SET ended_at = now_ms WHERE id = prev.id AND ended_at IS NULL;
		END IF;
		INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at,
			expires_at)
		VALUES (p_id, p_secret_hash, p_project, p_user, p_auth_time, p_auth_time,
			p_expires_at);
		sid := p_id;
	END IF;
	PERFORM edgeauth_session_add_client(sid, p_client);
	event := edgeauth_event(p_event);
	RETURN NEXT;
END $$;

-- store_session_end: ends the session (schema/postgres/008's triggers revoke
-- its sign-ins and queue its back-channel logouts) if it has not ended;
-- p_event is recorded only when it ended. Answers the event's record.
CREATE FUNCTION edgeauth_session_end(p_id ctext, p_project ctext, p_user ctext, p_event json)
RETURNS TABLE (ended boolean, event text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE sessions SET ended_at = edgeauth_now_ms() WHERE id = p_id AND project_id = p_project
	AND (p_user IS NULL OR user_id = p_user) AND ended_at IS NULL;
	IF NOT FOUND THEN
		RETURN QUERY SELECT false, NULL::text;   -- nothing ended: nothing to record
		RETURN;
	END IF;
	RETURN QUERY SELECT true, edgeauth_event(p_event);
END $$;

-- store_invalidate_all (the CLI, after a restore of a dump): every token,
-- code and session issued before now is dead; records p_event.
CREATE FUNCTION edgeauth_invalidate_all(p_event json) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	now_ms bigint := edgeauth_now_ms();
BEGIN
	UPDATE projects SET tokens_valid_after = greatest(coalesce(tokens_valid_after, 0), now_ms);
	UPDATE sessions SET ended_at = now_ms WHERE ended_at IS NULL;
	RETURN edgeauth_event(p_event);
END $$;
