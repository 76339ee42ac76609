# The account page (issue 30, docs/signin.md "Account page"): /account?project_id=P,
# a user's own, signed in through the project's sign-in page (the console's
# reserved client, coming back to the page); the user, their live sessions
# (each can be ended, one's own only), the password changed with the
# current one (a new password ends the user's sessions, as a password
# change does). A change needs a sign-in at most 300 s old, else the page
# sends the user to sign in again (prompt=login): the server's clock is
# frozen and moved with libfaketime, never waited for. Every post needs the
# session's form token, our Origin and a same-origin Sec-Fetch-Site: else
# 403 and nothing changed. issue30.1 names these checks. Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
fake_clock
T0=$(date +%s)
freeze "$T0"
EDGEAUTH_WRAPPER=$FAKED start_server signin.max_failures_per_account=4
. "$(dirname "$0")/console_lib.sh"
rita_and_app
ACCOUNT="/account?project_id=$PROJECT_ID"
ENC_ID=$(jq -rn --arg v "$PROJECT_ID" '$v|@uri')
JAR=$TMP/jar; WHO_JAR=$JAR

# account_sign_in JAR EMAIL PASSWORD [extra form fields]: the sign-in form
# as a browser posts it after the account page's redirect
account_sign_in() {
	local jar=$1 email=$2 password=$3; shift 3
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$jar" -c "$jar"
		-H "Origin: $BASE" --data-urlencode response_type=code
		--data-urlencode "client_id=$CONSOLE" --data-urlencode "redirect_uri=$BASE$ACCOUNT"
		--data-urlencode "email=$email" --data-urlencode "password=$password")
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	STATUS=$(curl "${args[@]}" "$BASE/api/v1/authorize")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
hash_of() { db "select password_hash from users where id = '$1'"; }
live_sessions() { db "select count(*) from sessions where user_id = '$1' and ended_at is null"; }

# ---- without a session: to the sign-in page and back ----
apage "$ACCOUNT"
check_status "issue30.1: no session: redirect" 302
SIGNIN=$(location)
check "issue30.1: to the authorize endpoint" "${SIGNIN%%\?*}" "$BASE/api/v1/authorize"
check "issue30.1: as the project's built-in client" "$(query_value "$SIGNIN" client_id)" "$CONSOLE"
check "issue30.1: back to the account page" "$(query_value "$SIGNIN" redirect_uri)" "$BASE$ACCOUNT"
AUTH=none req GET "${SIGNIN#"$BASE"}" -b "$JAR" -c "$JAR"
check_status "issue30.1: the sign-in form for the account page" 200
has "issue30.1: the form names the account" "Sign in to your account"
apage "/account"
check_status "issue30.1: no project_id: 400" 400
apage "/account?project_id=nope"
check_status "issue30.1: an unknown project: 404" 404
AUTH=none req GET "/api/v1/authorize?response_type=code&client_id=$CONSOLE&redirect_uri=$BASE/account?project_id=other"
check_status "issue30.1: the page of another project is no redirect URI" 400

# ---- signed in: the page ----
req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" '{display_name:"<b>Rita & \"co'"'"'</b>",email:$e,is_active:true}')"
check_status "issue30.1: a name to escape" 200
account_sign_in "$JAR" "$EMAIL" "$PASSWORD"
check_status "issue30.1: the sign-in" 302
check "issue30.1: comes back to the account page" "$(location)" "$BASE$ACCOUNT"
apage "$ACCOUNT"
check_status "issue30.1: the account page" 200
check_header "issue30.1: the console's CSP" \
	"^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'$"
check_header "issue30.1: X-Frame-Options" '^X-Frame-Options: DENY$'
check_header "issue30.1: no-store" '^Cache-Control: no-store$'
check "issue30.1: no script" "$(grep -c '<script' <<<"$BODY")" 0
has "issue30.1: the user's email" "$EMAIL"
has "issue30.1: the name escaped" "&lt;b&gt;Rita &amp; &quot;co&#39;&lt;/b&gt;"
lacks "issue30.1: no raw markup of the name" "<b>Rita"
has "issue30.1: no second factor yet" "<td>none</td>"
has "issue30.1: this session listed" "this one"
has "issue30.1: the password form" 'name="current_password"'
has "issue30.1: the form posts to the password action" "action=\"/account/password?project_id=$ENC_ID\""
TOK=$(form_token)
check "issue30.1: a form token" "$([ -n "$TOK" ] && echo yes)" yes
OWN_SID=$(db "select id from sessions where user_id = '$USER' and ended_at is null")

# ---- a second session of hers, and another user's ----
account_sign_in "$TMP/jar2" "$EMAIL" "$PASSWORD"
check_status "issue30.1: a second session" 302
SID2=$(db "select id from sessions where user_id = '$USER' and ended_at is null and id <> '$OWN_SID'")
reader2() { req POST "$P/users" "$(jq -cn '{display_name:"Bob",email:"bob@example.com",password:"bob password",role_id:"'"$ROLE"'"}')"; }
reader2; BOB=$(jq -r .id <<<"$BODY")
account_sign_in "$TMP/jar3" bob@example.com "bob password"
BOB_SID=$(db "select id from sessions where user_id = '$BOB' and ended_at is null")
apage "$ACCOUNT"
check "issue30.1: both of her sessions listed" "$(grep -c 'started ' <<<"$BODY")" 2
check "issue30: the account page links to the passkeys page" \
	"$(grep -c 'href="[^"]*/account/passkeys?project_id=' <<<"$BODY")" 1
lacks "issue30.1: not another user's session" "$BOB_SID"

# ---- posts: token, Origin, Sec-Fetch-Site; nothing changed when refused ----
TOKEN_F=none apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: a post without the form token: 403" 403
TOKEN_F=wrong apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: a wrong form token: 403" 403
ORIGIN_H=http://evil.example apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: another Origin: 403" 403
SITE_H=cross-site apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: Sec-Fetch-Site cross-site: 403" 403
WHO_JAR=$TMP/nojar apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: a post without a session: 403" 403
check "issue30.1: refused posts ended nothing" "$(live_sessions "$USER")" 2
CTOK=$(AUTH=none req GET "/console/projects/$PROJECT_ID/" -b "$JAR" -c "$JAR" >/dev/null; form_token)
TOKEN_F=${CTOK:-x} apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: the console's form token is not the account page's" 403

# ---- ending sessions: her own only ----
apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$BOB_SID"
check_status "issue30.1: another user's session: 404" 404
check "issue30.1: his session lives on" "$(live_sessions "$BOB")" 1
apost "/account/sessions/end?project_id=$ENC_ID" "session_id=$SID2"
check_status "issue30.1: ending her other session" 302
check "issue30.1: back to the page" "$(location)" "$ACCOUNT"
check "issue30.1: that session ended" \
	"$(db "select ended_at is not null from sessions where id = '$SID2'" | tr -d ' ')" "$(db "select 1=1" | tr -d ' ')"
WHO_JAR=$TMP/jar2 apage "$ACCOUNT"
check_status "issue30.1: the ended session's browser signs in again" 302
check "issue30.1: the end is audited as hers" \
	"$(db "select actor || ' ' || target from events where action = 'session.end'")" "$USER $SID2"
apage "$ACCOUNT"
check_status "issue30.1: this session goes on" 200

# ---- the password ----
OLD_HASH=$(hash_of "$USER")
apost "/account/password?project_id=$ENC_ID" "current_password=wrong password" "new_password=rita's new password"
check_status "issue30.1: a wrong current password: 403" 403
has "issue30.1: says so" "The current password is wrong"
apost "/account/password?project_id=$ENC_ID" "current_password=$PASSWORD" "new_password=short"
check_status "issue30.1: the API's password rules: 400" 400
check "issue30.1: refused changes keep the hash" "$(hash_of "$USER")" "$OLD_HASH"

# a sign-in older than 300 s: the page asks for the password again
freeze $((T0 + 301))
apage "$ACCOUNT"
check_status "issue30.1: an old sign-in still shows the page" 200
lacks "issue30.1: no password form after 300 s" 'name="current_password"'
AGAIN=$(grep -o 'href="[^"]*prompt=login[^"]*"' <<<"$BODY" | head -1 | sed 's/^href="//; s/"$//; s/&amp;/\&/g')
check "issue30.1: a link to sign in again" "$(query_value "$AGAIN" redirect_uri)" "$BASE$ACCOUNT"
TOK=$(form_token)
apost "/account/password?project_id=$ENC_ID" "current_password=$PASSWORD" "new_password=rita's new password"
check_status "issue30.1: a change after 300 s: 403" 403
check "issue30.1: nothing changed" "$(hash_of "$USER")" "$OLD_HASH"
AUTH=none req GET "${AGAIN#"$BASE"}" -b "$JAR" -c "$JAR"
check_status "issue30.1: prompt=login shows the form to a live session" 200
account_sign_in "$JAR" "$EMAIL" "$PASSWORD" prompt=login
check_status "issue30.1: signed in again" 302
check "issue30.1: the same session goes on" "$(db "select id from sessions where user_id = '$USER' and ended_at is null")" "$OWN_SID"
freeze $((T0 + 301 + 299))
apage "$ACCOUNT"
has "issue30.1: the form again, 299 s after the new sign-in" 'name="current_password"'
TOK=$(form_token)
apost "/account/password?project_id=$ENC_ID" "current_password=$PASSWORD" "new_password=rita's new password"
check_status "issue30.1: the password changed" 200
has "issue30.1: the page says the sessions ended" "sign in again"
check "issue30.1: a new hash" "$([ "$(hash_of "$USER")" != "$OLD_HASH" ] && echo yes)" yes
check "issue30.1: her sessions ended" "$(live_sessions "$USER")" 0
check "issue30.1: his did not" "$(live_sessions "$BOB")" 1
check "issue30.1: the change is audited as hers" \
	"$(db "select count(*) from events where action = 'user.update' and actor = '$USER' and target = '$USER'")" 1
new_pkce
authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check_status "issue30.1: the old password no longer signs in" 401
authorize_post "$APP" "$REDIRECT" "$EMAIL" "rita's new password"
check_status "issue30.1: the new one does" 302

# wrong current passwords count in the sign-in throttle's account counter
account_sign_in "$JAR" "$EMAIL" "rita's new password"
apage "$ACCOUNT"
TOK=$(form_token)
for i in 1 2 3 4; do
	apost "/account/password?project_id=$ENC_ID" "current_password=guess $i" "new_password=rita's third password"
done
check_status "issue30.1: the fourth wrong current password" 403
apost "/account/password?project_id=$ENC_ID" "current_password=rita's new password" "new_password=rita's third password"
check_status "issue30.1: past the account's limit even the right one waits: 429" 429
new_pkce
authorize_post "$APP" "$REDIRECT" "$EMAIL" "rita's new password"
check_status "issue30.1: and so does the sign-in page" 429
finish
