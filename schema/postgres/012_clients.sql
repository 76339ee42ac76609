-- edgeauth's PostgreSQL schema, version 12 (PostgreSQL only): the clients
-- area (src/store/store_clients.c, src/store/pg/pg_clients.c): the record's one definition
-- and the writes, each one statement that checks, writes and answers the
-- record (edgeauth_outcome, version 10).

-- Where a client's tokens may go and how it proves who it is (versions 1, 8):
-- the columns' CHECK constraints become domains of the same checks, which
-- PostgreSQL keeps in its type cache; a table's CHECK constraints it builds
-- from the catalog again on every INSERT and UPDATE, 9% of a create
-- (callgrind).
CREATE DOMAIN edgeauth_uri_list AS jsonb CHECK (jsonb_typeof(VALUE) = 'array');
CREATE DOMAIN edgeauth_auth_method AS ctext
	CHECK (VALUE IN ('none', 'client_secret_basic', 'client_secret_post'));
CREATE DOMAIN edgeauth_id_token_alg AS ctext CHECK (VALUE IN ('RS256', 'ES256'));
ALTER TABLE clients
	DROP CONSTRAINT clients_redirect_uris_check,
	DROP CONSTRAINT clients_post_logout_redirect_uris_check,
	DROP CONSTRAINT clients_token_endpoint_auth_method_check,
	DROP CONSTRAINT clients_id_token_signed_response_alg_check,
	ALTER COLUMN redirect_uris TYPE edgeauth_uri_list,
	ALTER COLUMN post_logout_redirect_uris TYPE edgeauth_uri_list,
	ALTER COLUMN token_endpoint_auth_method TYPE edgeauth_auth_method,
	ALTER COLUMN id_token_signed_response_alg TYPE edgeauth_id_token_alg;

-- The client's permission IDs, sorted (a JSON array), as one row: a
-- lateral join of the client's row (FROM clients c,
-- edgeauth_client_permissions_of(c.id) p), which the planner inlines, so
-- that a list page aggregates its rows' permissions in one statement instead
-- of calling a function for each row.
CREATE FUNCTION edgeauth_client_permissions_of(p_id ctext) RETURNS TABLE (ids json)
LANGUAGE sql STABLE AS $$
	SELECT coalesce(json_agg(permission_id ORDER BY permission_id), '[]')
	FROM client_permissions WHERE client_id = p_id
$$;

-- The record (docs/api.md §"Records") of the clients row c with its permission IDs
-- (edgeauth_client_permissions_of): the keys, their order and the
-- timestamps of CLIENT_JSON in src/store/store_clients.c. One expression, so that
-- the planner inlines it.
CREATE FUNCTION edgeauth_client_json(c clients, p_permission_ids json) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', c.id, 'name', c.name, 'description', c.description,
		'is_active', c.is_active,
		'permission_ids', p_permission_ids,
		'redirect_uris', c.redirect_uris,
		'post_logout_redirect_uris', c.post_logout_redirect_uris,
		'backchannel_logout_uri', c.backchannel_logout_uri,
		'token_endpoint_auth_method', c.token_endpoint_auth_method,
		'id_token_signed_response_alg', c.id_token_signed_response_alg,
		'created_at', edgeauth_iso_time(c.created_at),
		'updated_at', edgeauth_iso_time(c.updated_at))
$$;

-- The record of the client p_id, as text (NULL: none), as a write reads it
-- back. plpgsql, whose plans are kept for the session: as a SQL function with
-- a FROM it was parsed and planned again on every call, which cost a write
-- more than its own writes.
CREATE FUNCTION edgeauth_client_record(p_id ctext) RETURNS text LANGUAGE plpgsql STABLE
AS $$
BEGIN
	RETURN (SELECT edgeauth_client_json(c, p.ids)::text
	        FROM clients c, edgeauth_client_permissions_of(c.id) p WHERE c.id = p_id);
END $$;

-- Each project's number of clients, so that a list without filters answers
-- its total without counting rows, which cost more than the page's records.
-- Kept by a trigger, so that every writer keeps it (clients never move
-- between projects). Spread over rows (slot: the writing session's, of 64),
-- so that creates on several connections or nodes do not queue on one row's
-- lock (schema/postgres/004's concern): the number is their sum.
CREATE TABLE client_counts (
	project_id ctext NOT NULL,
	slot       integer NOT NULL,
	n          bigint NOT NULL,
	PRIMARY KEY (project_id, slot)
);
INSERT INTO client_counts SELECT project_id, 0, count(*) FROM clients GROUP BY project_id;

CREATE FUNCTION edgeauth_client_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO client_counts AS k (project_id, slot, n)
	VALUES (CASE TG_OP WHEN 'INSERT' THEN NEW.project_id ELSE OLD.project_id END,
	        pg_backend_pid() % 64, CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END)
	ON CONFLICT (project_id, slot) DO UPDATE SET n = k.n + excluded.n;
	RETURN NULL;
END $$;
CREATE TRIGGER clients_counted AFTER INSERT OR DELETE ON clients
FOR EACH ROW EXECUTE FUNCTION edgeauth_client_counted();

-- The clients of p_project that a list keeps (docs/api.md §"Conventions"): p_search, a
-- case-insensitive substring of the name (PG_SQL_CONTAINS in
-- include/store/pg/store_pg.h), and p_active; NULL keeps all. Inlined where it is used.
CREATE FUNCTION edgeauth_client_matches(p_project ctext, p_search ctext, p_active boolean)
RETURNS SETOF clients LANGUAGE sql STABLE AS $$
	SELECT * FROM clients WHERE project_id = p_project
	AND (p_search IS NULL OR strpos(lower(name), lower(p_search)) > 0)
	AND (p_active IS NULL OR is_active = p_active)
$$;

-- A page of the list (docs/api.md §"Lists"): the number of all matches and the
-- records of those at p_offset, p_limit of them, in p_order (a sort_by of
-- src/api/api_clients.c, with ' desc' for descending); ties broken by id in the
-- sort's direction, text sorted on lower() (docs/operations.md §"A fleet on PostgreSQL"). plpgsql with
-- generic plans, kept for the session: as a prepared statement the page was
-- planned again for each call's values (PostgreSQL judged that cheaper),
-- which cost more than the page itself (docs/BENCHMARKS.md).
CREATE FUNCTION edgeauth_client_list(p_project ctext, p_search ctext, p_active boolean,
	p_order ctext, p_limit bigint, p_offset bigint, OUT total bigint, OUT records json)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
	ids ctext[];
BEGIN
	IF p_search IS NULL AND p_active IS NULL THEN
		total := (SELECT coalesce(sum(n), 0) FROM client_counts WHERE project_id = p_project);
	ELSE
		total := (SELECT count(*) FROM edgeauth_client_matches(p_project, p_search, p_active));
	END IF;
	CASE p_order
	WHEN 'created_at' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY created_at, id LIMIT p_limit OFFSET p_offset);
	WHEN 'created_at desc' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY created_at DESC, id DESC LIMIT p_limit OFFSET p_offset);
	WHEN 'updated_at' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY updated_at, id LIMIT p_limit OFFSET p_offset);
	WHEN 'updated_at desc' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY updated_at DESC, id DESC LIMIT p_limit OFFSET p_offset);
	WHEN 'name' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY lower(name), id LIMIT p_limit OFFSET p_offset);
	WHEN 'name desc' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY lower(name) DESC, id DESC LIMIT p_limit OFFSET p_offset);
	WHEN 'is_active' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY is_active, id LIMIT p_limit OFFSET p_offset);
	WHEN 'is_active desc' THEN ids := ARRAY(SELECT id FROM edgeauth_client_matches(p_project,
		p_search, p_active) ORDER BY is_active DESC, id DESC LIMIT p_limit OFFSET p_offset);
	END CASE;
	records := (SELECT coalesce(json_agg((SELECT edgeauth_client_json(c, p.ids)
	                                      FROM clients c, edgeauth_client_permissions_of(c.id) p
	                                      WHERE c.id = o.id) ORDER BY o.n), '[]')
	            FROM unnest(ids) WITH ORDINALITY AS o(id, n));
END $$;

-- docs/signin.md §"Who may change where tokens go": whether a write sets (create: given a value other than the
-- default) or changes (update: other than the stored one) where the client's
-- tokens go; each p_set_* says whether the write gives that field, a NULL
-- p_method keeps it.
CREATE FUNCTION edgeauth_client_routing_changes(
	c_redirect jsonb, c_post_logout jsonb, c_backchannel ctext, c_method ctext,
	p_set_redirect boolean, p_redirect jsonb, p_set_post_logout boolean, p_post_logout jsonb,
	p_set_backchannel boolean, p_backchannel ctext, p_method ctext)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT (p_set_redirect AND p_redirect IS DISTINCT FROM c_redirect)
	    OR (p_set_post_logout AND p_post_logout IS DISTINCT FROM c_post_logout)
	    OR (p_set_backchannel AND p_backchannel IS DISTINCT FROM c_backchannel)
	    OR (p_method IS NOT NULL AND p_method IS DISTINCT FROM c_method)
$$;

-- Every write takes p_event, the audit event it records when it has written
-- (pg_event_json; NULL: none), and answers its record in the outcome.

-- Creates an active client with its permissions: the order of docs/api.md §"Which error wins",
-- some_permissions_not_found, then insufficient_permission (what it would
-- grant, then where its tokens go).
CREATE FUNCTION edgeauth_client_create(p_project ctext, p_id ctext, p_name ctext,
	p_description ctext, p_secret_hash ctext, p_permission_ids jsonb, p_redirect jsonb,
	p_post_logout jsonb, p_backchannel ctext, p_method ctext, p_alg ctext, p_scope ctext,
	p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
	now_ms bigint := edgeauth_now_ms();
	c clients;
	perms json := '[]';
BEGIN
	IF cardinality(ids) > 0 THEN   -- none: nothing to lock or check
		PERFORM edgeauth_permissions_lock(ids);
		r := edgeauth_check_ids(p_project, p_scope, ids);
	END IF;
	IF r.status IS NULL AND edgeauth_client_routing_changes('[]', '[]', NULL, 'none',
	   true, p_redirect, true, p_post_logout, true, p_backchannel, p_method) THEN
		r := edgeauth_check_admin(p_project, p_scope);
	END IF;
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	INSERT INTO clients (id, project_id, name, description, secret_hash, is_active,
	                     redirect_uris, created_at, updated_at, post_logout_redirect_uris,
	                     backchannel_logout_uri, token_endpoint_auth_method,
	                     id_token_signed_response_alg)
	VALUES (p_id, p_project, p_name, p_description, p_secret_hash, true, p_redirect, now_ms,
	        now_ms, p_post_logout, p_backchannel, p_method, p_alg)
	RETURNING * INTO c;
	-- an INSERT of no rows would still fire client_permissions' trigger
	-- (version 9), whose notification empties every node's caches
	IF cardinality(ids) > 0 THEN
		INSERT INTO client_permissions (client_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
		perms := (SELECT p.ids FROM edgeauth_client_permissions_of(p_id) p);
	END IF;
	-- the record of the row in hand (reading it back cost a create 8% more)
	RETURN edgeauth_done_event(edgeauth_client_json(c, perms)::text,
	                           edgeauth_event(p_event));
END $$;

-- Updates the client (PUT: a p_set_* false keeps that field, a NULL method
-- keeps it): client_not_found, some_permissions_not_found, then
-- insufficient_permission for the new set, what the client holds, and where
-- its tokens go (docs/api.md §"No escalation"; docs/signin.md §"Who may change where tokens go").
CREATE FUNCTION edgeauth_client_update(p_project ctext, p_id ctext, p_name ctext,
	p_is_active boolean, p_set_description boolean, p_description ctext,
	p_set_permissions boolean, p_permission_ids jsonb, p_set_redirect boolean, p_redirect jsonb,
	p_set_post_logout boolean, p_post_logout jsonb, p_set_backchannel boolean,
	p_backchannel ctext, p_method ctext, p_alg ctext, p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	c clients;
	ids ctext[] := edgeauth_ids(p_permission_ids);
	r edgeauth_refusal;
BEGIN
	SELECT * INTO c FROM clients WHERE id = p_id AND project_id = p_project FOR UPDATE;
	IF NOT FOUND THEN
		RETURN edgeauth_failed('not_found');
	END IF;
	IF p_set_permissions THEN
		PERFORM edgeauth_permissions_lock(ids);
		r := edgeauth_check_ids(p_project, p_scope, ids);
	END IF;
	IF r.status IS NULL THEN
		r := edgeauth_check_holder(p_scope, 'client', p_id);
	END IF;
	IF r.status IS NULL AND edgeauth_client_routing_changes(c.redirect_uris,
	   c.post_logout_redirect_uris, c.backchannel_logout_uri, c.token_endpoint_auth_method,
	   p_set_redirect, p_redirect, p_set_post_logout, p_post_logout, p_set_backchannel,
	   p_backchannel, p_method) THEN
		r := edgeauth_check_admin(p_project, p_scope);
	END IF;
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	UPDATE clients SET name = p_name, is_active = p_is_active,
		description = CASE WHEN p_set_description THEN p_description ELSE description END,
		redirect_uris = CASE WHEN p_set_redirect THEN p_redirect ELSE redirect_uris END,
		post_logout_redirect_uris = CASE WHEN p_set_post_logout THEN p_post_logout
		                                 ELSE post_logout_redirect_uris END,
		backchannel_logout_uri = CASE WHEN p_set_backchannel THEN p_backchannel
		                              ELSE backchannel_logout_uri END,
		token_endpoint_auth_method = coalesce(p_method, token_endpoint_auth_method),
		id_token_signed_response_alg = coalesce(p_alg, id_token_signed_response_alg),
		updated_at = edgeauth_now_ms()
	WHERE id = p_id;
	IF p_set_permissions THEN
		DELETE FROM client_permissions WHERE client_id = p_id;
		INSERT INTO client_permissions (client_id, permission_id)
		SELECT p_id, unnest(ids) ON CONFLICT DO NOTHING;
	END IF;
	RETURN edgeauth_done_event(edgeauth_client_record(p_id), edgeauth_event(p_event));
END $$;

-- Whether the client may be written by a caller with scope: client_not_found,
-- then what it holds (insufficient_permission); locks its row.
CREATE FUNCTION edgeauth_client_writable(p_project ctext, p_id ctext, p_scope ctext)
RETURNS edgeauth_refusal LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM clients WHERE id = p_id AND project_id = p_project FOR UPDATE;
	IF NOT FOUND THEN
		RETURN ('not_found', NULL)::edgeauth_refusal;
	END IF;
	RETURN edgeauth_check_holder(p_scope, 'client', p_id);
END $$;

-- A new secret hash: client_not_found, insufficient_permission (as an update).
CREATE FUNCTION edgeauth_client_set_secret(p_project ctext, p_id ctext, p_secret_hash ctext,
	p_scope ctext, p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_client_writable(p_project, p_id, p_scope);
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	UPDATE clients SET secret_hash = p_secret_hash, updated_at = edgeauth_now_ms() WHERE id = p_id;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;

-- Deletes the client (docs/api.md §"Read one and delete"): client_not_found, then
-- insufficient_permission; its codes and refresh tokens cascade, its access
-- tokens fail the bearer check, which finds no client.
CREATE FUNCTION edgeauth_client_delete(p_project ctext, p_id ctext, p_scope ctext,
	p_event json)
RETURNS edgeauth_outcome LANGUAGE plpgsql AS $$
DECLARE
	r edgeauth_refusal := edgeauth_client_writable(p_project, p_id, p_scope);
BEGIN
	IF r.status IS NOT NULL THEN
		RETURN edgeauth_refused(r);
	END IF;
	DELETE FROM clients WHERE id = p_id;
	RETURN edgeauth_done_event(NULL, edgeauth_event(p_event));
END $$;
