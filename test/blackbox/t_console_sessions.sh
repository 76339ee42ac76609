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

finish
