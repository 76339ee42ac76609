# Second factors (docs/signin.md §"Second factors", issue 30): the user
# record's second_factors, the administrator's reset by the API (DELETE
# /users/{id}/factors: users:update, no escalation, 204, the user's
# sessions end) and by the CLI (`user reset-factors`), with their audit
# events. Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
MPORT=$(free_port)
start_server metrics.listen=127.0.0.1:$MPORT
rita_and_app
load_resources
JAR=$TMP/jar

# enrolled: a confirmed TOTP row (the account page makes it in the tests below)
enroll_row() {
	db "DELETE FROM user_factors WHERE user_id = '$1'" > /dev/null
	db "INSERT INTO user_factors (user_id, kind, secret, created_at, confirmed_at)
	    VALUES ('$1', 'totp', 'sealed', 1, 2)" > /dev/null
}

# session_live: the browser's session signs in without the form
session_live() {
	JAR=$JAR authorize_get "$APP" "$REDIRECT"
	[ "$STATUS" = 302 ] && [ -n "$CODE" ]
}

req GET "$P/users/$USER"
check_json "issue30.2: a user without factors" '.second_factors|tostring' '[]'
JAR=$JAR sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check "issue30.2: a session before the reset" "$STATUS" 302
session_live; check "issue30.2: the session signs in silently" "$?" 0
enroll_row "$USER"
req GET "$P/users/$USER"
check_json "issue30.2: second_factors lists TOTP" '.second_factors|tostring' '["totp"]'
req GET "$P/users?search=rita"
check_json "issue30.2: and in the list" '.data[0].second_factors|tostring' '["totp"]'
db "UPDATE user_factors SET confirmed_at = NULL WHERE user_id = '$USER'" > /dev/null
req GET "$P/users/$USER"
check_json "issue30.2: an enrollment not confirmed is not listed" '.second_factors|tostring' '[]'
enroll_row "$USER"
check "issue30.2: no secret in the record" "$(printf '%s' "$BODY" | grep -c sealed)" 0

# no escalation: users:update alone cannot reset a reader (users:read)
new_client updater users:update
UPDATER=$(client_token "$CID" "$CSECRET")
expect "Bearer $UPDATER" "403 insufficient_permission" "issue30.2: reset of a user whose role holds more" \
	DELETE "$P/users/$USER/factors"
new_client reader users:read
expect "Bearer $(client_token "$CID" "$CSECRET")" "403 insufficient_permission" \
	"issue30.2: reset without users:update" DELETE "$P/users/$USER/factors"
check "issue30.2: a refused reset keeps the factor" \
	"$(db "SELECT count(*) FROM user_factors WHERE user_id = '$USER'")" 1
session_live; check "issue30.2: a refused reset keeps the session" "$?" 0

new_client resetter users:update users:read
expect "Bearer $(client_token "$CID" "$CSECRET")" 204 "issue30.2: reset by the API" \
	DELETE "$P/users/$USER/factors"
check "issue30.2: the API reset answers no body" "$BODY" ""
req GET "$P/users/$USER"
check_json "issue30.2: no factor after the reset" '.second_factors|tostring' '[]'
session_live; check "issue30.2: the reset ended the session" "$?" 1
check "issue30.2: the session shows the form" "$STATUS" 200
check "issue30.2: the reset is audited" \
	"$(db "SELECT actor || ' ' || target || ' ' || outcome FROM events WHERE action = 'user.reset_factors'")" \
	"$CID $USER success"
expect "Bearer $TOKEN" 204 "issue30.2: a reset without factors is no error" DELETE "$P/users/$USER/factors"
expect "Bearer $TOKEN" "404 user_not_found" "issue30.2: reset of an unknown user" \
	DELETE "$P/users/nobody/factors"
check "issue30.2: resets are counted" "$(metric "$MPORT" edgeauth_factor_resets_total)" 2

# the CLI
JAR=$JAR sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
enroll_row "$USER"
run user reset-factors --project "$PROJECT_ID" "$EMAIL" --json
check_ok "issue30.2: reset-factors"
check "issue30.2: reset-factors prints the record without factors" \
	"$(printf '%s' "$OUT" | jq -c '[.id, .second_factors]')" "[\"$USER\",[]]"
check "issue30.2: reset-factors removed the factor" \
	"$(db "SELECT count(*) FROM user_factors WHERE user_id = '$USER'")" 0
settled() { ! session_live; }
wait_for settled; check "issue30.2: reset-factors ended the session" "$?" 0
check "issue30.2: reset-factors is audited as the CLI's" \
	"$(db "SELECT count(*) FROM events WHERE action = 'user.reset_factors' AND actor = 'cli'")" 1
run user reset-factors --project "$PROJECT_ID" nobody@example.com
check_fail "issue30.2: reset-factors of an unknown user" user_not_found
run user reset-factors --project "$PROJECT_ID"
check_usage "issue30.2: reset-factors without USER" "USER" "user reset-factors"

finish
