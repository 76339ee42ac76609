# Passkeys (issue 30, docs/signin.md §"Passkeys"): the user's own page
# /account/passkeys, signed in through the project's sign-in page as the
# console is; registration (WebAuthn attestation "none", made here by
# webauthn_tool.py, an authenticator written from the spec), its refusals,
# the list, removal, the recent-password rule, the CSP that pins the one
# script by hash, second_factors, the audit trail and the metrics. The
# issuer is http://localhost:PORT: an RP ID must be a host name. Issue 31: an
# app's access rule refuses the passkey step too (access.denied). Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
MPORT=$(free_port)
SERVER_PORT=$(free_port)
ISSUER="http://localhost:$SERVER_PORT"
start_server "server.issuer=$ISSUER" metrics.listen=127.0.0.1:$MPORT
rita_and_app
. "$(dirname "$0")/passkey_lib.sh"

# ---- not signed in: to the sign-in page and back ----
page
check_status "issue30.passkey.3: no session" 302
BACK=$(query_value "$(location)" redirect_uri)
check "issue30.passkey.3: the sign-in comes back to the page" "$BACK" "$ISSUER$PAGE"
check "issue30.passkey.3: as the console's client" "$(query_value "$(location)" client_id)" "console.$PROJECT_ID"
STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR" \
	-H "Origin: $ISSUER" --data-urlencode response_type=code \
	--data-urlencode "client_id=console.$PROJECT_ID" --data-urlencode "redirect_uri=$ISSUER$PAGE" \
	--data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" "$BASE/api/v1/authorize")
HDRS=$(cat "$TMP/hdrs")
check "issue30.passkey.3: the sign-in answers" "$STATUS" 302
check "issue30.passkey.3: ... back to the page" "$(location)" "$ISSUER$PAGE"

# ---- the page ----
page
check_status "issue30.passkey.3: the page" 200
has "issue30.passkey.3: no passkey yet" "You have no passkey yet."
has "issue30.passkey.3: says passkeys need JavaScript" "Adding a passkey needs JavaScript"
has "issue30.passkey.3: the RP ID is the issuer's host" 'data-rp-id="localhost"'
has "issue30.passkey.3: user.id is the user's opaque ID" "data-user-id=\"$USER\""
HASH=$(curl -s "$BASE/account/passkeys.js" | openssl dgst -sha256 -binary | base64)
check_header "issue30.passkey.3: the CSP pins the script by hash" \
	"^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; script-src 'sha256-$HASH'; form-action 'self'$"
has "issue30.passkey.3: the script tag carries the same hash" "integrity=\"sha256-$HASH\""
check "issue30.passkey.3: no inline script" "$(grep -c '<script>' <<<"$BODY")" 0
check "issue30.passkey.3: no unsafe-inline" "$(grep -ci 'unsafe-inline' <<<"$HDRS")" 0

# ---- registration ----
register "$TMP/k1"
check_status "issue30.passkey.3: a registration" 200
has "issue30.passkey.3: added" "The passkey was added."
has "issue30.passkey.3: listed by its name" "<strong>My laptop</strong>"
check "issue30.6: the first factor, a passkey, shows ten recovery codes" \
	"$(grep -o '<td>[a-z2-7-]\{32\}</td>' <<<"$BODY" | sort -u | wc -l | tr -d ' ')" 10
req GET "$P/users/$USER"
check_json "issue30.passkey.3: second_factors lists passkey" '.second_factors|tostring' '["passkey"]'
check "issue30.passkey.3: the credential is stored" \
	"$(db "SELECT count(*) FROM user_passkeys WHERE user_id = '$USER' AND credential_id = '$CRED'")" 1
check "issue30.6: ... stored as hashes" \
	"$(db "SELECT count(*) FROM recovery_codes WHERE user_id = '$USER' AND used_at IS NULL")" 10

# refusals: each leaves nothing stored
page; FTOK=$(field form_token); CH=$(data challenge); ISSUED=$(field issued)
set -- $($TOOL register "$TMP/k2" "$CH" "http://evil.example" localhost)
post action=add "issued=$ISSUED" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: another origin is refused" 400
has "issue30.passkey.3: ... with a sentence" "could not be checked"
set -- $($TOOL register "$TMP/k2" "$CH" "$ISSUER" example.com)
post action=add "issued=$ISSUED" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: another RP ID is refused" 400
set -- $($TOOL register "$TMP/k2" "$CH" "$ISSUER" localhost)
post action=add "issued=$((ISSUED - 1))" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: a challenge of another time is refused" 400
post action=add "issued=$((ISSUED - 301000))" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: a challenge past its 300 s" 400
has "issue30.passkey.3: ... says so" "open too long"
set -- $($TOOL register "$TMP/k2" "$CH" "$ISSUER" localhost 0x44)
post action=add "issued=$ISSUED" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: no user presence is refused" 400
post action=add "issued=$ISSUED" "client_data=e30" "attestation_object=oA"
check_status "issue30.passkey.3: garbage is refused" 400
NAME=again register "$TMP/k1"
has "issue30.passkey.3: the same credential again adds nothing" "registered already"
set -- $($TOOL register "$TMP/k2" "$CH" "$ISSUER" localhost)
TOKEN_F=none post action=add "issued=$ISSUED" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: a post without the form token" 403
ORIGIN_H=http://evil.example post action=add "issued=$ISSUED" "client_data=$2" "attestation_object=$3"
check_status "issue30.passkey.3: a post from another origin" 403
check "issue30.passkey.3: refusals stored nothing" \
	"$(db "SELECT count(*) FROM user_passkeys WHERE user_id = '$USER'")" 1

# ---- a second one, then removal ----
NAME="Phone" register "$TMP/k3"
has "issue30.passkey.3: a second passkey" "<strong>Phone</strong>"
lacks "issue30.6: a second factor brings no new recovery codes" "Your recovery codes"
ID=$(db "SELECT id FROM user_passkeys WHERE name = 'Phone'")
post action=remove "id=$ID"
check_status "issue30.passkey.3: removal" 200
has "issue30.passkey.3: removed" "The passkey was removed."
lacks "issue30.passkey.3: no longer listed" "<strong>Phone</strong>"
post action=remove "id=$ID"
has "issue30.passkey.3: removing it again removes nothing" "no such passkey"

# ---- a sign-in older than 300 s asks for the password again ----
db "UPDATE sessions SET auth_time = auth_time - 301000 WHERE user_id = '$USER'" > /dev/null
page
has "issue30.passkey.3: an old sign-in is asked to confirm the password" "confirm your password"
has "issue30.passkey.3: ... through the sign-in page with prompt=login" "prompt=login"
lacks "issue30.passkey.3: ... and shows no registration form" 'id="passkey-add"'
ID=$(db "SELECT id FROM user_passkeys WHERE user_id = '$USER'")
post action=remove "id=$ID"
has "issue30.passkey.3: an old sign-in removes nothing" "Confirm your password first"
check "issue30.passkey.3: ... the passkey stays" "$(db "SELECT count(*) FROM user_passkeys WHERE user_id = '$USER'")" 1

# ---- audit and metrics ----
check "issue30.passkey.3: enrollments and removals are audited" \
	"$(db "SELECT action || ' ' || actor || ' ' || count(*) FROM events WHERE action LIKE 'factor.%' GROUP BY action, actor ORDER BY action")" \
	"factor.enroll $USER 2
factor.failure $USER 5
factor.recovery_codes $USER 1
factor.remove $USER 1"
check "issue30.passkey.3: registrations are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="registered"}')" 2
check "issue30.passkey.3: failures are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="failed"}')" 5
check "issue30.passkey.3: removals are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="removed"}')" 1
check "issue30.passkey.3: no key in the log" "$(grep -c "$CRED" "$TMP/server.log")" 0

# ---- signing in: a passkey as the second factor after the password ----
# second_step_passkey COUNT [KEYFILE] [CHALLENGE]: the factor page's passkey form, answered
second_step_passkey() {
	set -- $($TOOL assert "${2:-$TMP/k1}" "${3:-$(data challenge)}" "$ISSUER" localhost "$1")
	authorize_post "$APP" "$REDIRECT" "" "" "st-1" "scope=openid" "factor_token=$FTOKEN" \
		"passkey_id=$1" "passkey_client_data=$2" "passkey_auth_data=$3" "passkey_signature=$4"
	CODE=$(query_value "$LOCATION" code)
}
SJAR=$TMP/jar-signin
CRED=$($TOOL assert "$TMP/k1" x "$ISSUER" localhost 0 | cut -d' ' -f1)   # k1's credential ID
first_step() { new_pkce; JAR=$SJAR authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-1" "scope=openid"; FTOKEN=$(field factor_token); }
first_step
check "issue30.passkey.4: a right password asks for the second factor" "$STATUS" 200
has "issue30.passkey.4: the page offers the passkey" "Use a passkey"
has "issue30.passkey.4: ... allowing the user's credential" "data-allow=\"$CRED\""
check_header "issue30.passkey.4: the page's CSP lets the one script run, by hash" \
	"^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; script-src 'sha256-$HASH'$"
CH=$(data challenge)
second_step_passkey 1 "$TMP/k1" "AAAA$CH"
check "issue30.passkey.4: a wrong challenge is refused" "$STATUS" 401
has "issue30.passkey.4: ... the passkey is offered again" "Use a passkey"
second_step_passkey 1 "$TMP/k3" "$CH"
check "issue30.passkey.4: a removed passkey is refused" "$STATUS" 401
second_step_passkey 1 "$TMP/k1" "$CH"
check "issue30.passkey.4: the passkey signs in" "$STATUS" 302
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue30.passkey.4: its code is redeemed" 200
check "issue30.passkey.4: amr says password and hardware key" \
	"$(jwt_claim "$(jq -r .id_token <<<"$BODY")" 'amr|tostring')" '["pwd","hwk","mfa"]'
check "issue30.passkey.4: the sign count is stored" \
	"$(db "SELECT sign_count || ' ' || CASE WHEN last_used_at > 0 THEN 1 ELSE 0 END FROM user_passkeys WHERE credential_id = '$CRED'")" "1 1"
first_step
CH2=$(data challenge)
second_step_passkey 1
check "issue30.passkey.4: a sign count that does not grow is refused" "$STATUS" 401
check "issue30.passkey.4: ... and logged" "$(grep -c 'sign count went back' "$TMP/server.log")" 1
second_step_passkey 2
check "issue30.passkey.4: the next count signs in" "$STATUS" 302
second_step_passkey 3 "$TMP/k1" "$CH2"
check "issue30.6: a passkey's use spends the first step: another assertion with it starts again" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY")" "401 1"
check "issue30.passkey.4: uses and failures are audited" \
	"$(db "SELECT action || ' ' || count(*) FROM events WHERE action IN ('factor.use', 'factor.failure') AND actor = '$APP' GROUP BY action ORDER BY action")" \
	"factor.failure 3
factor.use 2"
check "issue30.passkey.4: uses are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="used"}')" 2

# ---- issue 31: the app's access rule holds on the passkey step too ----
req POST "$P/roles" '{"code":"pk-other","name":"Other","permission_ids":[]}'
PK_OTHER=$(jq -r .id <<<"$BODY")
req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":[\"$PK_OTHER\"]}"
check_status "issue31: the app kept to another role" 200
first_step
second_step_passkey 3
check "issue31: the passkey step of an excluded user: access_denied, with state and iss, no code" \
	"$STATUS $(query_value "$LOCATION" error) $(query_value "$LOCATION" state) $(query_value "$LOCATION" iss) [$CODE]" \
	"302 access_denied st-1 $ISSUER []"
req GET "$P/events?action=access.denied"
check "issue31: ... audited: access.denied by the user, of the app" \
	"$(jq -c '[.total, .data[0].actor, .data[0].target]' <<<"$BODY")" "[1,\"$USER\",\"$APP\"]"
req PUT "$P/clients/$APP" '{"name":"app","is_active":true,"allowed_role_ids":[]}'
check_status "issue31: the rule lifted" 200

# ---- the administrator's reset removes passkeys ----
expect "Bearer $TOKEN" 204 "issue30.passkey.2: reset" DELETE "$P/users/$USER/factors"
check "issue30.passkey.2: the reset removed the passkeys" "$(db "SELECT count(*) FROM user_passkeys WHERE user_id = '$USER'")" 0
finish
