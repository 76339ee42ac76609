#!/usr/bin/env bash
# issue32: the device authorization grant (RFC 8628, docs/device.md).
# 1. device_flow on clients: off by default, read and written by create and
#    update, strict input; setting or changing it needs all twelve
#    permissions (docs/signin.md §"Who may change where tokens go").
# 2-3. POST /api/v1/device_authorization: every answer and error, the codes
#    stored only as hashes, discovery.
# 4. the token endpoint's device_code grant: invalid_params, invalid_grant,
#    unauthorized_client, authorization_pending, slow_down (the interval
#    growing), expired_token, on a frozen clock (never a sleep); once
#    approved, the tokens of a code grant exactly once (two polls racing),
#    refused to a client or user deactivated after the approval.
# 5. the /device page: code entry (case and dashes ignored), the sign-in
#    first and back, the approval page, Approve and Deny, cross-site posts
#    and wrong form values refused, audit events, wrong codes throttled by
#    session and by address (the limits docs/security.md's arithmetic uses).
# 7. audit: the requests, and the polls that end a flow, not the pending ones.
# 8. hostile values of the new parameters.
. "$(dirname "$0")/lib.sh"
fake_clock
EDGEAUTH_WRAPPER=$FAKED start_server
AS_ADMIN="Bearer $TOKEN"
DENIED="403 insufficient_permission"
load_resources
row() { db "select * from clients where id = '$1'"; }

########## 1. device_flow on clients ##########
req POST "$P/clients" '{"name":"tv"}'
check_status "issue32.1: create without device_flow" 201
check_json "issue32.1: device_flow is off by default" .device_flow false
TV=$(jq -r .id <<<"$BODY")
req POST "$P/clients" '{"name":"kiosk","device_flow":true}'
check_status "issue32.1: create with device_flow" 201
check_json "issue32.1: written" .device_flow true
KIOSK=$(jq -r .id <<<"$BODY"); KIOSK_RECORD=$(jq -c 'del(.client_secret)' <<<"$BODY")
req GET "$P/clients/$KIOSK"
check "issue32.1: get answers what create wrote" "$(jq -c . <<<"$BODY")" "$KIOSK_RECORD"
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true}'
check_json "issue32.1: an update without it keeps it" .device_flow true
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":false}'
check_json "issue32.1: an update turns it off" .device_flow false
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":true}'
check_json "issue32.1: and on" .device_flow true
# hostile values: invalid_params naming the field, nothing written
for v in null '"true"' 1 0 '[]' '{}' '"yes"'; do
	req POST "$P/clients" "{\"name\":\"x\",\"device_flow\":$v}"
	check_err "issue32.1: device_flow $v refused on create" 400 invalid_params
	check_json "issue32.1: the error names device_flow ($v)" '.error_description|test("device_flow")' true
	req PUT "$P/clients/$KIOSK" "{\"name\":\"kiosk\",\"is_active\":true,\"device_flow\":$v}"
	check_err "issue32.1: device_flow $v refused on update" 400 invalid_params
done
check "issue32.1: no refused create was written" "$(db "select count(*) from clients where name = 'x'")" 0
check "issue32.1: a refused update changed nothing" "$(jq -r .device_flow <<<"$(AUTH="$AS_ADMIN" req GET "$P/clients/$KIOSK"; echo "$BODY")")" true

# who may: a client manager without all twelve may not set or change it
new_client "client manager" clients:create clients:read clients:update users:read
AS_CM="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_CM" 201 "issue32.1: a lesser token creates with device_flow false" POST "$P/clients" '{"name":"m1","device_flow":false}'
M1=$(jq -r .id <<<"$BODY")
N=$(db "select count(*) from clients")
expect "$AS_CM" "$DENIED" "issue32.1: a lesser token may not create with device_flow" POST "$P/clients" '{"name":"m2","device_flow":true}'
check "issue32.1: the refused create wrote nothing" "$(db "select count(*) from clients")" "$N"
expect "$AS_CM" 200 "issue32.1: a lesser token sends the same value back" PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":true}'
BEFORE=$(row "$KIOSK")
expect "$AS_CM" "$DENIED" "issue32.1: a lesser token may not turn it off" PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":false}'
expect "$AS_CM" "$DENIED" "issue32.1: nor on" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"device_flow":true}'
check "issue32.1: refused updates changed nothing" "$(row "$KIOSK")" "$BEFORE"
expect "$AS_CM" "400 invalid_params" "issue32.1: invalid_params before 403" PUT "$P/clients/$M1" '{"name":"","is_active":true,"device_flow":true}'
expect "$AS_CM" "404 client_not_found" "issue32.1: client_not_found before 403" PUT "$P/clients/nope" '{"name":"m1","is_active":true,"device_flow":true}'
expect "$AS_ADMIN" 200 "issue32.1: the admin turns it on" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"device_flow":true}'

########## 2-3. the device authorization endpoint ##########
FORM=application/x-www-form-urlencoded
GT='urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code'
hash() { printf '%s' "$1" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '='; }
authorize() { CTYPE=$FORM AUTH=${DAUTH:-none} req POST /api/v1/device_authorization "$@"; }
# poll DEVICE_CODE CLIENT_ID [extra form]
poll() { CTYPE=$FORM AUTH=${DAUTH:-none} req POST /api/v1/tokens "grant_type=$GT&device_code=$1&client_id=$2${3:-}"; }
T0=$(( $(date +%s) + 100 ))
freeze "$T0"

req GET /.well-known/openid-configuration
check_json "issue32.3: discovery names the endpoint" .device_authorization_endpoint "$BASE/api/v1/device_authorization"
check_json "issue32.3: and the grant type" '.grant_types_supported|index("urn:ietf:params:oauth:grant-type:device_code") != null' true

authorize "client_id=$KIOSK&scope=openid%20profile"
check_status "issue32.3: a device_flow client gets codes" 200
check_header "issue32.3: not stored by caches" '^Cache-Control: no-store'
check_json "issue32.3: the answer's fields" 'keys|join(",")' 'device_code,expires_in,interval,user_code,verification_uri,verification_uri_complete'
DC=$(jq -r .device_code <<<"$BODY"); UC=$(jq -r .user_code <<<"$BODY")
check "issue32.3: the device code is 256 bits, base64url" "$(grep -cE '^[A-Za-z0-9_-]{43}$' <<<"$DC")" 1
check "issue32.3: the user code is XXXX-XXXX of the 20 letters" "$(grep -cE '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' <<<"$UC")" 1
check_json "issue32.3: verification_uri" .verification_uri "$BASE/device"
check_json "issue32.3: verification_uri_complete" .verification_uri_complete "$BASE/device?user_code=$UC"
check_json "issue32.3: expires_in is [device] code_ttl_s" .expires_in 600
check_json "issue32.3: interval" .interval 5
check "issue32.2: stored by the device code's hash" "$(db "select count(*) from device_authorizations where device_hash = '$(hash "$DC")'")" 1
check "issue32.2: and the user code's, without its dash" "$(db "select count(*) from device_authorizations where user_code_hash = '$(hash "${UC/-/}")'")" 1
check "issue32.2: neither code stored in plain" "$(db "select count(*) from device_authorizations where device_hash = '$DC' or user_code_hash like '%${UC:0:4}%'")" 0
check "issue32.2: pending, for the client, with the OIDC scopes and the address" \
	"$(db "select state, client_id, scope, address, interval_s, expires_at - created_at from device_authorizations where device_hash = '$(hash "$DC")'")" \
	"pending|$KIOSK|openid profile|127.0.0.1|5|600000"
authorize "client_id=$KIOSK"
check_status "issue32.3: scope is optional" 200
DC_PLAIN=$(jq -r .device_code <<<"$BODY")
check "issue32.3: two requests, two user codes" "$([ "$(jq -r .user_code <<<"$BODY")" != "$UC" ] && echo different)" different

authorize "client_id=$TV"
check_err "issue32.3: a client without device_flow" 400 unauthorized_client
authorize "client_id=nope"
check_err "issue32.3: an unknown client" 400 invalid_client
authorize "scope=openid"
check_err "issue32.3: no client_id" 400 invalid_params
authorize "client_id=$KIOSK&client_id=$KIOSK"
check_err "issue32.3: client_id twice" 400 invalid_params
authorize "client_id=$KIOSK&scope=a&scope=b"
check_err "issue32.3: scope twice" 400 invalid_params
authorize "client_id=$KIOSK&scope=$(printf 'a%.0s' $(seq 1 1001))"
check_err "issue32.3: a scope of 1001 characters" 400 invalid_params
authorize "client_id=$KIOSK&scope=%00"
check "issue32.3: a NUL in scope is a 400" "$STATUS" 400
# a confidential client authenticates as at the token endpoint
req POST "$P/clients" '{"name":"panel","device_flow":true,"token_endpoint_auth_method":"client_secret_basic"}'
PANEL=$(jq -r .id <<<"$BODY"); PANEL_SECRET=$(jq -r .client_secret <<<"$BODY")
authorize "client_id=$PANEL"
check_err "issue32.3: a confidential client without its secret" 401 invalid_client_credentials
DAUTH="Basic $(printf '%s:%s' "$PANEL" wrong | base64 -w0)" authorize ""
check_err "issue32.3: with a wrong secret" 401 invalid_client_credentials
DAUTH="Basic $(printf '%s:%s' "$PANEL" "$PANEL_SECRET" | base64 -w0)" authorize ""
check_status "issue32.3: with its secret (Basic)" 200
DC_PANEL=$(jq -r .device_code <<<"$BODY")
authorize "client_id=$PANEL&client_secret=$PANEL_SECRET"
check_status "issue32.3: with its secret (client_secret_post)" 200
req PUT "$P/clients/$M1" '{"name":"m1","is_active":false}'
authorize "client_id=$M1"
check_err "issue32.3: a deactivated client" 400 client_not_active
check "issue32.3: no secret or code in the log" "$(grep -c -e "$PANEL_SECRET" -e "$DC" "$TMP/server.log")" 0

########## 4. the token endpoint's device_code grant ##########
poll "" "$KIOSK"
check_err "issue32.4: no device_code" 400 invalid_params
poll "nope" "$KIOSK"
check_err "issue32.4: an unknown device code" 400 invalid_grant
poll "$DC_PANEL" "$KIOSK"
check_err "issue32.4: another client's device code" 400 invalid_grant
poll "$DC_PANEL" "$PANEL"
check_err "issue32.4: a confidential client polls without its secret" 401 invalid_client_credentials
poll "$DC" "$TV"
check_err "issue32.4: a client without device_flow" 400 unauthorized_client
poll "$DC" "$KIOSK" "&device_code=$DC"
check_err "issue32.4: device_code twice" 400 invalid_params

poll "$DC" "$KIOSK"
check_err "issue32.4: pending" 400 authorization_pending
check_header "issue32.4: errors not stored by caches" '^Cache-Control: no-store'
poll "$DC" "$KIOSK"
check_err "issue32.4: polled again at once: slow_down" 400 slow_down
check "issue32.4: the interval grew by 5 s" "$(db "select interval_s from device_authorizations where device_hash = '$(hash "$DC")'")" 10
freeze $((T0 + 9))
poll "$DC" "$KIOSK"
check_err "issue32.4: 9 s later, under the new 10 s: slow_down again" 400 slow_down
check "issue32.4: 15 s now" "$(db "select interval_s from device_authorizations where device_hash = '$(hash "$DC")'")" 15
freeze $((T0 + 24))
poll "$DC" "$KIOSK"
check_err "issue32.4: after the interval: pending" 400 authorization_pending
check "issue32.4: the interval stays" "$(db "select interval_s from device_authorizations where device_hash = '$(hash "$DC")'")" 15
freeze $((T0 + 600))
poll "$DC" "$KIOSK"
check_err "issue32.4: at expires_in: expired_token" 400 expired_token
# docs/device.md "Audit and metrics": a poll that ends the flow is audited,
# by the client, of the user who decided (none here); pending ones are not
check "issue32.7: audited: the expired poll, and only it" \
	"$(db "select actor, coalesce(target, '-'), outcome from events where action = 'device.poll'")" "$KIOSK|-|expired_token"

########## 5. the /device page, and the approved polls ##########
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/console_lib.sh"
freeze $((T0 + 1000))
TOKEN=$(admin_token); AS_ADMIN="Bearer $TOKEN"   # the clock moved past the first one's expiry
reader_user rita@example.com "rita's password" Rita
RITA=$USER
JAR=$TMP/jar; WHO_JAR=$JAR
dpage() { AUTH=none req GET "$1" -b "$JAR" -c "$JAR"; }
# new_device [SCOPE]: a device authorization of the kiosk; DC, UC
new_device() { authorize "client_id=$KIOSK&scope=${1:-openid%20profile}"; DC=$(jq -r .device_code <<<"$BODY"); UC=$(jq -r .user_code <<<"$BODY"); }
# device_sign_in CODE: the sign-in page's post, as the redirect asked for it
device_sign_in() {
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR" \
		-H "Origin: $BASE" --data-urlencode response_type=code \
		--data-urlencode "client_id=console.$PROJECT_ID" --data-urlencode "redirect_uri=$BASE/device?user_code=$1" \
		--data-urlencode "email=rita@example.com" --data-urlencode "password=rita's password" "$BASE/api/v1/authorize")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
# approval CODE: the approval page of CODE (signed in), TOK its form value
approval() { dpage "/device?user_code=$1"; TOK=$(form_token); }
decide() { apost /device "user_code=$1" "decision=$2"; }
page_headers() {
	check_header "$1: CSP of the sign-in page's family" "^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	check_header "$1: no-store" '^Cache-Control: no-store'
	check "$1: no script" "$(grep -c '<script' <<<"$BODY")" 0
}

dpage /device
check_status "issue32.5: /device asks for the code" 200
page_headers "issue32.5: the entry page"
has "issue32.5: a code field" 'name="user_code"'
new_device
NORM=${UC/-/}
LOWER=$(tr 'A-Z' 'a-z' <<<"${NORM:0:2}-${NORM:2:3}-${NORM:5}")
dpage "/device?user_code=$LOWER"
check_status "issue32.5: not signed in: to the sign-in page" 302
check "issue32.5: as the console's client, back to /device with the code" "$(location)" \
	"$BASE/api/v1/authorize?response_type=code&client_id=console.$PROJECT_ID&redirect_uri=$(jq -rn --arg u "$BASE/device?user_code=$NORM" '$u|@uri')"
device_sign_in "$NORM"
check_status "issue32.5: signed in" 302
check "issue32.5: and back to the code" "$(location)" "$BASE/device?user_code=$NORM"
AUTH=none req GET /api/v1/authorize -G --data-urlencode response_type=code --data-urlencode "client_id=console.$PROJECT_ID" --data-urlencode "redirect_uri=$BASE/device?user_code=$NORM&x=1"
check "issue32.5: no other return address for the console's client" "$STATUS" 400
approval "$LOWER"
check_status "issue32.5: the approval page (case and dashes ignored)" 200
page_headers "issue32.5: the approval page"
has "issue32.5: it names the app" kiosk
has "issue32.5: the scopes" "openid profile"
has "issue32.5: the permissions" "users:read"
has "issue32.5: the device's address" 127.0.0.1
has "issue32.5: the request's time" "$(date -u -d "@$((T0 + 1000))" +%Y-%m-%dT%H:%M)"
has "issue32.5: an Approve form" '>Approve<'
has "issue32.5: a Deny form" '>Deny<'
lacks "issue32.5: never the device code" "$DC"
has "issue32.5: the code as the device shows it" "<td>$UC</td>"

freeze $((T0 + 1010))
poll "$DC" "$KIOSK"
check_err "issue32.4: not decided yet" 400 authorization_pending
ORIGIN_H=https://evil.example decide "$NORM" approve
check_status "issue32.5: a cross-site post (Origin) refused" 403
SITE_H=cross-site decide "$NORM" approve
check_status "issue32.5: a cross-site post (Sec-Fetch-Site) refused" 403
TOKEN_F=wrong decide "$NORM" approve
check_status "issue32.5: a wrong form value refused" 403
TOKEN_F=none decide "$NORM" approve
check_status "issue32.5: no form value refused" 403
decide "$NORM" maybe
check_status "issue32.5: a decision other than approve or deny" 400
WHO_JAR=$TMP/nojar decide "$NORM" approve
check_status "issue32.5: a post without a session refused" 403
check "issue32.5: refused posts decided nothing" "$(db "select state from device_authorizations where device_hash = '$(hash "$DC")'")" pending
# the client's access rules (docs/signin.md "Access rules") keep out a user of another role
AUTH="$AS_ADMIN" req POST "$P/roles" '{"code":"device-op","name":"Device operator","permission_ids":[]}'
OPROLE=$(jq -r .id <<<"$BODY")
AUTH="$AS_ADMIN" req PUT "$P/clients/$KIOSK" "{\"name\":\"kiosk\",\"is_active\":true,\"allowed_role_ids\":[\"$OPROLE\"]}"
check_status "issue32.5: the kiosk kept to another role" 200
decide "$NORM" approve
check "issue32.5: a user the client's access rules exclude cannot approve" \
	"$STATUS $(db "select state from device_authorizations where device_hash = '$(hash "$DC")'")" "403 pending"
AUTH="$AS_ADMIN" req GET "$P/events?action=access.denied"
check "issue31: the refusal is audited: access.denied by the user, of the client" \
	"$(jq -c '[.total, .data[0].actor, .data[0].target, .data[0].outcome]' <<<"$BODY")" "[1,\"$RITA\",\"$KIOSK\",\"access_denied\"]"
AUTH="$AS_ADMIN" req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"allowed_role_ids":[]}'
decide "$NORM" approve
check_status "issue32.5: Approve" 200
has "issue32.5: it says so" "Device approved"
check "issue32.5: audited: device.approve by the user, of the client" \
	"$(db "select actor, target, outcome from events where action = 'device.approve'")" "$RITA|$KIOSK|success"
decide "$NORM" approve
check_status "issue32.5: a second decision: the code is no longer pending" 400

# two polls at once after the approval: exactly one gets tokens
freeze $((T0 + 1020))
RACERS=()
for i in 1 2; do
	curl -s -o "$TMP/race$i" -w '%{http_code}' -d "grant_type=urn:ietf:params:oauth:grant-type:device_code" \
		--data-urlencode "device_code=$DC" -d "client_id=$KIOSK" "$BASE/api/v1/tokens" > "$TMP/race$i.status" &
	RACERS+=($!)
done
wait "${RACERS[@]}"   # not the server's
check "issue32.4: two racing polls: one 200, one 400" "$( (cat "$TMP/race1.status"; echo; cat "$TMP/race2.status"; echo) | sort | tr '\n' ' ')" "200 400 "
WIN=$(grep -l '"access_token"' "$TMP/race1" "$TMP/race2"); LOSE=$(grep -L '"access_token"' "$TMP/race1" "$TMP/race2")
check "issue32.4: the loser gets invalid_grant" "$(jq -r .error "$LOSE")" invalid_grant
BODY=$(cat "$WIN")
check_json "issue32.4: a refresh token" '.refresh_token|length > 20' true
check_json "issue32.4: an ID token with openid" '.id_token|split(".")|length' 3
check "issue32.4: the ID token is rita's, for the kiosk" "$(jq -r .id_token <<<"$BODY" | cut -d. -f2 | tr '_-' '/+' | base64 -d 2>/dev/null | jq -r '[.sub, .aud]|tostring')" "[\"$RITA\",\"$KIOSK\"]"
check_json "issue32.4: the scope: OIDC's, then the user's permissions" .scope "openid profile users:read"
RT=$(jq -r .refresh_token <<<"$BODY"); AT=$(jq -r .access_token <<<"$BODY")
AUTH="Bearer $AT" req GET /api/v1/userinfo
check_json "issue32.4: the access token is rita's" .sub "$RITA"
CTYPE=$FORM AUTH=none req POST /api/v1/tokens "grant_type=refresh_token&refresh_token=$RT&client_id=$KIOSK"
check_status "issue32.4: the refresh token rotates" 200
poll "$DC" "$KIOSK"
check_err "issue32.4: a poll after the tokens went out" 400 invalid_grant
check "issue32.2: the authorization is issued" "$(db "select state from device_authorizations where device_hash = '$(hash "$DC")'")" issued
check "issue32.7: audited once: the tokens issued to the kiosk, rita's" \
	"$(db "select actor, target, count(*) from events where action = 'device.poll' and outcome = 'success' group by actor, target")" "$KIOSK|$RITA|1"

# Deny
new_device
approval "$UC"
decide "$UC" deny
check_status "issue32.5: Deny" 200
has "issue32.5: it says so" "Device denied"
freeze $((T0 + 1030))
poll "$DC" "$KIOSK"
check_err "issue32.4: a denied device" 400 access_denied
check "issue32.5: audited: device.deny" "$(db "select count(*) from events where action = 'device.deny' and actor = '$RITA'")" 1
check "issue32.7: audited: the denied poll, by the kiosk, naming who denied it" \
	"$(db "select actor, target from events where action = 'device.poll' and outcome = 'access_denied'")" "$KIOSK|$RITA"

# a plain OAuth request: no ID token
new_device none
approval "$UC"; decide "$UC" approve
freeze $((T0 + 1040))
poll "$DC" "$KIOSK"
check_status "issue32.4: approved without openid" 200
check_json "issue32.4: no ID token without openid" '.id_token' null

# the client deactivated between approval and poll
new_device
approval "$UC"; decide "$UC" approve
AUTH="$AS_ADMIN" req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":false}'
freeze $((T0 + 1050))
poll "$DC" "$KIOSK"
check_err "issue32.4: a client deactivated after the approval" 400 client_not_active
AUTH="$AS_ADMIN" req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true}'

# the user deactivated between approval and poll
new_device
approval "$UC"; decide "$UC" approve
AUTH="$AS_ADMIN" req PUT "$P/users/$RITA" "{\"display_name\":\"Rita\",\"email\":\"rita@example.com\",\"is_active\":false,\"role_id\":\"$ROLE\"}"
check_status "deactivate rita" 200
freeze $((T0 + 1060))
poll "$DC" "$KIOSK"
check_err "issue32.4: a user deactivated after the approval" 400 invalid_grant
AUTH="$AS_ADMIN" req PUT "$P/users/$RITA" "{\"display_name\":\"Rita\",\"email\":\"rita@example.com\",\"is_active\":true,\"role_id\":\"$ROLE\"}"

# wrong codes: by session ([signin] max_failures, 10), then by address
# ([signin] max_failures_per_address, 100) within [signin] window_s
rm -f "$JAR"; new_device; device_sign_in "${UC/-/}"
approval "$UC"; decide "$UC" approve
for i in $(seq 1 10); do decide "$UC" approve; done
check "issue32.5: ten posts of a decided code: each a wrong code" "$STATUS" 400
decide "$UC" approve
check_status "issue32.5: the session's eleventh wrong code: throttled" 429
check_header "issue32.5: with Retry-After" '^Retry-After: [0-9]+'
N=$(( 100 - 11 ))
for i in $(seq 1 $N); do AUTH=none req GET "/device?user_code=BBBB-BBBB"; done
check "issue32.5: the address's hundredth wrong code is still answered" "$STATUS" 400
new_device
AUTH=none req GET "/device?user_code=$UC"
check_status "issue32.5: past 100 wrong codes from the address, even a right one is throttled" 429
freeze $((T0 + 1060 + 301))
AUTH=none req GET "/device?user_code=$UC"
check_status "issue32.5: after [signin] window_s the address may try again" 302
# docs/security.md: at these limits, guesses at one live code over its life
WINDOWS=$(( 600 / 300 + 1 ))
check "issue32.5: 100 guesses a window, $WINDOWS windows: chance per live code under 1e-6" \
	"$(awk -v g=$((100 * WINDOWS)) 'BEGIN { print (g / 20^8 < 1e-6) ? "yes" : "no" }')" yes
check "issue32.5: no code in the log" "$(grep -c -e "$DC" -e "${UC/-/}" "$TMP/server.log")" 0
check "issue32.7: every device authorization audited, by and of its client; refused ones not" \
	"$(db "select client_id, count(*) from device_authorizations group by client_id order by client_id")" \
	"$(db "select actor, count(*) from events where action = 'device.request' and target = actor group by actor order by actor")"
check "issue32.7: the kiosk's requests" "$(db "select count(*) from events where action = 'device.request' and actor = '$KIOSK'")" 9
check "issue32.7: polls audited: those that ended a flow, none pending, slow or refused before the code" \
	"$(db "select outcome, count(*) from events where action = 'device.poll' group by outcome order by outcome")" \
	"access_denied|1
expired_token|1
success|2"
check "issue32.7: no event holds a code" "$(db "select count(*) from events where target like '%${UC:0:4}%' or target = '$DC'")" 0

########## 8. hostile values of the new parameters ##########
# (after the counts above: wrong codes here count against the address, well
# under its limit in this window)
LONG=$(head -c 10000 /dev/zero | tr '\0' B)
for v in "%3Cscript%3Ealert(1)%3C%2Fscript%3E" "$LONG" "BCD%C3%89-FGHJ" "BCDF-GHJK-B"; do
	AUTH=none req GET "/device?user_code=$v"
	check "issue32.8: /device?user_code=${v:0:40}: the form again, 400" "$STATUS" 400
	has "issue32.8: ${v:0:40}: it says the code is unknown" "That code is unknown"
	lacks "issue32.8: ${v:0:40}: nothing of it echoed unescaped" "<script>alert"
done
# a NUL or bytes that are not UTF-8: the query is refused before the page
for v in "BCDF%00GHJK" "BCDF-GHJ%FF"; do
	AUTH=none req GET "/device?user_code=$v"
	check_err "issue32.8: /device?user_code=$v" 400 invalid_params
done
AUTH=none req GET "/device?user_code=$UC&user_code=$UC"
check "issue32.8: user_code twice" "$STATUS" 400
has "issue32.8: it says to send it once" "Send the code once."
dpage "/device?user_code=%3Cb%3E"
check "issue32.8: a hostile code signed in: 400 too" "$STATUS" 400
poll "$LONG" "$KIOSK"
check_err "issue32.8: a device_code of 10,000 characters" 400 invalid_grant
for v in "a%00b" "%FF%FE" "$DC%00"; do
	poll "$v" "$KIOSK"
	check_err "issue32.8: device_code ${v:0:40}: a malformed form" 400 invalid_params
done
poll "$DC" "$KIOSK%00"
check_err "issue32.8: a client_id with a NUL" 400 invalid_params
authorize "client_id=$LONG"
check_err "issue32.8: a client_id of 10,000 characters" 400 invalid_client
authorize "client_id=$KIOSK&scope=openid%FF"
check_err "issue32.8: a scope that is not UTF-8" 400 invalid_params
AUTH=none req GET /healthz
check_status "issue32.8: the server still answers" 200
check "issue32.8: no authorization came of them" "$(db "select count(*) from device_authorizations")" "$(db "select count(*) from events where action = 'device.request'")"

finish
