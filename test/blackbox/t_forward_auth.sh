# Forward authentication (docs/forward-auth.md), issue 31. Part 1: a
# client's forward_auth_urls (docs/api.md §"Records"): base URLs, https or
# http, no query or fragment, deduplicated in order, read and written by
# create, update (omitted: kept), get and list; setting or changing them
# needs all twelve default-resource permissions, like redirect_uris; each
# registers <base URL>/.edgeauth/callback as a redirect URI of the client.
# Part 2: GET /api/v1/forward-auth and its callback, asked as a proxy would
# (127.0.0.2 is the trusted proxy; 127.0.0.1 is not): 200/401/302/403,
# forged X-Forwarded-* and X-Original-URL from an untrusted address
# ignored, the app cookie stored hashed and ended with its session, the
# callback's refusals (another browser, a used code, an open redirect).
. "$(dirname "$0")/lib.sh"
. "$BB_DIR/signin_lib.sh"
start_server "server.trusted_proxies=127.0.0.2"
AS_ADMIN="Bearer $TOKEN"
DENIED="403 insufficient_permission"

########## issue31.1: the field ##########
req POST "$P/clients" '{"name":"plain"}'
check_status "issue31.1: create without forward_auth_urls" 201
check_json "issue31.1: its default" '.forward_auth_urls|tostring' '[]'
check_json "issue31.1: key order" 'keys_unsorted|join(",")' \
	'id,name,description,is_active,permission_ids,redirect_uris,post_logout_redirect_uris,backchannel_logout_uri,token_endpoint_auth_method,id_token_signed_response_alg,forward_auth_urls,device_flow,allowed_role_ids,consent_required,created_at,updated_at,client_secret'
PLAIN=$(jq -r .id <<<"$BODY")

req POST "$P/clients" '{"name":"dashboard","forward_auth_urls":["https://dash.example/","http://127.0.0.1:8080/red","https://dash.example/"]}'
check_status "issue31.1: create with forward_auth_urls" 201
check_json "issue31.1: written, deduplicated in order" '.forward_auth_urls|tostring' \
	'["https://dash.example/","http://127.0.0.1:8080/red"]'
DASH=$(jq -r .id <<<"$BODY")
CREATED=$(jq -c 'del(.client_secret)' <<<"$BODY")
req GET "$P/clients/$DASH"
check "issue31.1: get answers what create wrote" "$(jq -c . <<<"$BODY")" "$CREATED"
req GET "$P/clients?page_size=100"
check "issue31.1: the list answers it too" "$(jq -c --arg id "$DASH" '.data[]|select(.id==$id)' <<<"$BODY")" "$CREATED"
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true}'
check_json "issue31.1: an update without it keeps it" '.forward_auth_urls|tostring' \
	'["https://dash.example/","http://127.0.0.1:8080/red"]'
req PUT "$P/clients/$DASH" "$(jq -c '.name="dashboard"' <<<"$CREATED")"
check_status "issue31.1: the record sent back is taken" 200
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":null}'
check_json "issue31.1: null clears it" '.forward_auth_urls|tostring' '[]'
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example"]}'
check_json "issue31.1: update writes it" '.forward_auth_urls|tostring' '["https://dash.example"]'

bad() { # bad NAME JSON_FIELDS: create and update with those fields both refused
	req POST "$P/clients" "{\"name\":\"x\",$2}"
	check_err "issue31.1: create: $1" 400 invalid_params
	req PUT "$P/clients/$DASH" "{\"name\":\"x\",\"is_active\":true,$2}"
	check_err "issue31.1: update: $1" 400 invalid_params
}
bad "a string" '"forward_auth_urls":"https://a.example/"'
bad "relative" '"forward_auth_urls":["/app"]'
bad "with a query" '"forward_auth_urls":["https://a.example/?x=1"]'
check_json "issue31.1: the error names the field" .error_description "forward_auth_urls[0] must not contain a query"
bad "with a fragment" '"forward_auth_urls":["https://a.example/#x"]'
bad "ftp" '"forward_auth_urls":["ftp://a.example/"]'
bad "javascript" '"forward_auth_urls":["javascript:alert(1)"]'
bad "empty" '"forward_auth_urls":[""]'
bad "a number" '"forward_auth_urls":[1]'
bad "over 2048" "\"forward_auth_urls\":[\"https://a.example/$(printf 'x%.0s' $(seq 2031))\"]"
URIS21=$(for i in $(seq 21); do printf '"https://a.example/%d",' "$i"; done)
bad "21 of them" "\"forward_auth_urls\":[${URIS21%,}]"
check "issue31.1: no refused create was written" "$(db "select count(*) from clients where name = 'x'")" 0

########## issue31.1: who may set them (docs/signin.md §"Who may change where tokens go") ##########
load_resources
new_client "client manager" clients:create clients:read clients:update users:read
AS_CM="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_CM" 201 "issue31.1: create with [] needs no more" POST "$P/clients" '{"name":"m1","forward_auth_urls":[]}'
M1=$(jq -r .id <<<"$BODY")
expect "$AS_CM" "$DENIED" "issue31.1: create setting forward_auth_urls" POST "$P/clients" '{"name":"m2","forward_auth_urls":["https://evil.example/"]}'
check_json "issue31.1: it says why" '.error_description|test("all twelve")' true
check "issue31.1: the refused create was not written" "$(db "select count(*) from clients where name = 'm2'")" 0
expect "$AS_CM" "$DENIED" "issue31.1: update setting forward_auth_urls" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"forward_auth_urls":["https://evil.example/"]}'
expect "$AS_CM" "$DENIED" "issue31.1: update changing forward_auth_urls" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://evil.example"]}'
expect "$AS_CM" "$DENIED" "issue31.1: update clearing forward_auth_urls" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":[]}'
expect "$AS_CM" 200 "issue31.1: the same value sent back" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example"]}'
expect "$AS_CM" 200 "issue31.1: omitted, kept" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true}'
check_json "issue31.1: still there" '.forward_auth_urls|tostring' '["https://dash.example"]'

########## issue31.1: the callback is a redirect URI of the client ##########
# an unregistered redirect_uri is answered without a redirect (400 page);
# a registered one goes on to the sign-in form (200)
authorize() { # authorize CLIENT REDIRECT_URI: STATUS of the authorization request
	req GET "/api/v1/authorize?response_type=code&client_id=$1&redirect_uri=$(jq -rn --arg u "$2" '$u|@uri')&code_challenge=E9Melhoe2OwvFXL4ZSu1Ow8eA0qKLfmu5-kDdUtrEF0&code_challenge_method=S256&state=s"
}
authorize "$DASH" "https://dash.example/.edgeauth/callback"
check_status "issue31.1: <base URL>/.edgeauth/callback accepted" 200
authorize "$DASH" "https://dash.example/other"
check_status "issue31.1: another path under the base refused" 400
authorize "$PLAIN" "https://dash.example/.edgeauth/callback"
check_status "issue31.1: another client's callback refused" 400
AUTH="$AS_ADMIN" req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example/","http://box.example/red/"]}'
authorize "$DASH" "http://box.example/red/.edgeauth/callback"
check_status "issue31.1: a base with a path and a trailing /" 200
authorize "$DASH" "http://box.example/red//.edgeauth/callback"
check_status "issue31.1: not with a doubled /" 400

########## issue31.2: GET /api/v1/forward-auth ##########
AUTH="$AS_ADMIN" req POST "$P/clients" '{"name":"fa app","forward_auth_urls":["http://app.test/","https://secure.test/"]}'
FA=$(jq -r .id <<<"$BODY")
AUTH="$AS_ADMIN" req POST "$P/clients" '{"name":"fa other","forward_auth_urls":["http://other.test/"]}'
OTHER=$(jq -r .id <<<"$BODY")
reader_user rita@example.com "rita's password" "Rita"
PROXY=(--interface 127.0.0.2)
TIES=()
# fa [curl args...]: the proxy's question about GET http://app.test/page?x=1
# (X-Forwarded-*), a page load; FA_PROTO, FA_HOST, FA_URI and FA_ACCEPT
# change what it says; sets STATUS, BODY, HDRS, LOCATION
fa() {
	AUTH=none req GET /api/v1/forward-auth -H "X-Forwarded-Method: GET" \
		-H "X-Forwarded-Proto: ${FA_PROTO:-http}" -H "X-Forwarded-Host: ${FA_HOST:-app.test}" \
		-H "X-Forwarded-Uri: ${FA_URI:-/page?x=1}" -H "Accept: ${FA_ACCEPT:-text/html,*/*}" "$@"
	LOCATION=$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
}
set_cookie() { printf '%s' "$HDRS" | tr -d '\r' | sed -n "s/^[Ss]et-[Cc]ookie: $1=\([^;]*\).*/\1/p" | head -1; }

fa
check_status "issue31.2: an untrusted peer's X-Forwarded-* ignored: 401" 401
check "issue31.2: and no redirect" "$LOCATION" ""
fa -H "X-Original-URL: http://app.test/page"
check_status "issue31.2: an untrusted peer's X-Original-URL ignored: 401" 401
AUTH=none req GET /api/v1/forward-auth "${PROXY[@]}"
check_status "issue31.2: a trusted proxy that names no URL: 401" 401
FA_HOST=nothing.test fa "${PROXY[@]}"
check_status "issue31.2: no app for the URL: 403" 403
FA_HOST=app.test.evil fa "${PROXY[@]}"
check_status "issue31.2: a host that only starts like the app's: 403" 403
FA_URI=/a/../b fa "${PROXY[@]}"
check_status "issue31.2: a dot-segment: 401" 401
FA_ACCEPT=application/json fa "${PROXY[@]}"
check_status "issue31.2: no app cookie, not a page: 401" 401
AUTH=none req GET /api/v1/forward-auth "${PROXY[@]}" -H "X-Original-URL: http://app.test/page" -H "Accept: text/html"
check_status "issue31.2: no app cookie, nginx: 401 (its error_page starts the sign-in)" 401
fa "${PROXY[@]}"
check_status "issue31.2: no app cookie, a page: 302" 302
AZ=${LOCATION%%\?*}
check "issue31.2: to the authorization endpoint" "$AZ" "$BASE/api/v1/authorize"
check "issue31.2: as the app" "$(query_value "$LOCATION" client_id)" "$FA"
check "issue31.2: to its callback" "$(query_value "$LOCATION" redirect_uri)" "http://app.test/.edgeauth/callback"
check "issue31.2: with PKCE S256" "$(query_value "$LOCATION" code_challenge_method)" "S256"
CHALLENGE=$(query_value "$LOCATION" code_challenge)
STATE=$(query_value "$LOCATION" state)
NONCE=$(set_cookie edgeauth_fa_nonce)
check "issue31.2: a nonce cookie for the browser" "$([ -n "$NONCE" ] && echo set)" set
check_header "issue31.2: host-only, HttpOnly, SameSite=Lax" '^Set-Cookie: edgeauth_fa_nonce=[^;]+; Path=/; Max-Age=600; HttpOnly; SameSite=Lax'
check "issue31.2: the verifier is not in the state" "$(grep -c "$CHALLENGE" <<<"$STATE")" 0
# which app a URL is of (store_forward.h): the longest base wins, then the smallest client ID
AUTH="$AS_ADMIN" req POST "$P/clients" '{"name":"fa deep","forward_auth_urls":["http://app.test/deep/"]}'
DEEP=$(jq -r .id <<<"$BODY")
FA_URI=/deep/page fa "${PROXY[@]}"
check "issue31.2: the longest base wins" "$(query_value "$LOCATION" client_id)" "$DEEP"
FA_URI=/deeper fa "${PROXY[@]}"
check "issue31.2: ... on a boundary only" "$(query_value "$LOCATION" client_id)" "$FA"
for i in 1 2 3; do
	AUTH="$AS_ADMIN" req POST "$P/clients" '{"name":"fa tie","forward_auth_urls":["http://tie.test/"]}'
	check_status "a client of a shared base" 201
	TIES+=("$(jq -r .id <<<"$BODY")")
done
FA_HOST=tie.test fa "${PROXY[@]}"
check "issue31.2: the same base in several clients: the smallest ID" \
	"$(query_value "$LOCATION" client_id)" "$(printf '%s\n' "${TIES[@]}" | LC_ALL=C sort | head -1)"

authorize_post "$FA" "http://app.test/.edgeauth/callback" rita@example.com "rita's password" "$STATE"
check_status "issue31.2: the callback is a redirect URI of the app" 302
CB=$LOCATION
CODE=$(query_value "$CB" code)
callback() { # callback CODE STATE [curl args]: the proxy routes the app's /.edgeauth/callback
	local code=$1 state=$2; shift 2
	AUTH=none req GET "/api/v1/forward-auth/callback?code=$(jq -rn --arg v "$code" '$v|@uri')&state=$(jq -rn --arg v "$state" '$v|@uri')" "${PROXY[@]}" "$@"
	LOCATION=$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
}
callback "$CODE" "$STATE"
check_status "issue31.2: the callback in another browser (no nonce cookie): 400" 400
check "issue31.2: a page, no redirect" "$LOCATION" ""
callback "$CODE" "$STATE" -H "Cookie: edgeauth_fa_nonce=wrong"
check_status "issue31.2: a wrong nonce: 400" 400
callback "$CODE" "$FA.x$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check_status "issue31.2: a tampered state: 400" 400
callback "$CODE" "$OTHER.${STATE#*.}" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check_status "issue31.2: another app's id on the state: 400" 400
callback "$CODE" "$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check_status "issue31.2: the callback: 302" 302
check "issue31.2: back to the original URL" "$LOCATION" "http://app.test/page?x=1"
APPC=$(set_cookie edgeauth_app)
check_header "issue31.2: the app cookie: host-only, HttpOnly, SameSite=Lax, Path=/" '^Set-Cookie: edgeauth_app=[^;]+; Path=/; Max-Age=[0-9]+; HttpOnly; SameSite=Lax$'
check_header "issue31.2: the nonce cookie removed" '^Set-Cookie: edgeauth_fa_nonce=; Path=/; Max-Age=0'
check "issue31.2: stored as its hash only" "$(db "select count(*) from forward_auth_cookies where token_hash = '$(secret_hash "$APPC")'")/$(db "select count(*) from forward_auth_cookies where token_hash = '$APPC'")" "1/0"
callback "$CODE" "$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check_status "issue31.2: the code twice: 400" 400

fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: a valid app cookie: 200" 200
hdr() { printf '%s' "$HDRS" | tr -d '\r' | sed -n "s/^$1: //p"; }
check "issue31.2: Remote-User" "$(hdr Remote-User)" "$USER"
check "issue31.2: Remote-Email" "$(hdr Remote-Email)" "rita@example.com"
check "issue31.2: Remote-Name" "$(hdr Remote-Name)" "Rita"
check "issue31.2: Remote-Role" "$(hdr Remote-Role)" "reader"
check "issue31.2: Remote-Permissions" "$(hdr Remote-Permissions)" "users:read"
check_header "issue31.2: not cached" '^Cache-Control: no-store'
# the app's access rules hold at every call (docs/signin.md "Access rules")
AUTH="$AS_ADMIN" req POST "$P/roles" '{"code":"fa-operator","name":"FA operator","permission_ids":[]}'
OPROLE=$(jq -r .id <<<"$BODY")
AUTH="$AS_ADMIN" req PUT "$P/clients/$FA" "{\"name\":\"fa app\",\"is_active\":true,\"allowed_role_ids\":[\"$OPROLE\"]}"
check_status "issue31: the app kept to another role" 200
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check "issue31: a user of a role the app's rules exclude: 403, no identity" \
	"$STATUS $(hdr Remote-User)" "403 "
# a sign-in of such a user: the form's access_denied, then the callback's 403 page
FA_URI=/excluded fa "${PROXY[@]}"
CHALLENGE=$(query_value "$LOCATION" code_challenge); XSTATE=$(query_value "$LOCATION" state)
authorize_post "$FA" "http://app.test/.edgeauth/callback" rita@example.com "rita's password" "$XSTATE"
check "issue31: an excluded user's sign-in comes back to the app with access_denied" \
	"${LOCATION%%\?*} $(query_value "$LOCATION" error) $([ "$(query_value "$LOCATION" state)" = "$XSTATE" ] && echo state)" \
	"http://app.test/.edgeauth/callback access_denied state"
AUTH=none req GET "/api/v1/forward-auth/callback?${LOCATION#*\?}" "${PROXY[@]}"
check "issue31: the callback answers it with the 403 page: no app cookie, no redirect" \
	"$STATUS $(printf '%s' "$HDRS" | grep -Eci '^(location|set-cookie: edgeauth_app)')" "403 0"
check "issue31: ... saying so" "$(grep -c 'You may not use this app' <<<"$BODY")" 1
AUTH="$AS_ADMIN" req PUT "$P/clients/$FA" '{"name":"fa app","is_active":true,"allowed_role_ids":[]}'
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check "issue31: the rule lifted: 200 again" "$STATUS $(hdr Remote-User)" "200 $USER"
AUTH=none req GET /api/v1/forward-auth "${PROXY[@]}" -H "X-Original-URL: http://app.test/x" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: nginx with the cookie: 200" 200
fa -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: the cookie from an untrusted peer: 401" 401
FA_HOST=other.test FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: the cookie at another app: 401" 401
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=x$APPC"
check_status "issue31.2: an unknown cookie: 401" 401
req PUT "$P/users/$USER" '{"display_name":"Rita","email":"rita@example.com","is_active":false}'
check_status "issue31.2: deactivate the user" 200
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: deactivation ends the app cookie: 401" 401
req PUT "$P/users/$USER" '{"display_name":"Rita","email":"rita@example.com","is_active":true}'
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: and reactivation does not bring it back" 401

# a second sign-in, ended by the session's end (what logout does to it);
# a code of the reactivation's second would be refused (docs/decisions.md
# "Reactivation revives nothing")
next_second
FA_URI=/two fa "${PROXY[@]}"
CHALLENGE=$(query_value "$LOCATION" code_challenge); STATE=$(query_value "$LOCATION" state); NONCE=$(set_cookie edgeauth_fa_nonce)
authorize_post "$FA" "http://app.test/.edgeauth/callback" rita@example.com "rita's password" "$STATE"
callback "$(query_value "$LOCATION" code)" "$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check "issue31.2: signed in again" "$STATUS $LOCATION" "302 http://app.test/two"
APPC=$(set_cookie edgeauth_app)
fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: the new cookie: 200" 200
db "update sessions set ended_at = 1 where ended_at is null" > /dev/null
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: the session's end ends it: 401" 401

# a third sign-in, ended by a new password
FA_URI=/pw fa "${PROXY[@]}"
CHALLENGE=$(query_value "$LOCATION" code_challenge); STATE=$(query_value "$LOCATION" state); NONCE=$(set_cookie edgeauth_fa_nonce)
authorize_post "$FA" "http://app.test/.edgeauth/callback" rita@example.com "rita's password" "$STATE"
callback "$(query_value "$LOCATION" code)" "$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
APPC=$(set_cookie edgeauth_app)
fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: signed in a third time: 200" 200
req PUT "$P/users/$USER" '{"display_name":"Rita","email":"rita@example.com","is_active":true,"password":"rita-new-password-2"}'
check_status "issue31.2: a new password" 200
FA_ACCEPT=application/json fa "${PROXY[@]}" -H "Cookie: edgeauth_app=$APPC"
check_status "issue31.2: a new password ends the app cookie: 401" 401
PW=rita-new-password-2

# the open-redirect refusal: the way back must be under the app's URLs as they are now
FA_URI=/three fa "${PROXY[@]}"
CHALLENGE=$(query_value "$LOCATION" code_challenge); STATE=$(query_value "$LOCATION" state); NONCE=$(set_cookie edgeauth_fa_nonce)
authorize_post "$FA" "http://app.test/.edgeauth/callback" rita@example.com "$PW" "$STATE"
CODE=$(query_value "$LOCATION" code)
AUTH="$AS_ADMIN" req PUT "$P/clients/$FA" '{"name":"fa app","is_active":true,"forward_auth_urls":["https://secure.test/"]}'
callback "$CODE" "$STATE" -H "Cookie: edgeauth_fa_nonce=$NONCE"
check_status "issue31.2: a way back no longer the app's: 400" 400
check "issue31.2: no redirect" "$LOCATION" ""

# an https app: __Host- cookies, Secure
FA_PROTO=https FA_HOST=secure.test fa "${PROXY[@]}"
check_status "issue31.2: an https app: 302" 302
check_header "issue31.2: its nonce cookie is __Host-, Secure" '^Set-Cookie: __Host-edgeauth_fa_nonce=[^;]+; Path=/; Max-Age=600; Secure; HttpOnly; SameSite=Lax'
check "issue31.2: its callback" "$(query_value "$LOCATION" redirect_uri)" "https://secure.test/.edgeauth/callback"

finish
