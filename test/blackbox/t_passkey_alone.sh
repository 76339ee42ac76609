# A passkey alone (issue 30, docs/signin.md §"Passkeys"): the sign-in page
# offers "Sign in with a passkey" (a discoverable credential, its challenge
# bound to the request), the assertion (made by webauthn_tool.py) signs in
# with amr ["hwk","user"], and each refusal (an unknown credential, another
# project's passkey, another user's userHandle, no user verification, a
# challenge of another request, a replay, a count that goes back, a disabled
# user) answers the sign-in page with 401 and no code; the refusals count in
# the throttle (by address when no user is known), the audit trail and the
# metrics. The issuer is http://localhost:PORT: an RP ID must be a host
# name. Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
MPORT=$(free_port)
SERVER_PORT=$(free_port)
ISSUER="http://localhost:$SERVER_PORT"
start_server "server.issuer=$ISSUER" metrics.listen=127.0.0.1:$MPORT signin.max_failures_per_address=30
rita_and_app
. "$(dirname "$0")/passkey_lib.sh"
b64u() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
HANDLE=$(b64u "$USER")

# ---- two passkeys of Rita's, registered on her passkeys page ----
new_pkce
JAR=$JAR authorize_post "console.$PROJECT_ID" "$ISSUER$PAGE" "$EMAIL" "$PASSWORD"
check "issue30.passkey.6: signed in to the passkeys page" "$STATUS" 302
register "$TMP/k1"
K1=$CRED
NAME=Synced register "$TMP/k2" "$ISSUER" localhost 0x4d   # BE: may be backed up
K2=$CRED
register "$TMP/k3"
K3=$CRED
check "issue30.passkey.6: three passkeys registered" \
	"$(db "SELECT count(*) FROM user_passkeys WHERE user_id = '$USER'")" 3

# ---- the sign-in page offers it ----
# page_of: the app's sign-in page (no session) with a new PKCE pair; sets
# PTOKEN and CH, its passkey value and challenge
page_of() { JAR= authorize_get "$APP" "$REDIRECT" scope=openid; PTOKEN=$(field passkey_token); CH=$(data challenge); }
page_of
check_status "issue30.passkey.6: the sign-in page" 200
has "issue30.passkey.6: offers a passkey alone" "Sign in with a passkey"
has "issue30.passkey.6: ... in a form hidden until the script runs" 'id="passkey-alone" hidden'
lacks "issue30.passkey.6: ... allowing any discoverable credential" "data-allow"
has "issue30.passkey.6: ... the password form stays" 'name="password"'
HASH=$(curl -s "$BASE/account/passkeys.js" | openssl dgst -sha256 -binary | base64)
check_header "issue30.passkey.6: the page's CSP lets the one script run, by hash" \
	"^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; script-src 'sha256-$HASH'$"
check "issue30.passkey.6: the script asks for user verification" \
	"$(curl -s "$BASE/account/passkeys.js" | grep -c 'userVerification: alone ? "required"')" 1

# alone KEYFILE COUNT [FLAGS]: the page's passkey form, answered (UH: the
# userHandle, PT: the value, CHAL: the challenge signed); sets CODE
alone() {
	set -- $($TOOL assert "$1" "${CHAL:-$CH}" "$ISSUER" localhost "$2" ${3:-})
	ANSWER=("passkey_token=${PT:-$PTOKEN}" "passkey_id=$1" "passkey_client_data=$2"
		"passkey_auth_data=$3" "passkey_signature=$4" "passkey_user_handle=${UH-$HANDLE}")
	authorize_post "$APP" "$REDIRECT" "" "" st-1 scope=openid "${ANSWER[@]}"
	CODE=$(query_value "$LOCATION" code)
}
# refused WHAT: 401, the sign-in page again, no code
refused() {
	check "issue30.passkey.6: $1: 401, the sign-in page, no code" \
		"$STATUS $(grep -c 'name="password"' <<<"$BODY") [$CODE]" "401 1 []"
	has "issue30.passkey.6: $1: ... one sentence for all" "The passkey was not accepted."
}

# ---- refusals ----
authorize_post "$APP" "$REDIRECT" "" "" st-1 scope=openid "passkey_token=$PTOKEN"
check "issue30.passkey.6: the passkey form without an assertion: the sign-in page, nothing counted" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY") $(db "SELECT count(*) FROM events WHERE action = 'factor.failure'")" "401 1 0"
alone "$TMP/k9" 1
refused "an unknown credential"
NP=$("$EDGEAUTH" -c "$CONF" project create --name other 2> /dev/null)
OTHER=$(jq -r .project_id <<<"$NP")
OTHER_USER=$(printf 'their password\n' | "$EDGEAUTH" -c "$CONF" user add --project "$OTHER" \
	--email "$EMAIL" --name Theirs --password-stdin --json 2> /dev/null | jq -r .id)
db "UPDATE user_passkeys SET user_id = '$OTHER_USER' WHERE credential_id = '$K3'" > /dev/null
UH=$(b64u "$OTHER_USER") alone "$TMP/k3" 1
refused "a passkey of another project"
UH=$(b64u "$OTHER_USER") alone "$TMP/k1" 1
refused "the userHandle of another user"
UH= alone "$TMP/k1" 1
refused "no userHandle"
alone "$TMP/k1" 1 0x01
refused "no user verification (UV)"
PTOKEN_A=$PTOKEN CH_A=$CH
page_of
CHAL=$CH_A alone "$TMP/k1" 1
refused "the challenge of another sign-in request"
PT=$PTOKEN_A alone "$TMP/k1" 1
check "issue30.passkey.6: the value of another request: the sign-in page again" \
	"$STATUS $(grep -c 'took too long' <<<"$BODY") [$CODE]" "401 1 []"
check "issue30.passkey.6: the refusals moved no passkey" \
	"$(db "SELECT sum(sign_count) || ' ' || COALESCE(max(last_used_at), 0) FROM user_passkeys")" "0 0"

# ---- a passkey alone signs in ----
alone "$TMP/k1" 1
check "issue30.passkey.6: the passkey signs in" "$STATUS $(query_value "$LOCATION" state)" "302 st-1"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue30.passkey.6: its code is redeemed" 200
check "issue30.passkey.6: amr says hardware key and user (verified by the device)" \
	"$(jwt_claim "$(jq -r .id_token <<<"$BODY")" 'amr|tostring')" '["hwk","user"]'
check "issue30.passkey.6: the ID token's subject is Rita" "$(jwt_claim "$(jq -r .id_token <<<"$BODY")" sub)" "$USER"
alone "$TMP/k1" 1
refused "the same assertion again"
alone "$TMP/k1" 2
refused "another assertion with a value used already"
page_of
alone "$TMP/k1" 1
refused "a sign count that does not grow"
check "issue30.passkey.6: ... and logged" "$(grep -c 'sign count went back' "$TMP/server.log")" 1
alone "$TMP/k1" 2
check "issue30.passkey.6: the next count signs in" "$STATUS" 302
page_of
alone "$TMP/k2" 1 0x0d
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check "issue30.passkey.6: a passkey that may be backed up (BE): amr swk user" \
	"$(jwt_claim "$(jq -r .id_token <<<"$BODY")" 'amr|tostring')" '["swk","user"]'

# ---- prompt=login and max_age ask again, the passkey offered ----
page_of
SJAR=$TMP/jar-alone
JAR=$SJAR alone "$TMP/k1" 3
check "issue30.passkey.6: a sign-in with a session cookie" "$STATUS" 302
JAR=$SJAR authorize_get "$APP" "$REDIRECT" scope=openid
check "issue30.passkey.6: the session signs in silently" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
for ask in prompt=login max_age=0; do
	JAR=$SJAR authorize_get "$APP" "$REDIRECT" scope=openid "$ask"
	check "issue30.passkey.6: $ask asks again, offering the passkey" \
		"$STATUS $(grep -c 'Sign in with a passkey' <<<"$BODY")" "200 1"
done

# a disabled user, last: a code made in the second of a deactivation would
# count as made before it
page_of
req PUT "$P/users/$USER" "{\"display_name\":\"Rita\",\"email\":\"$EMAIL\",\"is_active\":false}"
check_status "issue30.passkey.6: Rita disabled" 200
alone "$TMP/k1" 4
refused "a disabled user"

# ---- audit, metrics and the throttle ----
check "issue30.passkey.6: refusals and uses are audited (the user named when of this project)" \
	"$(db "SELECT action || ' ' || COALESCE(target, '-') || ' ' || count(*) FROM events WHERE action IN ('factor.use', 'factor.failure') AND actor = '$APP' GROUP BY action, target ORDER BY action, COALESCE(target, '')")" \
	"factor.failure - 2
factor.failure $USER 8
factor.use $USER 4"
check "issue30.passkey.6: uses are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="used"}')" 4
check "issue30.passkey.6: failures are counted" "$(metric "$MPORT" 'edgeauth_passkeys_total{outcome="failed"}')" 10
check "issue30.passkey.6: no credential or handle in the log" \
	"$(grep -c -e "$K1" -e "$HANDLE" "$TMP/server.log")" 0
# an unknown credential counts by the address: 10 refusals so far of 30
page_of
for i in $(seq 1 25); do
	alone "$TMP/k9" 1
	[ "$STATUS" = 429 ] && break
done
check "issue30.passkey.6: unknown credentials are throttled by address" \
	"$STATUS $i $(grep -c too_many_attempts <<<"$BODY")" "429 21 1"
finish
