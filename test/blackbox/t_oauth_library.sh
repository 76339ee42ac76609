# A standard, strict OAuth 2.0 client library (oauth4webapi, pinned in
# test/oauth-client/package-lock.json) works against edgeauth unchanged:
# discovery, authorization code + PKCE with RFC 9207 iss, refresh with
# rotation, client_credentials with client_secret_basic, RFC 7662
# introspection, RFC 7009 revocation and RFC 9068 access-token validation.
# Needs node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
CLIENT_DIR=$ROOT/test/oauth-client
STEPS="discovery authorization_code jwt_access_token refresh refreshed_jwt_access_token
client_credentials introspection revocation revoked_refresh_rejected introspection_inactive"

need_node_project "$CLIENT_DIR" oauth4webapi

start_server

# --- set-up: a role with users:read, a user, a public and a confidential client ---
EMAIL="lib-user@example.com"
PASSWORD='correct horse battery stäple'
reader_user "$EMAIL" "$PASSWORD" "Lib User"
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
check_steps oauth4webapi flow.mjs "$RC" "$OUT" $STEPS

finish
