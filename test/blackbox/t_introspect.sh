# Token introspection (RFC 7662, docs/tokens.md §"Introspection"): an active access token's
# members (a user's and a client's), a refresh token active only to its own
# client; {"active": false} for unknown, expired, revoked, used, another
# project's, or a token whose user or client is no longer active; the
# caller's authentication (Basic or client_secret_post; missing, wrong,
# both, a deactivated caller); no-store and no CORS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
keepalive_client
REDIRECT="http://127.0.0.1:9/cb"

# introspect TOKEN [curl args...]: as the resource server RS (Basic) unless
# args are given; sets STATUS, BODY, HDRS
introspect() {
	local token=$1; shift
	[ $# -eq 0 ] && set -- -u "$RS:$RS_SECRET"
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' --data-urlencode "token=$token" \
		"$@" "$BASE/api/v1/tokens/introspect")
	BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
}
inactive() { # inactive NAME: the answer is exactly {"active":false}
	check_status "$1: 200" 200
	check_json "$1: inactive" tojson '{"active":false}'
}

# --- set-up: a resource server, an app, a user, a second project ---
req POST "$P/clients" '{"name":"resource server"}'
RS=$(jq -r .id <<<"$BODY"); RS_SECRET=$(jq -r .client_secret <<<"$BODY")
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY"); APP_SECRET=$(jq -r .client_secret <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","external_user_id":"ann"}'
ANN=$(jq -r .id <<<"$BODY")
"$EDGEAUTH" -c "$CONF" project create --name second > "$TMP/second.json"
P2_CLIENT=$(jq -r .client_id "$TMP/second.json"); P2_SECRET=$(jq -r .client_secret "$TMP/second.json")

byou_code ann "$APP" "$REDIRECT" openid
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
USER_ACCESS=$ACCESS; USER_REFRESH=$REFRESH

# --- an active access token ---
introspect "$USER_ACCESS"
check_status "a user's access token" 200
check_json "its members" '[.active, .scope, .client_id, .sub, .aud, .iss, .token_type] | tostring' \
	"[true,\"openid\",\"$APP\",\"$ANN\",\"$PROJECT_ID\",\"$BASE\",\"Bearer\"]"
check_json "exp, iat, jti as in the token" '[.exp, .iat, .jti] | tostring' \
	"[$(jwt_claim "$USER_ACCESS" exp),$(jwt_claim "$USER_ACCESS" iat),\"$(jwt_claim "$USER_ACCESS" jti)\"]"
check_header "no-store" '^Cache-Control: no-store'
check_header "JSON" '^Content-Type: application/json$'
introspect "$TOKEN" -d "client_id=$RS" --data-urlencode "client_secret=$RS_SECRET"
check_status "client_secret_post; a client's token" 200
check_json "a client token: sub is the client" '[.active, .sub, .client_id] | tostring' \
	"[true,\"$CLIENT_ID\",\"$CLIENT_ID\"]"
check_json "its scope" '.scope | split(" ") | index("clients:update") != null' true
introspect "$USER_ACCESS" -u "$RS:$RS_SECRET" -d token_type_hint=refresh_token
check_json "a wrong hint is only a hint" .active true

# --- a refresh token: active only to its own client ---
introspect "$USER_REFRESH" -u "$APP:$APP_SECRET"
check_status "a refresh token, by its client" 200
check_json "its members" '[.active, .client_id, .sub, (.exp | type), (.iat | type), has("scope")] | tostring' \
	"[true,\"$APP\",\"$ANN\",\"number\",\"number\",false]"
check_json "exp after iat" '.exp > .iat' true
introspect "$USER_REFRESH"
inactive "a refresh token, by another client"

# --- inactive tokens ---
introspect "no-such-token"
inactive "unknown"
introspect "a.b.c"
inactive "not a JWT"
refresh "$APP" "$USER_REFRESH"
NEXT_REFRESH=$REFRESH
introspect "$USER_REFRESH" -u "$APP:$APP_SECRET"
inactive "a used refresh token"
introspect "$NEXT_REFRESH" -u "$APP:$APP_SECRET"
check_json "its successor is active" .active true
curl -s -o /dev/null -d "client_id=$APP" --data-urlencode "token=$NEXT_REFRESH" "$BASE/api/v1/tokens/revoke"
introspect "$NEXT_REFRESH" -u "$APP:$APP_SECRET"
inactive "a revoked refresh token"
introspect "$ACCESS"
inactive "an access token of a revoked sign-in"
introspect "$(client_token "$P2_CLIENT" "$P2_SECRET")"
inactive "another project's access token"
introspect "$USER_ACCESS" -u "$P2_CLIENT:$P2_SECRET"
inactive "asked by another project's client"

# a deactivated user's tokens
byou_code ann "$APP" "$REDIRECT" openid
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
ANN_ACCESS=$ACCESS; ANN_REFRESH=$REFRESH
introspect "$ANN_ACCESS"
check_json "before the deactivation" .active true
req PUT "$P/users/$ANN" '{"display_name":"Ann","external_user_id":"ann","is_active":false}'
check_status "deactivate the user" 200
introspect "$ANN_ACCESS"
inactive "a deactivated user's access token"
introspect "$ANN_REFRESH" -u "$APP:$APP_SECRET"
inactive "a deactivated user's refresh token"
req PUT "$P/users/$ANN" '{"display_name":"Ann","external_user_id":"ann","is_active":true}'
introspect "$ANN_ACCESS"
inactive "reactivated: still dead"

# a deactivated client's token
OTHER_TOKEN=$(client_token "$RS" "$RS_SECRET")
introspect "$OTHER_TOKEN" -u "$APP:$APP_SECRET"
check_json "the resource server's own token" .active true
req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":false}"
check_status "deactivate the app" 200
introspect "$OTHER_TOKEN" -u "$APP:$APP_SECRET"
check_err "a deactivated caller" 401 invalid_client_credentials
req PUT "$P/clients/$RS" "{\"name\":\"resource server\",\"is_active\":false}"
req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true}"
introspect "$OTHER_TOKEN" -u "$APP:$APP_SECRET"
inactive "a deactivated client's token"
req PUT "$P/clients/$RS" "{\"name\":\"resource server\",\"is_active\":true}"

# an expired access token: a fresh one with exp moved, signed again with the
# server's key file (signin_lib.sh), so that no test waits for an expiry
# (a short access_ttl_s expired the admin token on a slow ASan run)
FRESH=$(client_token "$CLIENT_ID" "$CLIENT_SECRET")
introspect "$FRESH"
check_json "fresh" .active true
with_exp() { es256_sign "$(jwt_json "$FRESH" 1)" "$(jwt_json "$FRESH" 2 | jq -c ".exp = $1")"; }
introspect "$(with_exp $(( $(date +%s) + 60 )))"
check_json "re-signed, exp ahead: active" .active true
introspect "$(with_exp $(( $(date +%s) - 1 )))"
inactive "an expired access token"

# --- the caller ---
introspect "$FRESH" -H "X-None: 1"
check_err "no credentials" 401 invalid_client_credentials
check_header "401 asks for Basic" '^WWW-Authenticate: Basic'
introspect "$FRESH" -d "client_id=$RS"
check_err "a client_id without its secret" 401 invalid_client_credentials
introspect "$FRESH" -u "$RS:wrong"
check_err "a wrong secret (Basic)" 401 invalid_client_credentials
introspect "$FRESH" -d "client_id=$RS" -d "client_secret=wrong"
check_err "a wrong secret (post)" 401 invalid_client_credentials
introspect "$FRESH" -u "nobody:$RS_SECRET"
check_err "an unknown client" 401 invalid_client_credentials
# issue33.1: the token itself as a Bearer token, or another scheme, is no
# client authentication; a Basic header that does not decode is 400
for auth in "Bearer $FRESH" "Digest username=\"$RS\", realm=\"edgeauth\", nonce=\"n\", uri=\"/\", response=\"0\"" \
	"X-Unknown-Scheme $(printf '%s:%s' "$RS" "$RS_SECRET" | base64 -w0)"; do
	introspect "$FRESH" -H "Authorization: $auth"
	check_err "issue33.1: ${auth%% *}" 401 invalid_client_credentials
	check_header "issue33.1: ${auth%% *}: asks for Basic" '^WWW-Authenticate: Basic'
done
introspect "$FRESH" -H "Authorization: Bearer $FRESH" -d "client_id=$RS" --data-urlencode "client_secret=$RS_SECRET"
check_err "issue33.1: Bearer beside client_secret" 401 invalid_client_credentials
introspect "$FRESH" -H 'Authorization: Basic !!!'
check_err "issue33.1: a Basic header that does not decode" 400 invalid_params
check "issue33.1: no challenge on a 400" "$(grep -ci '^WWW-Authenticate' <<<"$HDRS")" 0
introspect "$FRESH" -u "$RS:$RS_SECRET" -d "client_secret=$RS_SECRET"
check_err "a secret sent both ways" 400 invalid_params
introspect "$FRESH" -u "$RS:$RS_SECRET" -d "client_id=$APP"
check_err "Basic and client_id differ" 400 invalid_params
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -u "$RS:$RS_SECRET" -X POST "$BASE/api/v1/tokens/introspect" \
	-H 'Content-Type: application/x-www-form-urlencoded' --data-binary '')
BODY=$(< "$TMP/body")
check_err "no token" 400 invalid_params
introspect "$FRESH" -u "$RS:$RS_SECRET" --data-urlencode "token=again"
check_err "token twice" 400 invalid_params
AUTH="Basic $(printf '%s:%s' "$RS" "$RS_SECRET" | base64 -w0)" req POST /api/v1/tokens/introspect \
	"{\"token\":\"$FRESH\"}"
check_err "a JSON body" 400 invalid_params

# --- no CORS: a server's endpoint ---
introspect "$FRESH" -u "$RS:$RS_SECRET" -H "Origin: https://spa.example"
check "no Access-Control-Allow-Origin" "$(grep -ci '^Access-Control-Allow-Origin' <<<"$HDRS")" 0
AUTH=none req OPTIONS /api/v1/tokens/introspect -H "Origin: https://spa.example" \
	-H "Access-Control-Request-Method: POST"
check "no preflight allowance" "$(grep -ci '^Access-Control-Allow-Origin' <<<"$HDRS")" 0
AUTH=none req GET /api/v1/tokens/introspect
check_err "GET" 405 method_not_allowed

finish
