# Token lifecycle: expiry (the server's clock stepped past the TTLs), BYOU
# codes, the current user, simultaneous uses of one refresh token or code
# (exactly one wins), and the purge.
# (issue26.4: TTLs of a minute or two, never raced by a slow machine; the
# expiries are the server's clock, libfaketime, on both backends: a code's
# and a refresh token's expires_at and the check against it are the node's)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
CODE_TTL=60 REFRESH_TTL=120
fake_clock
EDGEAUTH_WRAPPER=$FAKED start_server tokens.code_ttl_s=$CODE_TTL tokens.refresh_ttl_s=$REFRESH_TTL \
	tokens.purge_interval_s=1 tokens.purge_grace_s=2
keepalive_client

reader_user bob@example.com "correct horse" Bob
req POST "$P/users" '{"display_name":"Carol","email":"carol@example.com","password":"battery staple"}'
check_status "second user" 201
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)

# --- expiry ---
sign_in "$APP" "$REDIRECT" bob@example.com "correct horse"
step +$((CODE_TTL + 1))
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_err "expired code" 400 auth_code_expired
signed_in "$APP" "$REDIRECT" bob@example.com "correct horse"
check_status "fresh code" 200
OLD_REFRESH=$REFRESH
refresh "$APP" "$OLD_REFRESH"
check_status "issue26.4: a fresh refresh token rotates" 200
OLD_REFRESH=$REFRESH
step +$((CODE_TTL + 1 + REFRESH_TTL + 1))
refresh "$APP" "$OLD_REFRESH"
check_err "expired refresh token" 400 refresh_token_expired
# the clock back to the real one: what follows runs in real time (on
# PostgreSQL the database's cut-offs, e.g. a new password's, are compared
# with the tokens' iat, the node's)
step +0
TOKEN=$(admin_token)

# --- the current user ---
signed_in "$APP" "$REDIRECT" bob@example.com "correct horse"
check_status "a sign-in for the current user" 200
USER_TOKEN=$ACCESS
# docs/signin.md §"Recent sign-in": the email and the password change only with a token of a
# recent sign-in: this one, which carries auth_time; t_account.sh tests the rule
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com","avatar_url":"https://img.example/r.png"}'
check_status "update current user" 200
check_json "current user name" .display_name Robert
check_json "current user email" .email robert@example.com
check_json "current user keeps role" .role_id "$ROLE"
check_json "current user still active" .is_active true
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com","avatar_url":null,"password":""}'
check_json "avatar removed" .avatar_url null
sign_in "$APP" "$REDIRECT" robert@example.com "correct horse"
check "empty password keeps the password" "$([ -n "$CODE" ] && echo yes)" yes
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com","password":"new secret 1"}'
check_status "change password" 200
sign_in "$APP" "$REDIRECT" robert@example.com "new secret 1"
check "new password works" "$([ -n "$CODE" ] && echo yes)" yes
# a new password ends the user's sessions (docs/signin.md §"Sessions"), and with them
# the sign-ins made in them
AUTH="Bearer $USER_TOKEN" req GET /api/v1/users/current
check_err "the new password revoked the earlier sign-in" 401 invalid_authorization_token
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
USER_TOKEN=$ACCESS
RECENT_TOKEN=$(recent_token "$USER_TOKEN")
AUTH="Bearer $RECENT_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"CAROL@example.com"}'
check_err "current user email taken" 409 user_email_already_used
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com","role_id":7,"external_user_id":["x"],"is_active":"no"}'
check_status "current user: role_id, external_user_id, is_active are not fields here, ignored" 200
check_json "current user: still the role, no external ID, active" '[.role_id,.external_user_id,.is_active]|tojson' "[\"$ROLE\",null,true]"
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert"}'
check_err "current user without email" 400 invalid_params
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"not an email"}'
check_err "current user bad email" 400 invalid_params
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com","password":"short"}'
check_err "current user short password" 400 invalid_params
AUTH="Bearer $USER_TOKEN" req PUT /api/v1/users/current '{"display_name":"","email":"robert@example.com"}'
check_err "current user empty name" 400 invalid_params
req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com"}'
check_err "current user with a client token" 404 user_not_found
AUTH=none req PUT /api/v1/users/current '{"display_name":"Robert","email":"robert@example.com"}'
check_err "current user without a token" 401 invalid_authorization_token

# --- BYOU codes ---
req POST "$P/users" "{\"display_name\":\"Dave\",\"external_user_id\":\"ext-42\",\"role_id\":\"$ROLE\"}"
DAVE=$(printf '%s' "$BODY" | jq -r .id)
new_pkce
BYOU="$P/users/external/ext-42/authorization-codes"
req POST "$BYOU" "{\"client_id\":\"$APP\",\"redirect_uri\":\"$REDIRECT\",\"code_challenge\":\"$CHALLENGE\",\"code_challenge_method\":\"S256\"}"
check_status "byou code" 201
check_header "byou code is not cached" '^Cache-Control: no-store'
check_json "byou expires_in" .expires_in "$CODE_TTL"
CODE=$(printf '%s' "$BODY" | jq -r .code)
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "byou code exchange" 200
check "byou token sub" "$(jwt_claim "$ACCESS" sub)" "$DAVE"
check_json "byou scope" .scope users:read
body() { jq -cn --arg c "$1" --arg r "$2" --arg ch "$3" --arg m "$4" '{client_id:$c,redirect_uri:$r,code_challenge:$ch,code_challenge_method:$m}'; }
req POST "$P/users/external/nobody/authorization-codes" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou unknown user" 404 user_not_found
check_header "byou error is not cached either" '^Cache-Control: no-store'
req POST "$BYOU" "$(body nope "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou unknown client" 404 client_not_found
req POST "$BYOU" "$(body "$APP" "$REDIRECT" "$CHALLENGE" plain)"
check_err "byou plain method" 400 invalid_params
req POST "$BYOU" "$(body "$APP" "$REDIRECT" "" S256)"
check_err "byou no challenge" 400 invalid_params
req POST "$BYOU" "$(body "$APP" "http://127.0.0.1:9/other" "$CHALLENGE" S256)"
check_err "byou unregistered redirect" 400 invalid_params
req POST "$BYOU" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256 | jq -c 'del(.code_challenge_method)')"
check_err "byou no method" 400 invalid_params
req POST "$BYOU" "not json"
check_err "byou malformed body" 400 invalid_params
req POST "/api/v1/projects/nope/users/external/ext-42/authorization-codes" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou unknown project" 404 project_not_found
req PUT "$P/users/$DAVE" '{"display_name":"Dave","is_active":false,"external_user_id":"ext-42"}'
req POST "$BYOU" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou inactive user" 400 invalid_params
req PUT "$P/users/$DAVE" '{"display_name":"Dave","is_active":true,"external_user_id":"ext-42"}'
req PUT "$P/clients/$APP" '{"name":"app","is_active":false}'
req POST "$BYOU" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou inactive client" 400 invalid_params
req PUT "$P/clients/$APP" '{"name":"app","is_active":true}'
next_second   # the codes below come after the reactivation's second
req POST "$P/clients" '{"name":"limited","permission_ids":[]}'
LIM_ID=$(printf '%s' "$BODY" | jq -r .id); LIM_SECRET=$(printf '%s' "$BODY" | jq -r .client_secret)
AUTH="Bearer $(client_token "$LIM_ID" "$LIM_SECRET")" req POST "$BYOU" "$(body "$APP" "$REDIRECT" "$CHALLENGE" S256)"
check_err "byou without users:update" 403 insufficient_permission

# --- races: N simultaneous uses, exactly one 200 ---
race() { # race FORM_FILE N: fires N token requests at once, prints the sorted statuses
	local n=$2
	for i in $(seq 1 "$n"); do
		curl -s -o /dev/null -w '%{http_code}\n' --data @"$1" "$BASE/api/v1/tokens" > "$TMP/race.$i" &
	done
	wait
	cat "$TMP"/race.* | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '
	rm -f "$TMP"/race.*
}
sign_in "$APP" "$REDIRECT" carol@example.com "battery staple"
printf 'grant_type=authorization_code&client_id=%s&redirect_uri=%s&code=%s&code_verifier=%s' \
	"$APP" "$REDIRECT" "$CODE" "$VERIFIER" > "$TMP/code.form"
check "one code, 16 at once" "$(race "$TMP/code.form" 16)" "200x1 400x15"
signed_in "$APP" "$REDIRECT" carol@example.com "battery staple"
check_status "a sign-in for the refresh race" 200
printf 'grant_type=refresh_token&client_id=%s&refresh_token=%s' "$APP" "$REFRESH" > "$TMP/refresh.form"
check "one refresh token, 16 at once" "$(race "$TMP/refresh.form" 16)" "200x1 400x15"

# --- the purge: expired codes, refresh tokens and revocations go ---
check "rows exist before expiry" "$([ "$(db 'select count(*) from refresh_tokens')" -gt 0 ] && echo yes)" yes
# access tokens live 900 s here: an entry for one that expired is put in by
# hand (times from this machine's clock, which the server shares)
check "an expired revocation put in" \
	"$(db "insert into revoked_tokens values ('expired-jti', $(( $(date +%s) - 10 ))) returning 1")" 1
# issue26.4: the codes and refresh tokens expired long ago, by every clock
# (the purge reads the database's on PostgreSQL, which no step reaches):
# their rows are aged rather than waited for
# (a code of just now among them: the earlier ones may have gone by now, on
# a slow machine, as they should)
AGE_MS=$(( (CODE_TTL + REFRESH_TTL) * 1000 + 600000 ))
sign_in "$APP" "$REDIRECT" carol@example.com "battery staple"
AGED=$(db "update auth_codes set expires_at = expires_at - $AGE_MS returning 1" | grep -c .)
check "issue26.4: expired codes to purge" "$([ "$AGED" -gt 0 ] && echo yes)" yes
db "update refresh_tokens set expires_at = expires_at - $AGE_MS" > /dev/null
# what expired more than the grace (2 s) and a tick (1 s) ago goes, at the
# purge's next ticks: waited for by state
expired_left() {
	local now_s; now_s=$(date +%s)
	echo "$(db "select count(*) from auth_codes where expires_at < $(( now_s * 1000 - 3500 ))")"\
"$(db "select count(*) from refresh_tokens where expires_at < $(( now_s * 1000 - 3500 ))")"\
"$(db "select count(*) from revoked_tokens where expires_at < $now_s")"
}
eventually 120 eval '[ "$(expired_left)" = 000 ]'
NOW_S=$(date +%s)
check "expired codes purged" "$(db "select count(*) from auth_codes where expires_at < $(( NOW_S * 1000 - 3500 ))")" 0
check "expired refresh tokens purged" "$(db "select count(*) from refresh_tokens where expires_at < $(( NOW_S * 1000 - 3500 ))")" 0
check "expired revocations purged" "$(db "select count(*) from revoked_tokens where expires_at < $NOW_S")" 0
check "the expired revocation is gone" "$(db "select count(*) from revoked_tokens where jti = 'expired-jti'")" 0

finish
