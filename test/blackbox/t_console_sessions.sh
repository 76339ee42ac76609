# The admin console's session pages (issue 29, docs/console.md): signing out
# of the console ends the session as /api/v1/logout does (issue29.4), the
# project's sessions and a user's, each endable, and resetting a user's
# second factors (issue29.6).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
live() { db "select count(*) from sessions where id = '$1' and ended_at is null"; }

console_admin
SID=$(db "select id from sessions where user_id = '$ADMIN_ID' and ended_at is null")

# ---- sign-out (issue29.4) ----
apage "$HOME_PATH"
check_status "issue29.4 the overview" 200
has "issue29.4 every page has the sign-out form" "action=\"${HOME_PATH}sign-out\""
has "issue29.4 ... a button" '>Sign out</button>'
TOK=$(form_token)
SITE_H=cross-site apost "${HOME_PATH}sign-out"
check_status "issue29.4 a cross-site sign-out: 403" 403
check "issue29.4 ... the session lives" "$(live "$SID")" 1
TOKEN_F=wrong apost "${HOME_PATH}sign-out"
check_status "issue29.4 a wrong token: 403" 403
check "issue29.4 ... the session lives" "$(live "$SID")" 1
ORIGIN_H=http://evil.example apost "${HOME_PATH}sign-out"
check_status "issue29.4 another origin: 403" 403
check "issue29.4 ... the session lives" "$(live "$SID")" 1
apost "${HOME_PATH}sign-out"
check_status "issue29.4 signed out" 200
has "issue29.4 the signed-out page" "You are signed out"
check "issue29.4 the session ended" "$(live "$SID")" 0
check "issue29.4 session.end by the user" \
	"$(db "select actor from events where action = 'session.end' and target = '$SID'")" "$ADMIN_ID"
check_header "issue29.4 the cookie goes" '^Set-Cookie: [^=]+=; .*Max-Age=0'
apage "$HOME_PATH"
check_status "issue29.4 the console asks for a sign-in again" 302
apost "${HOME_PATH}sign-out"
check_status "issue29.4 a second sign-out: 403 (no session)" 403


# ---- the project's sessions, each endable (issue29.6) ----
JAR=$WHO_JAR console_sign_in admin@example.com "admin password"
SID=$(db "select id from sessions where user_id = '$ADMIN_ID' and ended_at is null")
req POST "$P/users" '{"display_name":"Bob <b>","email":"bob@example.com","password":"bob password"}'
BOB=$(jq -r .id <<<"$BODY")
JAR=$TMP/bob1 console_sign_in bob@example.com "bob password"
JAR=$TMP/bob2 console_sign_in bob@example.com "bob password"
BOB1=$(db "select id from sessions where user_id = '$BOB' and ended_at is null order by created_at, id limit 1")
BOB2=$(db "select id from sessions where user_id = '$BOB' and ended_at is null and id <> '$BOB1'")
apage "$HOME_PATH"
has "issue29.6 users:read shows the Sessions link" "<a href=\"${HOME_PATH}sessions\">Sessions</a>"
apage "${HOME_PATH}sessions"
check_status "issue29.6 the sessions page" 200
check_header "issue29.6 X-Frame-Options" '^X-Frame-Options: DENY$'
has "issue29.6 Bob's sessions, his name escaped" ">Bob &lt;b&gt;</a>"
lacks "issue29.6 ... no markup" "<b>"
check "issue29.6 three live sessions, each with its end button" "$(grep -c '>End this session</button>' <<<"$BODY")" 3
has "issue29.6 ... posting to its end" "action=\"${HOME_PATH}sessions/$BOB1/end\""
TOK=$(form_token)
SITE_H=cross-site apost "${HOME_PATH}sessions/$BOB1/end"
check_status "issue29.6 a cross-site end: 403" 403
check "issue29.6 ... the session lives" "$(live "$BOB1")" 1
apost "${HOME_PATH}sessions/$BOB1/end"
check_status "issue29.6 end a session" 302
check "issue29.6 back to the sessions" "$(location)" "${HOME_PATH}sessions"
check "issue29.6 ... it ended" "$(live "$BOB1")" 0
check "issue29.6 ... session.end by the user" \
	"$(db "select actor from events where action = 'session.end' and target = '$BOB1'")" "$ADMIN_ID"
JAR=$TMP/bob1 AUTH=none req GET "$HOME_PATH" -b "$TMP/bob1"
check_status "issue29.6 ... Bob's browser is signed out" 302

# ---- a user's sessions and second factors, on the user's page ----
db "INSERT INTO user_factors (user_id, kind, secret, created_at, confirmed_at)
    VALUES ('$BOB', 'totp', 'sealed', 1, 2)" > /dev/null
apage "${HOME_PATH}users/$BOB"
check_status "issue29.6 Bob's page" 200
has "issue29.6 his live session, endable" "action=\"${HOME_PATH}users/$BOB/sessions/$BOB2/end\""
check "issue29.6 ... only his" "$(grep -c '>End this session</button>' <<<"$BODY")" 1
has "issue29.6 the reset of his second factors" ">Reset the second factors</a>"
TOK=$(form_token)
apost "${HOME_PATH}users/$BOB/sessions/$SID/end"
check_status "issue29.6 another user's session through Bob's page" 302
check "issue29.6 ... ends nothing" "$(live "$SID")" 1
apost "${HOME_PATH}users/$BOB/sessions/$BOB2/end"
check_status "issue29.6 end Bob's session on his page" 302
check "issue29.6 back to his page" "$(location)" "${HOME_PATH}users/$BOB"
check "issue29.6 ... it ended" "$(live "$BOB2")" 0
apage "${HOME_PATH}users/$BOB/factors"
check_status "issue29.6 the reset's confirmation" 200
has "issue29.6 ... one button" ">Reset the second factors</button>"
check "issue29.6 the confirmation resets nothing" "$(db "select count(*) from user_factors where user_id = '$BOB'")" 1
TOK=$(form_token)
apost "${HOME_PATH}users/$BOB/factors"
check_status "issue29.6 reset" 302
check "issue29.6 ... his factors went" "$(db "select count(*) from user_factors where user_id = '$BOB'")" 0
check "issue29.6 ... audited as the user's" \
	"$(db "select actor from events where action = 'user.reset_factors' and target = '$BOB'")" "$ADMIN_ID"
apage "${HOME_PATH}users/$BOB"
lacks "issue29.6 no factors: no reset link" "Reset the second factors"

# ---- users:read alone: sessions seen, none endable ----
console_user rita readers users:read
apage "${HOME_PATH}sessions"
check_status "issue29.6 users:read: the sessions page" 200
no_form "issue29.6 users:read: no end button"
apage "$HOME_PATH"; TOK=$(form_token)
apost "${HOME_PATH}sessions/$SID/end"
check_status "issue29.6 users:read: an end post is refused" 403
check "issue29.6 ... the session lives" "$(live "$SID")" 1
apage "${HOME_PATH}users/$BOB/factors"
check_status "issue29.6 users:read: the reset's confirmation is refused" 403

finish
