# Roles that require a second factor (docs/signin.md §"Second factors",
# issue 30): the role's requires_second_factor (default false, a boolean,
# roles:update turns it on and off, the CLI's --requires-second-factor);
# a user of such a role without a factor enrolls TOTP right after the
# password (the secret as QR code and text, codes from oathtool), bound to
# the first step (single use, of its own request, expiring), gets ten
# recovery codes once with a Continue form to the app's redirect, and an
# ID token whose amr is ["pwd","otp","mfa"]; wrong codes count in the
# throttle; a session without a factor signs in silently no more
# (the form, or login_required for prompt=none). Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
command -v oathtool > /dev/null || { fail "oathtool is needed (scripts/install-deps test)"; finish; exit 1; }
fake_clock
MPORT=$(free_port)
EDGEAUTH_WRAPPER=$FAKED start_server metrics.listen=127.0.0.1:$MPORT signin.max_failures=5
rita_and_app
load_resources
JAR=$TMP/jar

########## the role's field ##########
req GET "$P/roles/$ROLE"
check_json "issue30.7: a role requires no second factor by default" .requires_second_factor false
expect "Bearer $TOKEN" "400 invalid_params" "issue30.7: a string is no boolean" \
	POST "$P/roles" '{"code":"x","name":"X","requires_second_factor":"yes"}'
check_json "issue30.7: ... the message names the field" .error_description "requires_second_factor must be true or false"
expect "Bearer $TOKEN" "400 invalid_params" "issue30.7: nor is null" \
	PUT "$P/roles/$ROLE" '{"code":"reader","name":"Reader","requires_second_factor":null}'
expect "Bearer $TOKEN" 201 "issue30.7: created requiring it" \
	POST "$P/roles" '{"code":"strict","name":"Strict","requires_second_factor":true}'
check_json "issue30.7: the record says so" .requires_second_factor true
STRICT=$(jq -r .id <<<"$BODY")
req GET "$P/roles?search=strict"
check_json "issue30.7: and the list" '.data[0].requires_second_factor' true
expect "Bearer $TOKEN" 200 "issue30.7: an update without it" PUT "$P/roles/$STRICT" '{"code":"strict","name":"Stricter"}'
check_json "issue30.7: ... keeps it" .requires_second_factor true

# docs/decisions.md "Who may require a second factor": roles:update, within
# the no-escalation rule, turns it on and off
new_client roleupd roles:update
UPD=$(client_token "$CID" "$CSECRET")
expect "Bearer $UPD" 200 "issue30.7: roles:update turns it off" \
	PUT "$P/roles/$STRICT" '{"code":"strict","name":"Strict","requires_second_factor":false}'
check_json "issue30.7: ... off" .requires_second_factor false
expect "Bearer $UPD" 200 "issue30.7: and on" \
	PUT "$P/roles/$STRICT" '{"code":"strict","name":"Strict","requires_second_factor":true}'
expect "Bearer $UPD" "403 insufficient_permission" \
	"issue30.7: not for a role holding a permission the caller lacks" \
	PUT "$P/roles/$ROLE" '{"code":"reader","name":"Reader","requires_second_factor":true}'
new_client roleread roles:read
expect "Bearer $(client_token "$CID" "$CSECRET")" "403 insufficient_permission" \
	"issue30.7: not without roles:update" \
	PUT "$P/roles/$STRICT" '{"code":"strict","name":"Strict","requires_second_factor":false}'
req GET "$P/roles/$ROLE"
check_json "issue30.7: a refused change changes nothing" .requires_second_factor false
check "issue30.7: changes are audited as role updates" \
	"$(db "SELECT count(*) FROM events WHERE action = 'role.update' AND target = '$STRICT'")" 3

# the CLI
run role add --project "$PROJECT_ID" --code cli-strict --name "CLI strict" --requires-second-factor --json
check_ok "issue30.7: role add --requires-second-factor"
check "issue30.7: ... prints it" "$(jq -c .requires_second_factor <<<"$OUT")" true
run role add --project "$PROJECT_ID" --code cli-plain --name "CLI plain" --json
check "issue30.7: role add without the flag" "$(jq -c .requires_second_factor <<<"$OUT")" false
run role list --project "$PROJECT_ID" --json
check "issue30.7: role list shows it" \
	"$(jq -c '[.[]|select(.code|startswith("cli-"))|.requires_second_factor]' <<<"$OUT")" '[true,false]'

########## enrollment before the code ##########
# a live session of rita's from before her role required a factor
JAR=$JAR sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check "issue30.8: a password sign-in while not required" "$STATUS" 302
req PUT "$P/roles/$ROLE" '{"code":"reader","name":"Reader","requires_second_factor":true}'
check_status "issue30.8: the role now requires it" 200
JAR=$JAR authorize_get "$APP" "$REDIRECT"
check "issue30.8: the session without a factor signs in silently no more: the form" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY")" "200 1"
JAR=$JAR authorize_get "$APP" "$REDIRECT" prompt=none
check "issue30.8: prompt=none: login_required" "$(query_value "$LOCATION" error)" login_required

# enroll_token: the enrollment step's value in the page (BODY); SECRET its key
enroll_token() { sed -n 's/.*name="enroll_token" value="\([^"]*\)".*/\1/p' <<<"$BODY"; }
page_secret() {
	URI=$(grep -o '<code>otpauth://[^<]*</code>' <<<"$BODY" | sed 's/<code>//; s/<\/code>//; s/&amp;/\&/g')
	SECRET=$(sed -n 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/p' <<<"$URI")
}
code_at() { oathtool --totp -b "$SECRET" --now "@$1"; }
# user_of NAME ROLE WHAT: a user NAME@example.com (password "NAME password")
# of ROLE, checked as WHAT; its browser's jar is JAR from then on
user_of() {
	req POST "$P/users" "$(jq -cn --arg n "$1" --arg r "$2" \
		'{display_name:$n,email:($n+"@example.com"),password:($n+" password"),role_id:$r}')"
	check_status "$3" 201
	JAR=$TMP/$1-jar
	new_pkce
}
# new_app BODY WHAT: a client of BODY (JSON), checked as WHAT, into NEW_APP
new_app() {
	req POST "$P/clients" "$1"
	check_status "$2" 201
	NEW_APP=$(jq -r .id <<<"$BODY")
}
# enrolled NAME CLIENT REDIRECT [STATE]: NAME's password, then the set-up's
# step with the code at T0 + 731 (the answer in STATUS, BODY)
enrolled() {
	JAR=$JAR authorize_post "$2" "$3" "$1@example.com" "$1 password" "${4:-}"
	TOK=$(enroll_token); page_secret
	JAR=$JAR authorize_post "$2" "$3" "" "" "${4:-}" "enroll_token=$TOK" "otp=$(code_at $((T0 + 731)))"
}
# enroll_step TOKEN CODE [extra]: posts the enrollment step
enroll_step() {
	local tok=$1 code=$2; shift 2
	JAR=$JAR authorize_post "$APP" "$REDIRECT" "" "" "st-1" "enroll_token=$tok" "otp=$code" "$@"
}

T0=$(( ($(date +%s) / 30 + 10) * 30 + 5 ))
freeze "$T0"
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-1" scope=openid
check "issue30.8: a right password shows the enrollment" "$STATUS" 200
TOK=$(enroll_token)
page_secret
check "issue30.8: ... with the step's value" "$([ -n "$TOK" ] && echo yes)" yes
check "issue30.8: ... the key as text (160 bits)" "${#SECRET}" 32
check "issue30.8: ... and as a QR code, inline SVG" "$(grep -c '<svg ' <<<"$BODY")" 1
check "issue30.8: no code and no session before the factor" \
	"$LOCATION $(grep -ci '^set-cookie' <<<"$HDRS")" " 0"
check_header "issue30.8: the page has the sign-in page's CSP" "^Content-Security-Policy: default-src 'none'; style-src 'sha256-"
check "issue30.8: no script on the page" "$(grep -c '<script' <<<"$BODY")" 0
check "issue30.8: the secret is stored sealed, waiting" \
	"$(db "SELECT count(*) FROM user_factors WHERE user_id = '$USER' AND confirmed_at IS NULL AND secret NOT LIKE '%$SECRET%'")" 1

enroll_step "$TOK" 000000 scope=openid
[ "$(code_at "$T0")" = 000000 ] && enroll_step "$TOK" 999999 scope=openid
check "issue30.8: a wrong code answers the step again" "$STATUS $(enroll_token)" "401 $TOK"
page_secret
check "issue30.8: ... with the same key" "${#SECRET}" 32
check "issue30.8: the failure is audited" \
	"$(db "SELECT count(*) FROM events WHERE action = 'factor.failure' AND target = '$USER'")" 1
FIRST=$CHALLENGE FIRST_VERIFIER=$VERIFIER
new_pkce
enroll_step "$TOK" "$(code_at "$T0")" scope=openid
check "issue30.8: another request's value starts again" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY")" "401 1"
CHALLENGE=$FIRST VERIFIER=$FIRST_VERIFIER
enroll_step "tampered$TOK" "$(code_at "$T0")" scope=openid
check "issue30.8: a tampered value starts again" "$STATUS" 401
enroll_step "$TOK" "$(code_at "$T0")" scope=openid
check "issue30.8: the right code: the recovery codes page" "$STATUS" 200
check "issue30.8: ... with the session" "$(grep -ci '^set-cookie: edgeauth' <<<"$HDRS")" 1
RCODES=$(grep -o '<td>[a-z2-7-]\{32\}</td>' <<<"$BODY" | sed 's/<[^>]*>//g' | tr '\n' ' ')
check "issue30.8: ten recovery codes, shown once" "$(printf '%s\n' $RCODES | sort -u | wc -l | tr -d ' ')" 10
check "issue30.8: stored as hashes" \
	"$(db "SELECT count(*) FROM recovery_codes WHERE user_id = '$USER' AND used_at IS NULL")" 10
ACTION=$(sed -n 's/.*<form method="get" action="\([^"]*\)".*/\1/p' <<<"$BODY")
check "issue30.8: Continue goes to the app's redirect URI" "$ACTION" "$REDIRECT"
hidden() { sed -n "s/.*name=\"$1\" value=\"\\([^\"]*\\)\".*/\\1/p" <<<"$BODY" | head -1; }
CODE=$(hidden code)
check "issue30.8: ... carrying state and iss" "$(hidden state) $(hidden iss)" "st-1 $BASE"
check "issue30.8: no referrer leaves the page, and no cache keeps it" \
	"$(grep -ci -e '^referrer-policy: no-referrer' -e '^cache-control: no-store' <<<"$HDRS")" 2
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue30.8: its code is redeemed" 200
check "issue30.8: the ID token's amr" \
	"$(jwt_claim "$(jq -r .id_token <<<"$BODY")" amr | jq -c .)" '["pwd","otp","mfa"]'
req GET "$P/users/$USER"
check_json "issue30.8: the user has TOTP now" '.second_factors|tostring' '["totp"]'
check "issue30.8: enrollment and codes are audited" \
	"$(db "SELECT action || ' ' || actor FROM events WHERE action IN ('factor.enroll', 'factor.recovery_codes') ORDER BY action")" \
	"factor.enroll $APP
factor.recovery_codes $APP"
check "issue30.8: and counted" "$(metric "$MPORT" 'edgeauth_totp_total{outcome="enrolled"}')" 1
enroll_step "$TOK" "$(code_at "$T0")" scope=openid
check "issue30.8: a replayed value starts again" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY")" "401 1"
JAR=$JAR authorize_get "$APP" "$REDIRECT" scope=openid
check "issue30.8: the new session signs in silently" "$STATUS" 302
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check "issue30.8: ... with its amr" \
	"$(jwt_claim "$(jq -r .id_token <<<"$BODY")" amr | jq -c .)" '["pwd","otp","mfa"]'

# from now on the second step, as for any user with a factor
freeze $((T0 + 30))
new_pkce
JAR= authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-1"
check "issue30.8: the next sign-in asks for the code" \
	"$STATUS $(grep -c 'name="factor_token"' <<<"$BODY") $(grep -c 'name="enroll_token"' <<<"$BODY")" "200 1 0"

# wrong codes count in the throttle (max_failures=5); a new user of the role
req POST "$P/users" "$(jq -cn --arg r "$ROLE" '{display_name:"Sam",email:"sam@example.com",password:"sam password",role_id:$r}')"
check_status "issue30.8: another user of the role" 201
SAM=$(jq -r .id <<<"$BODY")
new_pkce
EMAIL=sam@example.com
JAR= authorize_post "$APP" "$REDIRECT" "$EMAIL" "sam password" "st-1"
TOK=$(enroll_token); page_secret
for i in 1 2 3 4 5; do enroll_step "$TOK" 000000; [ "$(code_at $((T0 + 30)))" = 000000 ] && enroll_step "$TOK" 999999; done
enroll_step "$TOK" "$(code_at $((T0 + 30)))"
check "issue30.8: past the limit even the right code is throttled" "$STATUS" 429
check "issue30.8: ... and nothing was enrolled" \
	"$(db "SELECT count(*) FROM user_factors WHERE user_id = '$SAM' AND confirmed_at IS NOT NULL")" 0
check "issue30.8: the throttle is audited" \
	"$(db "SELECT count(*) FROM events WHERE action = 'signin.throttled' AND target = '$SAM'")" 1

# the value expires; a later password shows a new key, which spends the old value
freeze $((T0 + 30 + 400))
new_pkce
JAR= authorize_post "$APP" "$REDIRECT" "$EMAIL" "sam password" "st-1"
TOK=$(enroll_token); page_secret; OLD_SECRET=$SECRET
JAR= authorize_post "$APP" "$REDIRECT" "$EMAIL" "sam password" "st-1"
TOK2=$(enroll_token); page_secret; SECRET2=$SECRET
check "issue30.8: another sign-in shows another key" "$([ "$SECRET2" != "$OLD_SECRET" ] && echo yes)" yes
SECRET=$OLD_SECRET
enroll_step "$TOK" "$(code_at $((T0 + 430)))"
check "issue30.8: the first sign-in's value is spent by the second's key" \
	"$STATUS $(grep -c 'name="password"' <<<"$BODY")" "401 1"
freeze $((T0 + 30 + 400 + 301))
SECRET=$SECRET2
enroll_step "$TOK2" "$(code_at $((T0 + 731)))"
check "issue30.8: an expired value starts again" "$STATUS" 401
check "issue30.8: no secret, value or code in the server's log" \
	"$(grep -c -e "$SECRET" -e "$TOK" -e "${RCODES%% *}" "$TMP/server.log")" 0

# a client that asks for consent: the recovery codes come first on its page
TOKEN=$(admin_token)   # the frozen clock went past the first one's expiry
new_app "{\"name\":\"third\",\"redirect_uris\":[\"$REDIRECT\"],\"consent_required\":true}" \
	"issue30.8: a client that asks for consent"
THIRD=$NEW_APP
user_of cy "$ROLE" "issue30.8: a third user of the role"
enrolled cy "$THIRD" "$REDIRECT" st-1
CTOK=$(sed -n 's/.*name="consent_token" value="\([^"]*\)".*/\1/p' <<<"$BODY")
check "issue30.8: after the enrollment, the consent page" "$STATUS $([ -n "$CTOK" ] && echo token)" "200 token"
check "issue30.8: ... with the ten recovery codes on top" \
	"$(grep -o '<td>[a-z2-7-]\{32\}</td>' <<<"$BODY" | sort -u | wc -l | tr -d ' ')" 10
JAR=$JAR authorize_post "$THIRD" "$REDIRECT" "" "" "st-1" "consent_token=$CTOK" consent=allow
check "issue30.8: Allow issues the code through the new session" \
	"$STATUS $([ -n "$(query_value "$LOCATION" code)" ] && echo code)" "302 code"

# a redirect URI with a query of its own: Continue's form carries it as fields
new_app '{"name":"queried","redirect_uris":["http://127.0.0.1:9/cb?tenant=a%20b"]}' \
	"issue30.8: a client whose redirect URI has a query"
user_of eve "$ROLE" "issue30.8: a fourth user of the role"
enrolled eve "$NEW_APP" "http://127.0.0.1:9/cb?tenant=a%20b" st-1
ACTION=$(sed -n 's/.*<form method="get" action="\([^"]*\)".*/\1/p' <<<"$BODY")
check "issue30.8: Continue's form: the URI without its query, the query's fields and the code's" \
	"$STATUS $ACTION $(hidden tenant) $(hidden state) $([ -n "$(hidden code)" ] && echo code)" \
	"200 http://127.0.0.1:9/cb a b st-1 code"

# the console's own sign-in (the account page): Continue goes back to it
ACCOUNT="$BASE/account?project_id=$PROJECT_ID"
user_of fay "$ROLE" "issue30.8: a fifth user of the role"
enrolled fay "console.$PROJECT_ID" "$ACCOUNT"
check "issue30.8: the account page's sign-in enrolls too, then Continue to the page" \
	"$STATUS $(sed -n 's/.*<form method="get" action="\([^"]*\)".*/\1/p' <<<"$BODY" | sed 's/&amp;/\&/g') $(hidden project_id)" \
	"200 $BASE/account $PROJECT_ID"

# a session at its bound of codes a minute ([sessions] max_codes_per_minute):
# the recovery codes first all the same, and Continue asks again
EDGEAUTH_WRAPPER=$FAKED restart_server metrics.listen=127.0.0.1:$MPORT sessions.max_codes_per_minute=1
req POST "$P/roles" '{"code":"later","name":"Later"}'
LATER=$(jq -r .id <<<"$BODY")
user_of dee "$LATER" "issue30.8: a user of a role without the requirement"
JAR=$JAR authorize_post "$APP" "$REDIRECT" dee@example.com "dee password" "st-1"
check "issue30.8: her first code of the minute" "$STATUS" 302
req PUT "$P/roles/$LATER" '{"code":"later","name":"Later","requires_second_factor":true}'
new_pkce
enrolled dee "$APP" "$REDIRECT" st-1
check "issue30.8: past the session's codes: the recovery codes all the same" \
	"$STATUS $(grep -o '<td>[a-z2-7-]\{32\}</td>' <<<"$BODY" | sort -u | wc -l | tr -d ' ')" "200 10"
ACTION=$(sed -n 's/.*<form method="get" action="\([^"]*\)".*/\1/p' <<<"$BODY")
check "issue30.8: ... and Continue asks again" "$ACTION $(hidden client_id) $(hidden code)" \
	"$BASE/api/v1/authorize $APP "

finish
