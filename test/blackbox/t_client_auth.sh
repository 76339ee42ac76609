# Confidential clients (docs/tokens.md §"Client authentication"): token_endpoint_auth_method
# client_secret_basic or client_secret_post must send the secret on the
# code and refresh grants and on both revocation endpoints, either way;
# a secret sent both ways is invalid_params; a public (none) client's secret
# is checked when sent; client_credentials takes client_secret_post too;
# admin clients are confidential.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
keepalive_client
REDIRECT="http://127.0.0.1:9/cb"
DENIED="401 invalid_client_credentials"

# new_app NAME METHOD: a client with REDIRECT; sets APP and SECRET
new_app() {
	req POST "$P/clients" "$(jq -cn --arg n "$1" --arg m "$2" --arg r "$REDIRECT" \
		'{name: $n, redirect_uris: [$r], token_endpoint_auth_method: $m}')"
	check_status "client $1 ($2)" 201
	APP=$(jq -r .id <<<"$BODY"); SECRET=$(jq -r .client_secret <<<"$BODY")
}
req POST "$P/users" '{"display_name":"Ann","external_user_id":"ann"}'

# grant_with CLIENT HOW SECRET: a fresh code of CLIENT exchanged with HOW
# (authenticated); sets STATUS, BODY, REFRESH
grant_with() {
	local client=$1 how=$2 secret=$3
	byou_code ann "$client" "$REDIRECT"
	authenticated "$client" "$how" "$secret" grant_type=authorization_code "redirect_uri=$REDIRECT" \
		"code=$CODE" "code_verifier=$VERIFIER"
}
# authenticated CLIENT HOW SECRET FORM...: a token request sent HOW: none
# (the client_id alone), basic, post (client_secret), both, wrong-basic or
# wrong-post; sets STATUS, BODY, REFRESH
authenticated() {
	local client=$1 how=$2 secret=$3; shift 3
	case $how in
	none) token_req "client_id=$client" "$@" ;;
	basic) BASIC="$client:$secret" token_req "$@" ;;
	post) token_req "client_id=$client" "client_secret=$secret" "$@" ;;
	both) BASIC="$client:$secret" token_req "client_id=$client" "client_secret=$secret" "$@" ;;
	wrong-basic) BASIC="$client:wrong" token_req "$@" ;;
	wrong-post) token_req "client_id=$client" "client_secret=wrong" "$@" ;;
	esac
	REFRESH=$(jq -r '.refresh_token // empty' <<<"$BODY")
}

for method in client_secret_basic client_secret_post; do
	new_app "app-$method" "$method"
	grant_with "$APP" none "$SECRET"
	check_err "$method: code grant without the secret" $DENIED
	check_header "$method: 401 asks for Basic" '^WWW-Authenticate: Basic'
	grant_with "$APP" wrong-basic "$SECRET"
	check_err "$method: a wrong secret (Basic)" $DENIED
	grant_with "$APP" wrong-post "$SECRET"
	check_err "$method: a wrong secret (post)" $DENIED
	grant_with "$APP" both "$SECRET"
	check_err "$method: the secret sent both ways" 400 invalid_params
	grant_with "$APP" basic "$SECRET"
	check_status "$method: code grant with Basic" 200
	grant_with "$APP" post "$SECRET"
	check_status "$method: code grant with client_secret" 200
	R=$REFRESH
	authenticated "$APP" none "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_err "$method: refresh without the secret" $DENIED
	authenticated "$APP" wrong-post "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_err "$method: refresh with a wrong secret" $DENIED
	authenticated "$APP" basic "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_status "$method: refresh with Basic" 200
	R=$REFRESH
	authenticated "$APP" post "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_status "$method: refresh with client_secret" 200
	R=$REFRESH; A=$(jq -r .access_token <<<"$BODY")

	# RFC 7009 revocation: refused without the secret, nothing revoked
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -d "client_id=$APP" --data-urlencode "token=$R" \
		"$BASE/api/v1/tokens/revoke"); BODY=$(< "$TMP/body")
	check_err "$method: RFC 7009 without the secret" $DENIED
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -d "client_id=$APP" -d "client_secret=$SECRET" \
		-u "$APP:$SECRET" --data-urlencode "token=$R" "$BASE/api/v1/tokens/revoke"); BODY=$(< "$TMP/body")
	check_err "$method: RFC 7009 with the secret both ways" 400 invalid_params
	AUTH="Bearer $A" req GET /api/v1/users/current
	check_status "$method: the access token still works" 200
	# current/revoke: JSON client_secret, or Basic in place of the bearer token
	AUTH=none req POST /api/v1/tokens/current/revoke "{\"client_id\":\"$APP\",\"refresh_token\":\"$R\"}"
	check_err "$method: current/revoke without the secret" $DENIED
	AUTH=none req POST /api/v1/tokens/current/revoke \
		"{\"client_id\":\"$APP\",\"refresh_token\":\"$R\",\"client_secret\":\"wrong\"}"
	check_err "$method: current/revoke with a wrong secret" $DENIED
	authenticated "$APP" post "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_status "$method: nothing was revoked" 200
	R=$REFRESH
	if [ "$method" = client_secret_basic ]; then
		STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -u "$APP:$SECRET" --data-urlencode "token=$R" \
			"$BASE/api/v1/tokens/revoke"); BODY=$(< "$TMP/body")
		check_status "$method: RFC 7009 with Basic" 200
	else
		AUTH=none req POST /api/v1/tokens/current/revoke \
			"{\"client_id\":\"$APP\",\"refresh_token\":\"$R\",\"client_secret\":\"$SECRET\"}"
		check_status "$method: current/revoke with client_secret" 200
	fi
	authenticated "$APP" post "$SECRET" grant_type=refresh_token "refresh_token=$R"
	check_err "$method: revoked" 400 invalid_refresh_token
done

# current/revoke with Basic in place of the bearer token
new_app app-basic-current client_secret_basic
grant_with "$APP" basic "$SECRET"
AUTH="Basic $(printf '%s:%s' "$APP" "$SECRET" | base64 -w0)" req POST /api/v1/tokens/current/revoke \
	"{\"client_id\":\"$APP\",\"refresh_token\":\"$REFRESH\"}"
check_status "current/revoke with Basic" 200
authenticated "$APP" basic "$SECRET" grant_type=refresh_token "refresh_token=$REFRESH"
check_err "revoked by it" 400 invalid_refresh_token
AUTH=none req POST /api/v1/tokens/current/revoke '{"client_id":"nobody","refresh_token":"x"}'
check_status "current/revoke: an unknown client without a secret is still 200" 200
AUTH=none req POST /api/v1/tokens/current/revoke '{"client_id":"nobody","refresh_token":"x","client_secret":"s"}'
check_err "current/revoke: an unknown client with a secret" $DENIED
AUTH=none req POST /api/v1/tokens/current/revoke "{\"client_id\":\"$APP\",\"refresh_token\":\"x\",\"client_secret\":7}"
check_err "current/revoke: a client_secret that is not a string" 400 invalid_params

# --- a public client: a secret sent is checked ---
new_app public none
grant_with "$APP" none "$SECRET"
check_status "public: client_id alone" 200
grant_with "$APP" wrong-post "$SECRET"
check_err "public: a wrong client_secret" $DENIED
grant_with "$APP" post "$SECRET"
check_status "public: its own client_secret" 200
grant_with "$APP" both "$SECRET"
check_err "public: the secret both ways" 400 invalid_params
token_req grant_type=refresh_token "client_secret=$SECRET" "refresh_token=$REFRESH"
check_err "a client_secret without client_id" 400 invalid_params

# --- client_credentials with client_secret_post ---
token_req grant_type=client_credentials "client_id=$CLIENT_ID" "client_secret=$CLIENT_SECRET"
check_status "client_credentials with client_secret" 200
check_json "a token of the admin client" '.access_token | length > 0' true
token_req grant_type=client_credentials "client_id=$CLIENT_ID" "client_secret=wrong"
check_err "client_credentials with a wrong client_secret" $DENIED
token_req grant_type=client_credentials "client_id=$CLIENT_ID"
check_err "client_credentials without a secret" 400 invalid_params

# --- issue33.1: another scheme in place of client credentials ---
# A Bearer token (or Digest, or any scheme but Basic) authenticates no
# client: 401 with a Basic challenge at the token and revocation endpoints,
# nothing used or revoked; a Basic header that does not decode is 400.
new_app app-schemes client_secret_basic
grant_with "$APP" basic "$SECRET"
R=$REFRESH; A=$(jq -r .access_token <<<"$BODY")
for auth in "Bearer $A" "Digest username=\"$APP\", realm=\"edgeauth\", nonce=\"n\", uri=\"/\", response=\"0\"" \
	"X-Unknown-Scheme $(printf '%s:%s' "$APP" "$SECRET" | base64 -w0)"; do
	name="issue33.1: ${auth%% *}"
	AUTHORIZATION=$auth token_req grant_type=refresh_token "client_id=$APP" "refresh_token=$R"
	check_err "$name on a refresh" $DENIED
	check_header "$name on a refresh: asks for Basic" '^WWW-Authenticate: Basic'
	AUTHORIZATION=$auth token_req grant_type=client_credentials
	check_err "$name on client_credentials" $DENIED
	check_header "$name on client_credentials: asks for Basic" '^WWW-Authenticate: Basic'
	AUTHORIZATION=$auth ENDPOINT=/api/v1/tokens/revoke token_req "token=$R" "client_id=$APP"
	check_err "$name on RFC 7009 revocation" $DENIED
	check_header "$name on RFC 7009 revocation: asks for Basic" '^WWW-Authenticate: Basic'
done
for endpoint in /api/v1/tokens /api/v1/tokens/revoke; do
	AUTHORIZATION='Basic !!!' ENDPOINT=$endpoint token_req grant_type=client_credentials "token=$R"
	check_err "issue33.1: $endpoint, a Basic header that does not decode" 400 invalid_params
	check "issue33.1: $endpoint, no challenge on a 400" "$(grep -ci '^WWW-Authenticate' <<<"$HDRS")" 0
done
AUTH="Bearer $A" req GET /api/v1/users/current
check_status "issue33.1: the access token was not revoked" 200
BASIC="$APP:$SECRET" token_req grant_type=refresh_token "refresh_token=$R"
check_status "issue33.1: the refresh token was neither used nor revoked" 200

# --- another process's write to a client a grant has read (its row is cached) ---
AUTH="Bearer $TOKEN" req POST "$P/clients" '{"name":"outside"}'
OUT=$(jq -r .id <<<"$BODY"); OUT_SECRET=$(jq -r .client_secret <<<"$BODY")
# grant_settles WANT: grants of OUT until one answers WANT (status and
# error); prints how many tries that took (none after 40)
grant_settles() {
	local i
	for i in $(seq 1 40); do
		BASIC="$OUT:$OUT_SECRET" token_req grant_type=client_credentials
		[ "$STATUS $(jq -r '.error // empty' <<<"$BODY")" = "$1" ] && { echo "$i"; return; }
		sleep 0.05
	done
	echo none
}
check "a grant reads the client" "$(grant_settles "200 ")" 1
check "... and again (from its cache)" "$(grant_settles "200 ")" 1
db "update clients set is_active = false where id = '$OUT'" > /dev/null
# SQLite: the next read sees the file's new version; PostgreSQL: the
# trigger's NOTIFY reaches the node within CONTRACT §9's 100 ms
check "a deactivation written by another process is seen" \
	"$(R=$(grant_settles "400 client_not_active"); [ "$BACKEND" = sqlite ] && echo "$R" || { [ "$R" != none ] && echo 1; })" 1
db "update clients set is_active = true, secret_hash = 'x' where id = '$OUT'" > /dev/null
check "a secret changed by another process is seen" \
	"$(R=$(grant_settles "401 invalid_client_credentials"); [ "$BACKEND" = sqlite ] && echo "$R" || { [ "$R" != none ] && echo 1; })" 1

# --- admin clients are confidential (docs/decisions.md "Admin clients are confidential") ---
req GET "$P/clients/$CLIENT_ID"
check_json "the admin client's method" .token_endpoint_auth_method client_secret_basic
"$EDGEAUTH" -c "$CONF" project admin-client "$PROJECT_ID" > "$TMP/admin.json"
req GET "$P/clients/$(jq -r .client_id "$TMP/admin.json")"
check_json "a recovered admin client's too" .token_endpoint_auth_method client_secret_basic
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -d "client_id=$CLIENT_ID" --data-urlencode "token=$TOKEN" \
	"$BASE/api/v1/tokens/revoke"); BODY=$(< "$TMP/body")
check_err "its tokens are not revoked in its name without its secret" $DENIED

finish
