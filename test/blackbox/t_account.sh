# A user's own account (docs/signin.md §"email_verified"): email_verified, true when the email
# was last set through the management API and false after the user set it
# through PUT /api/v1/users/current (null without an email); and the
# recent-sign-in rule: PUT /api/v1/users/current that changes the email or
# sets a non-empty password needs a token whose auth_time is at most 300 s
# old, else 403 insufficient_permission (after invalid_params and
# user_not_found), and a refusal changes nothing.
#
# A sign-in's own access token carries auth_time (RFC 9068 §2.2.1), so a
# fresh sign-in's token is the recent one; with_auth_time (signin_lib.sh)
# makes the token of a stale or a barely recent sign-in by signing it again
# with the server's key file (waiting 300 s is no test). The barely recent
# one is used while the server's clock is frozen (libfaketime, lib.sh's
# fake_clock), so that no delay of a busy machine makes it stale
# (issue26.4).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
fake_clock
EDGEAUTH_WRAPPER=$FAKED start_server
REDIRECT="http://127.0.0.1:9/cb"
DENIED="403 insufficient_permission"
row() { db "select email, email_verified, password_hash, updated_at from users where id = '$1'"; }

req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")

########## email_verified in the record ##########
req POST "$P/users" '{"display_name":"Ann","email":"ann@example.com","password":"ann password"}'
check_status "create a user with an email" 201
check_json "email_verified follows email" 'keys_unsorted|join(",")' \
	"id,display_name,avatar_url,external_user_id,email,email_verified,is_active,role_id,role_name,second_factors,created_at,updated_at"
check_json "set by the management API: verified" .email_verified true
ANN=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Bo","external_user_id":"bo"}'
check_json "no email: null" .email_verified null
BO=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Cy","email":"cy@example.com","password":"cy password"}'
check_status "a third user" 201
req GET "$P/users/external/bo?include_permissions=true"
check_json "by external ID too" .email_verified null
req GET "$P/users?page_size=100"
check_json "and in the list" "[.data[]|.email_verified]|sort|tostring" '[null,true,true]'

########## the rule ##########
SIGNIN_FROM=$(date +%s)
sign_in "$APP" "$REDIRECT" ann@example.com "ann password"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check "signed in" "${ACCESS:0:3}" "eyJ"
OWN=$ACCESS
# the sign-in's second: after the sign-in began, not after the exchange (a
# bound on the time between, which a busy machine stretches, is no test)
AT=$(jwt_claim "$OWN" auth_time)
check "a sign-in's token carries auth_time, now" \
	"$(( SIGNIN_FROM <= AT && AT <= $(date +%s) ))" 1
RECENT=$OWN
STALE=$(with_auth_time "$OWN" 310)

expect "Bearer $OWN" 200 "a fresh sign-in's own token changes the email" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann2@example.com"}'
req PUT "$P/users/$ANN" '{"display_name":"Ann","email":"ann@example.com","is_active":true}'
check_json "the administrator sets it back: verified" .email_verified true

BEFORE=$(row "$ANN")
expect "Bearer $STALE" "$DENIED" "a stale sign-in changes the email" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann2@example.com"}'
check_json "the refusal says why" .error_description "Changing the email needs a recent sign-in."
check_header "403 names the scope" '^WWW-Authenticate: Bearer error="insufficient_scope"'
expect "Bearer $STALE" "$DENIED" "a stale sign-in sets a password" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann@example.com","password":"new password 1"}'
check_json "the refusal says why" .error_description "Setting a password needs a recent sign-in."
check "the refusals changed nothing" "$(row "$ANN")" "$BEFORE"

BEFORE=$(row "$ANN")
for body in '{"display_name":"Ann","email":"ann2@example.com"}' \
	'{"display_name":"Ann","email":"ANN@example.com"}' \
	'{"display_name":"Ann","email":"ann@example.com","password":"new password 1"}' \
	'{"display_name":"Ann","email":"ann2@example.com","password":"new password 1"}'; do
	expect "Bearer $STALE" "$DENIED" "a stale sign-in (310 s): $body" PUT /api/v1/users/current "$body"
done
check "stale refusals changed nothing" "$(row "$ANN")" "$BEFORE"
expect "Bearer $STALE" 200 "a stale sign-in keeps its email and renames" PUT /api/v1/users/current \
	'{"display_name":"Ann A","email":"ann@example.com","avatar_url":"https://img.example/a.png","password":""}'
check_json "renamed" .display_name "Ann A"
check_json "still verified" .email_verified true
expect "Bearer $STALE" 200 "a stale sign-in: password null is no password" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann@example.com","password":null}'

# the order: invalid_params, user_not_found, then 403; then the conflicts
expect "Bearer $STALE" "400 invalid_params" "invalid_params before 403" PUT /api/v1/users/current \
	'{"display_name":"","email":"ann2@example.com","password":"new password 1"}'
expect "Bearer $STALE" "400 invalid_params" "a short password is invalid_params first" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann@example.com","password":"short"}'
expect "Bearer $TOKEN" "404 user_not_found" "a client token: user_not_found before 403" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann2@example.com","password":"new password 1"}'
expect "Bearer $STALE" "$DENIED" "403 before user_email_already_used" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"cy@example.com"}'

# a recent sign-in (280 s, 5 s) may; the user's own email is not verified
# (280 s old by the server's clock, frozen until it has been used)
FROZEN=$(date +%s)
freeze "$FROZEN"
BARELY=$(NOW_S=$FROZEN with_auth_time "$OWN" 280)
expect "Bearer $BARELY" 200 "a sign-in 280 s old changes the email" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann.b@example.com"}'
step +0
check_json "set by the user: not verified" .email_verified false
req GET "$P/users/$ANN"
check_json "the record says so" .email_verified false
check "stored" "$(db "select CAST(email_verified AS INTEGER) from users where id='$ANN'")" 0
expect "Bearer $RECENT" 200 "the same email sent back keeps it unverified" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann.b@example.com"}'
check_json "still unverified" .email_verified false
expect "Bearer $RECENT" 200 "a recent sign-in sets a password" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"ann.b@example.com","password":"new password 1"}'
sign_in "$APP" "$REDIRECT" ann.b@example.com "new password 1"
check "the new password signs in" "$([ -n "$CODE" ] && echo yes)" yes
# a new password ends the user's sessions (docs/signin.md §"Sessions"), and with them
# the sign-ins made in them: the token that set it too
expect "Bearer $RECENT" "401 invalid_authorization_token" "the new password revoked the session's token" \
	GET /api/v1/users/current
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
RECENT=$(with_auth_time "$ACCESS" 5)
expect "Bearer $RECENT" "409 user_email_already_used" "a recent sign-in meets the conflict" PUT /api/v1/users/current \
	'{"display_name":"Ann","email":"CY@example.com"}'

# the management API vouches again; clearing the email makes it null
req PUT "$P/users/$ANN" '{"display_name":"Ann","email":"ann.b@example.com","is_active":true}'
check_json "the administrator sets the same email: verified" .email_verified true
expect "Bearer $RECENT" 200 "the user changes it again" PUT /api/v1/users/current '{"display_name":"Ann","email":"ann.c@example.com"}'
check_json "unverified again" .email_verified false
req PUT "$P/users/$ANN" '{"display_name":"Ann","external_user_id":"ann","is_active":true}'
check_json "an update that omits the email keeps it as it was" '[.email,.email_verified]|tostring' '["ann.c@example.com",false]'
req PUT "$P/users/$ANN" '{"display_name":"Ann","email":"ann.d@example.com","is_active":true}'
check_json "a new email from the administrator: verified" .email_verified true
req PUT "$P/users/$BO" '{"display_name":"Bo","external_user_id":"bo","email":"bo@example.com","is_active":true}'
check_json "an email added by the administrator: verified" .email_verified true
req PUT "$P/users/$BO" '{"display_name":"Bo","external_user_id":"bo","email":null,"is_active":true}'
check_json "email cleared: null" .email_verified null

finish
