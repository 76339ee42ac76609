# Core: health, discovery, JWKS, client_credentials and bearer checks.
. "$(dirname "$0")/lib.sh"
start_server

AUTH=none req GET /healthz
check_status "healthz" 200
check_json "healthz body" .status ok
if [ "$BACKEND" = sqlite ]; then   # SQLite's files (PostgreSQL's are the server's own)
	check "new store file mode" "$(stat -c %a "$TMP/edgeauth.db")" 600
	check "new store -wal mode" "$(stat -c %a "$TMP/edgeauth.db-wal")" 600
	check "new store -shm mode" "$(stat -c %a "$TMP/edgeauth.db-shm")" 600
fi
check_header "healthz content type" '^Content-Type: application/json$'

AUTH=none req GET /.well-known/oauth-authorization-server
check_status "metadata" 200
check_json "metadata issuer" .issuer "$BASE"
check_json "metadata token endpoint" .token_endpoint "$BASE/api/v1/tokens"
check_json "metadata jwks" .jwks_uri "$BASE/.well-known/jwks.json"
check_json "metadata pkce" '.code_challenge_methods_supported|join(",")' S256
check_json "metadata auth methods" '.token_endpoint_auth_methods_supported|join(",")' "client_secret_basic,client_secret_post,none"

AUTH=none req GET /.well-known/jwks.json
check_status "jwks" 200
check_json "jwks key" '.keys[0].kty + .keys[0].crv + .keys[0].alg' "ECP-256ES256"

# client_credentials
curl -s -D "$TMP/h" -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" > "$TMP/b"
BODY=$(cat "$TMP/b"); HDRS=$(cat "$TMP/h")
check_json "cc token type" .token_type Bearer
check_json "cc expires_in" .expires_in 900
check_json "cc no refresh token" 'has("refresh_token")' false
check_json "cc scope has users:read" '.scope|split(" ")|index("users:read") != null' true
check_header "cc no-store" '^Cache-Control: no-store'
AT=$(jq -r .access_token "$TMP/b")
HDR=$(echo "$AT" | cut -d. -f1 | tr '_-' '/+' | base64 -d 2>/dev/null)
check "jwt header typ" "$(echo "$HDR}" | grep -o '"typ":"at+jwt"')" '"typ":"at+jwt"'
PAYLOAD=$(echo "$AT" | cut -d. -f2 | tr '_-' '/+'); while [ $(( ${#PAYLOAD} % 4 )) -ne 0 ]; do PAYLOAD="$PAYLOAD="; done
PAYLOAD=$(echo "$PAYLOAD" | base64 -d)
check "jwt sub is client" "$(echo "$PAYLOAD" | jq -r .sub)" "$CLIENT_ID"
check "jwt aud is project" "$(echo "$PAYLOAD" | jq -r .aud)" "$PROJECT_ID"
check "jwt iss" "$(echo "$PAYLOAD" | jq -r .iss)" "$BASE"

# URL-encoded Basic credentials (RFC 6749 §2.3.1) and a charset on the form type
BASIC=$(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | sed 's/-/%2D/g' | base64 -w0)
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Basic $BASIC" \
	-H 'Content-Type: application/x-www-form-urlencoded; charset=UTF-8' \
	--data grant_type=client_credentials "$BASE/api/v1/tokens")
check "url-encoded basic" "$STATUS" 200

tok() { # tok BASIC_HEADER_OR_EMPTY FORM [content-type]
	local args=(-s -D "$TMP/h" -o "$TMP/b" -w '%{http_code}' -H "Content-Type: ${3:-application/x-www-form-urlencoded}")
	[ -n "$1" ] && args+=(-H "Authorization: $1")
	STATUS=$(curl "${args[@]}" --data-binary "$2" "$BASE/api/v1/tokens"); BODY=$(cat "$TMP/b"); HDRS=$(cat "$TMP/h")
}
GOOD="Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)"
tok "$GOOD" "grant_type=client_credentials&grant_type=client_credentials"
check_err "grant_type twice" 400 invalid_params
tok "$GOOD" ""
check_err "no grant_type" 400 invalid_params
tok "$GOOD" "grant_type=password"
check_err "unknown grant" 400 invalid_params
tok "$GOOD" '{"grant_type":"client_credentials"}' application/json
check_err "json content type" 400 invalid_params
tok "" "grant_type=client_credentials"
check_err "no basic header" 400 invalid_params
check_header "no WWW-Authenticate on 400" '^HTTP' # sanity
if printf '%s' "$HDRS" | grep -qi '^WWW-Authenticate'; then fail "400 carries WWW-Authenticate"; else pass; fi
tok "Basic !!!" "grant_type=client_credentials"
check_err "malformed basic" 400 invalid_params
tok "Basic $(printf '%s:wrong' "$CLIENT_ID" | base64 -w0)" "grant_type=client_credentials"
check_err "wrong secret" 401 invalid_client_credentials
check_header "401 basic challenge" '^WWW-Authenticate: Basic'
tok "Basic $(printf 'nobody:%s' "$CLIENT_SECRET" | base64 -w0)" "grant_type=client_credentials"
check_err "unknown client" 401 invalid_client_credentials
tok "$GOOD" "grant_type=client_credentials&x=%zz"
check_err "bad percent escape" 400 invalid_params

# bearer checks
AUTH=none req GET "$P/roles"
check_err "no token" 401 invalid_authorization_token
check_header "no token challenge" '^WWW-Authenticate: Bearer$'
AUTH="Bearer garbage" req GET "$P/roles"
check_err "garbage token" 401 invalid_authorization_token
check_header "invalid_token challenge" '^WWW-Authenticate: Bearer error="invalid_token"'
AUTH="Bearer ${TOKEN}x" req GET "$P/roles"
check_err "tampered token" 401 invalid_authorization_token
req GET "/api/v1/projects/nope/roles"
check_err "unknown project" 404 project_not_found
AUTH=none req GET "/api/v1/projects/nope/roles"
check_err "no token beats unknown project" 401 invalid_authorization_token

# a token of another project is 403 there
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTHER_PID=$(echo "$OTHER" | jq -r .project_id)
req GET "/api/v1/projects/$OTHER_PID/roles"
check_err "other project's token" 403 insufficient_permission
check_header "403 challenge" '^WWW-Authenticate: Bearer error="insufficient_scope"'

# deactivating the project invalidates its tokens and blocks the grant
"$EDGEAUTH" -c "$CONF" project deactivate "$PROJECT_ID"
check "deactivate exit" $? 0
# on PostgreSQL the server's caches hear of the CLI's write by its
# notification (docs/operations.md §"A fleet on PostgreSQL"), which may come
# after the next request on a busy machine: that request waits for it
[ "$BACKEND" = postgres ] && eventually 60 eval 'req GET "$P/roles"; [ "$STATUS" = 401 ]'
req GET "$P/roles"
check_err "token of inactive project" 401 invalid_authorization_token
tok "$GOOD" "grant_type=client_credentials"
check_err "grant on inactive project" 400 project_not_active
"$EDGEAUTH" -c "$CONF" project activate "$PROJECT_ID"
[ "$BACKEND" = postgres ] && eventually 60 eval 'tok "$GOOD" grant_type=client_credentials; [ "$STATUS" = 200 ]'
tok "$GOOD" "grant_type=client_credentials"
check_status "grant after reactivation" 200
"$EDGEAUTH" -c "$CONF" project activate nope 2>/dev/null
check "activate unknown project fails" $? 1

# CLI list
LIST=$("$EDGEAUTH" -c "$CONF" project list)
check "project list count" "$(echo "$LIST" | jq length)" 2
check "project list names" "$(echo "$LIST" | jq -r '[.[].name]|sort|join(",")')" "default,other"

# routing
AUTH=none req GET /nope
check_err "unknown route" 404 not_found
AUTH=none req DELETE /healthz
check_err "method not allowed" 405 method_not_allowed
check_header "allow header" '^Allow: GET'
AUTH=none req OPTIONS /api/v1/tokens -H 'Origin: https://app.example' -H 'Access-Control-Request-Method: POST'
check_status "token preflight" 204
check_header "token preflight origin" '^Access-Control-Allow-Origin: \*'

# bodies over max_body_bytes are refused, never read whole
head -c 70000 /dev/zero | tr '\0' a > "$TMP/big"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
	--data-binary @"$TMP/big" "$BASE$P/roles")
check "oversized body" "$STATUS" 413
AUTH=none req GET /healthz
check_status "still serving after an oversized body" 200

# header limit from the config
BIG=$(head -c 20000 /dev/zero | tr '\0' h)
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $BIG" "$BASE/healthz")
check "20 KB of headers over the default 16 KiB" "$STATUS" 400
stop_server
start_server server.max_header_bytes=32768
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $BIG" "$BASE/healthz")
check "20 KB of headers under max_header_bytes = 32768" "$STATUS" 200

# CORS on the management API: the configured origins only, on errors as on answers
stop_server

# The store holds password and token hashes: its files are created 0600, and
# a store file others may read stops the start (as the signing key does).
if [ "$BACKEND" = sqlite ]; then
	check "store file mode" "$(stat -c %a "$TMP/edgeauth.db")" 600
	chmod 644 "$TMP/edgeauth.db"
	timeout 5 "$EDGEAUTH" -c "$CONF" serve > /dev/null 2> "$TMP/refused.log"
	check "a readable store is refused" "$?" 1
	check "the refusal names the file" \
		"$(grep -c "store file $TMP/edgeauth.db is accessible to others (mode 644)" "$TMP/refused.log")" 1
	timeout 5 "$EDGEAUTH" -c "$CONF" project list > /dev/null 2>&1
	check "the CLI refuses it too" "$?" 1
	chmod 600 "$TMP/edgeauth.db"
fi
start_server "server.cors_origins = https://admin.example https://ops.example"
NEW=$("$EDGEAUTH" -c "$CONF" project create --name cors)
PROJECT_ID=$(jq -r .project_id <<<"$NEW"); CLIENT_ID=$(jq -r .client_id <<<"$NEW")
CLIENT_SECRET=$(jq -r .client_secret <<<"$NEW")
TOKEN=$(admin_token); P="/api/v1/projects/$PROJECT_ID"
no_cors_header() {
	if printf '%s' "$HDRS" | grep -qi '^Access-Control-'; then fail "$1: a CORS header"; else pass; fi
}
AUTH=none req OPTIONS "$P/users" -H 'Origin: https://ops.example' -H 'Access-Control-Request-Method: GET'
check_status "management preflight" 204
check_header "preflight: the origin echoed" '^Access-Control-Allow-Origin: https://ops\.example$'
check_header "preflight: the path's methods" '^Access-Control-Allow-Methods: POST, GET, OPTIONS$'
check_header "preflight: Authorization allowed" '^Access-Control-Allow-Headers: Authorization, Content-Type$'
req GET "$P/users?page_size=1" -H 'Origin: https://admin.example'
check_status "list from a configured origin" 200
check_header "list: the origin echoed" '^Access-Control-Allow-Origin: https://admin\.example$'
check_header "list: varies by origin" '^Vary: Origin$'
req GET "$P/users?page_size=1" -H 'Origin: https://evil.example'
check_status "list from another origin (the browser, not the server, refuses it)" 200
no_cors_header "list from another origin"
AUTH=none req OPTIONS "$P/users" -H 'Origin: https://evil.example' -H 'Access-Control-Request-Method: GET'
no_cors_header "preflight from another origin"
AUTH=none req GET "$P/users" -H 'Origin: https://admin.example'
check_err "401 from a configured origin" 401 invalid_authorization_token
check_header "401: the origin echoed" '^Access-Control-Allow-Origin: https://admin\.example$'
check_header "401: its challenge readable" '^Access-Control-Expose-Headers: WWW-Authenticate$'
AUTH=none req GET /api/v1/nope -H 'Origin: https://admin.example'
check_err "404 from a configured origin" 404 not_found
check_header "404: the origin echoed" '^Access-Control-Allow-Origin: https://admin\.example$'
req DELETE "$P/users" -H 'Origin: https://admin.example'
check_err "405 from a configured origin" 405 method_not_allowed
check_header "405: the origin echoed" '^Access-Control-Allow-Origin: https://admin\.example$'
req PUT "$P/users/%zz" '{}' -H 'Origin: https://admin.example'
check_err "malformed path from a configured origin" 400 invalid_params
check_header "malformed path: the origin echoed" '^Access-Control-Allow-Origin: https://admin\.example$'
AUTH=none req DELETE /api/v1/tokens -H 'Origin: https://evil.example'
check_err "405 on a public endpoint" 405 method_not_allowed
check_header "public 405: any origin" '^Access-Control-Allow-Origin: \*$'

finish
