# A standard, strict OAuth 2.0 client library (oauth4webapi, pinned in
# test/oauth-client/package-lock.json) works against edgeauth unchanged:
# discovery, authorization code + PKCE with RFC 9207 iss, refresh with
# rotation, client_credentials with client_secret_basic, RFC 7009 revocation
# and RFC 9068 access-token validation. Needs node and npm (scripts/install-deps).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
CLIENT_DIR=$ROOT/test/oauth-client
STEPS="discovery authorization_code jwt_access_token refresh refreshed_jwt_access_token
client_credentials revocation revoked_refresh_rejected"

if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
	fail "node and npm are needed for this test (run scripts/install-deps)"
	finish; exit 1
fi
# oauth4webapi's baseline is Node.js 20 (it needs the Web Crypto global)
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
	fail "this test needs Node.js 20 or newer, found $(node --version)"
	finish; exit 1
fi
if [ ! -d "$CLIENT_DIR/node_modules/oauth4webapi" ]; then
	if ! (cd "$CLIENT_DIR" && npm ci --silent --no-audit --no-fund > "$TMP/npm.log" 2>&1); then
		cat "$TMP/npm.log" >&2
		fail "npm ci in test/oauth-client failed"
		finish; exit 1
	fi
fi

start_server

# --- set-up: a role with users:read, a user, a public and a confidential client ---
req GET "$P/resources?page_size=100"
USERS_READ=$(printf '%s' "$BODY" | jq -r '.data[]|select(.code=="users")|.permissions[]|select(.code=="read")|.id')
req POST "$P/roles" "{\"code\":\"reader\",\"name\":\"Reader\",\"permission_ids\":[\"$USERS_READ\"]}"
check_status "create role" 201
ROLE=$(printf '%s' "$BODY" | jq -r .id)
EMAIL="lib-user@example.com"
PASSWORD='correct horse battery stäple'
req POST "$P/users" "$(jq -cn --arg e "$EMAIL" --arg p "$PASSWORD" --arg r "$ROLE" '{display_name:"Lib User",email:$e,password:$p,role_id:$r}')"
check_status "create user" 201
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "$(jq -cn --arg a "$REDIRECT" '{name:"spa",redirect_uris:[$a]}')"
check_status "create public client" 201
PUBLIC=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/clients" '{"name":"backend","redirect_uris":[]}'
check_status "create confidential client" 201
CONF_ID=$(printf '%s' "$BODY" | jq -r .id)
CONF_SECRET=$(printf '%s' "$BODY" | jq -r .client_secret)

# --- the library's flows ---
OUT=$(cd "$CLIENT_DIR" && BASE=$BASE PUBLIC_CLIENT_ID=$PUBLIC REDIRECT_URI=$REDIRECT \
	CONF_CLIENT_ID=$CONF_ID CONF_CLIENT_SECRET=$CONF_SECRET USER_EMAIL=$EMAIL \
	USER_PASSWORD=$PASSWORD PROJECT_ID=$PROJECT_ID EXPECTED_SCOPE=users:read \
	timeout 30 node flow.mjs 2>&1)
RC=$?
# SHOW_FLOW=1 prints the library run's own output
[ -n "${SHOW_FLOW:-}" ] && printf '%s\n' "$OUT" >&2
for s in $STEPS; do
	if printf '%s\n' "$OUT" | grep -qx "ok $s"; then pass; else fail "oauth4webapi step $s did not pass"; fi
done
if [ "$RC" -eq 0 ]; then pass; else
	fail "flow.mjs exited $RC: $(printf '%s\n' "$OUT" | grep -v '^ok ' | head -20)"
fi

finish
