# Sessions and single sign-on (docs/signin.md §"Password sign-in", §"Sessions"): the authorization
# request's OpenID Connect parameters and their errors, the session a
# password sign-in starts and its cookie (its flags, with an http and with
# an https issuer), single sign-on across two clients of a project with a
# curl cookie jar, prompt=none/login and max_age, cookies that name no
# session (another project's, tampered, expired, two of one name), the
# lifecycle (a sign-in continues the same user's session under a new value;
# another user's session ends), the ends of a session by deactivation, a new
# password and deletion, the purge, and the Origin check of the sign-in post.
# run.sh: early (one of the longest files: started first)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server tokens.purge_interval_s=1
keepalive_client   # req over one connection (lib.sh)
DB=$TMP/edgeauth.db
BROWSER=$TMP/jar   # the browser's cookie jar
# jar_value FILE NAME: a cookie's value in a curl cookie jar
jar_value() { awk -F'\t' -v n="$2" '$6 == n { v = $7 } END { print v }' "$1" 2>/dev/null; }
set_cookie() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: //p'; }
no_location() { if [ -z "$LOCATION" ]; then pass; else fail "$1: redirected to $LOCATION"; fi; }

# --- set-up: two users, two apps of the project ---
reader_user "alice@example.com" "alice password" "Alice"
ALICE=$USER
req POST "$P/users" '{"display_name":"Bob","email":"bob@example.com","password":"bob password"}'
BOB=$(jq -r .id <<<"$BODY")
RA="http://127.0.0.1:9/a"; RB="http://127.0.0.1:9/b"
req POST "$P/clients" "$(jq -cn --arg r "$RA" '{name:"App <A> & co",redirect_uris:[$r]}')"
A=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "$(jq -cn --arg r "$RB" '{name:"App B",redirect_uris:[$r]}')"
B=$(jq -r .id <<<"$BODY")
COOKIE_NAME="edgeauth_$PROJECT_ID"

########## the authorization request's OpenID Connect parameters ##########
authorize_get "$A" "$RA" "scope=openid email" "nonce=n-0 <x>" "prompt=login consent" "max_age=60" \
	"login_hint=alice@example.com"
check_status "the form" 200
check_header "pages say Referrer-Policy: same-origin" '^Referrer-Policy: same-origin$'
check "the page names the app, escaped" "$(grep -c '<h1>Sign in to App &lt;A&gt; &amp; co</h1>' "$TMP/body")" 1
check "and its title" "$(grep -c '<title>Sign in to App &lt;A&gt; &amp; co</title>' "$TMP/body")" 1
for kv in 'scope" value="openid email' 'nonce" value="n-0 &lt;x&gt;' 'prompt" value="login consent' \
	'max_age" value="60'; do
	check "the form carries $kv" "$(grep -c "name=\"$kv\"" "$TMP/body")" 1
done
check "login_hint fills the email field" "$(grep -c 'name="email" [^>]*value="alice@example.com"' "$TMP/body")" 1

# the errors: each redirects with state and iss
bad_request() {   # NAME WANT_ERROR extra query fields...
	local name=$1 want=$2; shift 2
	authorize_get "$A" "$RA" "$@"
	check "$name" "$STATUS $(query_value "$LOCATION" error) $(query_value "$LOCATION" state) $(query_value "$LOCATION" iss)" \
		"302 $want st-g $BASE"
}
bad_request "a request object" request_not_supported "request=eyJhbGciOiJub25lIn0.e30."
bad_request "request_uri" request_uri_not_supported "request_uri=https://rp.example/r/1"
bad_request "prompt=none with login" invalid_request "prompt=none login"
bad_request "prompt=none with an unknown value" invalid_request "prompt=consent none"
for v in -1 abc 2147483648 "" "1.5" " 5"; do
	bad_request "max_age '$v'" invalid_request "max_age=$v"
done
check "max_age's error_description" "$(query_value "$LOCATION" error_description)" \
	"max_age must be a whole number of seconds from 0 to 2147483647."
bad_request "a nonce of 513 characters" invalid_request "nonce=$(printf 'n%.0s' $(seq 513))"
authorize_get "$A" "$RA" "nonce=$(printf 'ü%.0s' $(seq 512))" "max_age=2147483647" "prompt=consent"
check "512 characters, max_age 2^31-1 and an unknown prompt are fine" "$STATUS" 200
# request and request_uri only after the client and redirect URI were checked
authorize_get nope "$RA" "request=x"
check "a request object of an unknown client: the page" "$STATUS" 400
no_location "unknown client"
authorize_get "$A" "http://evil.example/cb" "request_uri=https://rp.example/r"
check "request_uri to an unregistered URI: the page" "$STATUS" 400
no_location "unregistered redirect URI"

# the form's retries carry them, and the code stores them
new_pkce
authorize_post "$A" "$RA" alice@example.com wrong "st-1" "scope=roles openid foo profile" "nonce=n-1" "prompt=login" "max_age=0" "login_hint=x@example.com"
check_status "a wrong password" 401
check "no session without a password" "$(set_cookie)" ""
for kv in 'scope" value="roles openid foo profile' 'nonce" value="n-1' 'prompt" value="login' 'max_age" value="0' 'login_hint" value="x@example.com'; do
	check "the retry carries $kv" "$(grep -c "name=\"$kv\"" "$TMP/body")" 1
done
check "the retry shows the email typed" "$(grep -c 'name="email" [^>]*value="alice@example.com"' "$TMP/body")" 1
rm -f "$BROWSER"
T0=$(date +%s%3N)
JAR=$BROWSER authorize_post "$A" "$RA" alice@example.com "alice password" "st-1" "scope=roles openid foo profile" "nonce=n-1"
check_status "signed in" 302
CODE=$(query_value "$LOCATION" code)
CODE_ROW=$(db "select coalesce(scope,'NULL'), nonce, session_id, auth_time from auth_codes where hash = '$(secret_hash "$CODE")'")
check "the code stores the OIDC scopes asked for, in order" "$(cut -d'|' -f1 <<<"$CODE_ROW")" "openid profile roles"
check "and the nonce" "$(cut -d'|' -f2 <<<"$CODE_ROW")" "n-1"
SID=$(cut -d'|' -f3 <<<"$CODE_ROW")
AUTH_TIME=$(cut -d'|' -f4 <<<"$CODE_ROW")
check "and auth_time, the password check's" "$([ "$AUTH_TIME" -ge "$T0" ] && [ "$AUTH_TIME" -le "$(date +%s%3N)" ] && echo yes)" yes

########## the session and its cookie ##########
SETC=$(set_cookie)
COOKIE=$(jar_value "$BROWSER" "$COOKIE_NAME")
check "the cookie: name, a 256-bit value, flags (http issuer: Path=/, one Set-Cookie)" \
	"$(sed -E 's/=[A-Za-z0-9_-]{43};/=V;/' <<<"$SETC")" \
	"$COOKIE_NAME=V; Path=/; Max-Age=28800; HttpOnly; SameSite=Lax"
if grep -qi 'secure\|domain' <<<"$SETC"; then fail "an http cookie is not Secure and has no Domain"; else pass; fi
check "the session is the code's, for alice, stored hashed" \
	"$(db "select id, user_id, auth_time from sessions where secret_hash = '$(secret_hash "$COOKIE")'")" "$SID|$ALICE|$AUTH_TIME"
check "the cookie value is not stored" "$(db "select count(*) from sessions where secret_hash = '$COOKIE' or id = '$COOKIE'")" 0
check "the sid is not the cookie" "$([ "$SID" != "$COOKIE" ] && [ ${#SID} -ge 22 ] && echo yes)" yes
check "the session lasts ttl_s" "$(db "select expires_at - auth_time from sessions where id = '$SID'")" 28800000
check "client A is the session's (back-channel logout)" "$(db "select client_id from session_clients where session_id = '$SID'")" "$A"
exchange "$A" "$RA" "$CODE" "$VERIFIER"
check_status "the code exchanges" 200
REFRESH_A=$REFRESH; ACCESS_A=$ACCESS
check "its refresh token is the session's" "$(db "select session_id from refresh_tokens where hash = '$(secret_hash "$REFRESH_A")'")" "$SID"

########## single sign-on ##########
JAR=$BROWSER authorize_get "$B" "$RB" "scope=openid" "nonce=n-2"
check "client B: a code at once" "$STATUS ${LOCATION%%\?*} $(query_value "$LOCATION" state) $(query_value "$LOCATION" iss)" "302 $RB st-g $BASE"
check "no form" "$BODY" ""
check "no new cookie" "$(set_cookie)" ""
check "the code is the session's, with its auth_time" \
	"$(db "select session_id, auth_time, scope, nonce from auth_codes where hash = '$(secret_hash "$CODE")'")" "$SID|$AUTH_TIME|openid|n-2"
check "B is recorded in the session too" "$(db "select client_id from session_clients where session_id = '$SID' order by client_id = '$B'")" "$A
$B"
exchange "$B" "$RB" "$CODE" "$VERIFIER"
check_status "B's code exchanges" 200
check "for alice" "$(jwt_claim "$ACCESS" sub)" "$ALICE"
REFRESH_B=$REFRESH
JAR=$BROWSER authorize_get "$A" "$RA"
check "client A too, a plain OAuth request" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
check "A recorded once, B once" "$(db "select count(*) from session_clients where session_id = '$SID'")" 2
check "the plain request's code has no OIDC scope" "$(db "select coalesce(scope, 'NULL') from auth_codes where hash = '$(secret_hash "$CODE")'")" NULL

# prompt and max_age
JAR=$BROWSER authorize_get "$B" "$RB" "prompt=none"
check "prompt=none with a session: a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
authorize_get "$B" "$RB" "prompt=none"
check "prompt=none without a session: login_required" \
	"$STATUS $(query_value "$LOCATION" error) $(query_value "$LOCATION" state) $(query_value "$LOCATION" iss)" "302 login_required st-g $BASE"
JAR=$BROWSER authorize_get "$B" "$RB" "prompt=login"
check "prompt=login: the form" "$STATUS" 200
check "naming app B" "$(grep -c '<h1>Sign in to App B</h1>' "$TMP/body")" 1
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=0"
check "max_age=0: the form" "$STATUS" 200
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=0" "prompt=none"
check "max_age=0 with prompt=none: login_required" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=3600"
check "max_age=3600: a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
# issue24.8: id_token_hint (OIDC Core §3.1.2.1) names whom the client
# expects: a session of another user signs no one in silently
JAR=$BROWSER authorize_get "$B" "$RB" "prompt=none" "id_token_hint=$(id_token_hint "$ALICE" "$B" "$SID")"
check "issue24.8: prompt=none and a hint of the session's user: a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$BROWSER authorize_get "$B" "$RB" "prompt=none" "id_token_hint=$(id_token_hint "$BOB" "$A" "another-session")"
check "issue24.8: prompt=none and a hint of another user: login_required" \
	"$STATUS $(query_value "$LOCATION" error) $(query_value "$LOCATION" state)" "302 login_required st-g"
JAR=$BROWSER authorize_get "$B" "$RB" "id_token_hint=$(id_token_hint "$BOB" "$A" "another-session")"
check "issue24.8: a hint of another user without prompt=none: the form" "$STATUS $CODE" "200 "
JAR=$BROWSER authorize_get "$B" "$RB" "prompt=none" "id_token_hint=garbage"
check "issue24.8: a hint that is not an ID token: invalid_request" "$STATUS $(query_value "$LOCATION" error)" "302 invalid_request"
openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/other-key.pem" 2>/dev/null
JAR=$BROWSER authorize_get "$B" "$RB" "id_token_hint=$(KEY=$TMP/other-key.pem id_token_hint "$ALICE" "$B" "$SID")"
check "issue24.8: a hint signed by another key: invalid_request" "$STATUS $(query_value "$LOCATION" error)" "302 invalid_request"
# issue26.4: the password 100 s ago, and max_ages far on either side of it
# (a slow machine adds seconds, never minutes, to the age)
db "update sessions set auth_time = $(date +%s%3N) - 100000 where id = '$SID'"
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=50"
check "max_age smaller than the time since the password: the form" "$STATUS" 200
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=1000"
check "max_age larger: a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$BROWSER authorize_get "$B" "$RB" "max_age=50" "prompt=none"
check "too old with prompt=none: login_required" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"

########## cookies that name no session ##########
# with_cookie COOKIE_HEADER CLIENT REDIRECT [query fields]: authorize_get
# with that Cookie header and no jar
with_cookie() {
	local cookie=$1 client=$2 redirect=$3; shift 3
	new_pkce
	local args=(-s -G -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -H "Cookie: $cookie"
		--data-urlencode response_type=code --data-urlencode "client_id=$client"
		--data-urlencode "redirect_uri=$redirect" --data-urlencode code_challenge_method=S256
		--data-urlencode "code_challenge=$CHALLENGE" --data-urlencode state=st-c)
	for extra in "$@"; do args+=(--data-urlencode "$extra"); done
	STATUS=$(curl "${args[@]}" "$BASE/api/v1/authorize")
	BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
	LOCATION=$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
}
with_cookie "$COOKIE_NAME=$COOKIE" "$B" "$RB"
check "the cookie by hand signs in" "$STATUS $([ -n "$(query_value "$LOCATION" code)" ] && echo code)" "302 code"
with_cookie "a=1; $COOKIE_NAME=$COOKIE ; b=2" "$B" "$RB"
check "among other cookies" "$STATUS" 302
TAMPERED="${COOKIE:0:42}$([ "${COOKIE:42:1}" = A ] && echo B || echo A)"
with_cookie "$COOKIE_NAME=$TAMPERED" "$B" "$RB"
check "a tampered cookie: the form" "$STATUS" 200
with_cookie "$COOKIE_NAME=$TAMPERED" "$B" "$RB" prompt=none
check "a tampered cookie with prompt=none: login_required" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"
with_cookie "$COOKIE_NAME=$COOKIE; $COOKIE_NAME=$TAMPERED" "$B" "$RB"
check "two cookies of that name: no session" "$STATUS" 200
with_cookie "$COOKIE_NAME=$COOKIE; $COOKIE_NAME=$COOKIE" "$B" "$RB"
check "even the same value twice" "$STATUS" 200
with_cookie "__Host-$COOKIE_NAME=$COOKIE" "$B" "$RB"
check "the https cookie's name over an http issuer: no session" "$STATUS" 200
with_cookie "$COOKIE_NAME=" "$B" "$RB"
check "an empty cookie" "$STATUS" 200
with_cookie "$COOKIE_NAME$COOKIE" "$B" "$RB"
check "a cookie without =" "$STATUS" 200
# another project: its own cookie name; a session of this one is not its
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OP=$(jq -r .project_id <<<"$OTHER")
OTOKEN=$(client_token "$(jq -r .client_id <<<"$OTHER")" "$(jq -r .client_secret <<<"$OTHER")")
AUTH="Bearer $OTOKEN" req POST "/api/v1/projects/$OP/clients" "$(jq -cn --arg r "$RA" '{name:"Other app",redirect_uris:[$r]}')"
OA=$(jq -r .id <<<"$BODY")
JAR=$BROWSER authorize_get "$OA" "$RA"
check "another project's client: the form, though the jar holds a session" "$STATUS" 200
with_cookie "edgeauth_$OP=$COOKIE" "$OA" "$RA"
check "this project's session under the other project's cookie name: the form" "$STATUS" 200
with_cookie "edgeauth_$OP=$COOKIE" "$OA" "$RA" prompt=none
check "... login_required with prompt=none" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"
# expired: no session, and no end (its sign-ins stay)
db "update sessions set expires_at = $(date +%s%3N) - 1 where id = '$SID'"
JAR=$BROWSER authorize_get "$B" "$RB"
check "an expired session: the form" "$STATUS" 200
refresh "$A" "$REFRESH_A"
check_status "expiry revokes nothing" 200
REFRESH_A=$REFRESH

########## the lifecycle ##########
# a new password sign-in with an expired session's cookie: a new session
JAR=$BROWSER authorize_post "$A" "$RA" alice@example.com "alice password" "st-2"
SID2=$(db "select session_id from auth_codes where hash = '$(secret_hash "$(query_value "$LOCATION" code)")'")
COOKIE2=$(jar_value "$BROWSER" "$COOKIE_NAME")
check "after expiry a new session, a new value" "$([ -n "$SID2" ] && [ "$SID2" != "$SID" ] && [ "$COOKIE2" != "$COOKIE" ] && echo yes)" yes
# the same user again: the session goes on under a new value, auth_time now
db "update sessions set auth_time = auth_time - 60000 where id = '$SID2'"
OLD_AUTH=$(db "select auth_time from sessions where id = '$SID2'")
JAR=$BROWSER authorize_post "$A" "$RA" ALICE@example.com "alice password" "st-3"
COOKIE3=$(jar_value "$BROWSER" "$COOKIE_NAME")
check "alice again: the same sid" "$(db "select session_id from auth_codes where hash = '$(secret_hash "$(query_value "$LOCATION" code)")'")" "$SID2"
check "under a new cookie value" "$([ -n "$COOKIE3" ] && [ "$COOKIE3" != "$COOKIE2" ] && echo yes)" yes
check "auth_time is now" "$([ "$(db "select auth_time from sessions where id = '$SID2'")" -gt "$OLD_AUTH" ] && echo yes)" yes
check "one live session of alice's" "$(db "select count(*) from sessions where user_id = '$ALICE' and ended_at is null and expires_at > $(date +%s%3N)")" 1
with_cookie "$COOKIE_NAME=$COOKIE2" "$B" "$RB"
check "the old value stopped (no fixation)" "$STATUS" 200
with_cookie "$COOKIE_NAME=$COOKIE3" "$B" "$RB"
check "the new value works" "$STATUS" 302
SSO_CODE=$(query_value "$LOCATION" code)
exchange "$B" "$RB" "$SSO_CODE" "$VERIFIER"
REFRESH_S2=$REFRESH; ACCESS_S2=$ACCESS
# a planted value is never taken on
PLANTED=$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n')
printf '127.0.0.1\tFALSE\t/\tFALSE\t0\t%s\t%s\n' "$COOKIE_NAME" "$PLANTED" > "$TMP/jar2"
JAR=$TMP/jar2 authorize_post "$A" "$RA" bob@example.com "bob password" "st-4"
BOB_COOKIE=$(jar_value "$TMP/jar2" "$COOKIE_NAME")
check "a planted cookie is replaced" "$([ -n "$BOB_COOKIE" ] && [ "$BOB_COOKIE" != "$PLANTED" ] && echo yes)" yes
check "and names no session" "$(db "select count(*) from sessions where secret_hash = '$(secret_hash "$PLANTED")'")" 0
# bob signs in with alice's cookie: alice's session ends as by logout
printf '127.0.0.1\tFALSE\t/\tFALSE\t0\t%s\t%s\n' "$COOKIE_NAME" "$COOKIE3" > "$TMP/jar3"
JAR=$TMP/jar3 authorize_post "$A" "$RA" bob@example.com "bob password" "st-5"
BOB_SID=$(db "select session_id from auth_codes where hash = '$(secret_hash "$(query_value "$LOCATION" code)")'")
check "bob gets a session of his own" "$(db "select user_id from sessions where id = '$BOB_SID'") $([ "$BOB_SID" != "$SID2" ] && echo new)" "$BOB new"
check "alice's session is no longer live" "$(db "select count(*) from sessions where id = '$SID2' and ended_at is null")" 0
refresh "$B" "$REFRESH_S2"
check_err "its sign-ins are revoked" 400 invalid_refresh_token
AUTH="Bearer $ACCESS_S2" req GET /api/v1/users/current
check_err "their access tokens too" 401 invalid_authorization_token
with_cookie "$COOKIE_NAME=$COOKIE3" "$B" "$RB"
check "alice's value signs no one in" "$STATUS" 200
with_cookie "$COOKIE_NAME=$(jar_value "$TMP/jar3" "$COOKIE_NAME")" "$B" "$RB"
check "bob's new value signs bob in" "$STATUS $(db "select user_id from auth_codes where hash = '$(secret_hash "$(query_value "$LOCATION" code)")'")" "302 $BOB"

########## what else ends a session (the store's triggers) ##########
# session_of JAR USER PASSWORD: signs in with the jar; SID, REFRESH of it
session_of() {
	rm -f "$1"
	JAR=$1 authorize_post "$A" "$RA" "$2" "$3" "st-6"
	CODE=$(query_value "$LOCATION" code)
	SID=$(db "select session_id from auth_codes where hash = '$(secret_hash "$CODE")'")
	exchange "$A" "$RA" "$CODE" "$VERIFIER"
}
ends() {   # NAME: the jar's session has ended, its sign-in is revoked
	JAR=$BROWSER authorize_get "$B" "$RB"
	check "$1: the form again" "$STATUS" 200
	check "$1: the session is no longer live" "$(db "select count(*) from sessions where id = '$SID' and ended_at is null")" 0
	refresh "$A" "$REFRESH"
	check_err "$1: its sign-in is revoked" 400 invalid_refresh_token
}
session_of "$BROWSER" alice@example.com "alice password"
req PUT "$P/users/$ALICE" "$(jq -cn --arg r "$ROLE" '{display_name:"Alice",email:"alice@example.com",role_id:$r,is_active:false}')"
check_status "deactivate alice" 200
ends "deactivation"
req PUT "$P/users/$ALICE" "$(jq -cn --arg r "$ROLE" '{display_name:"Alice",email:"alice@example.com",role_id:$r,is_active:true}')"
JAR=$BROWSER authorize_get "$B" "$RB"
check "reactivation brings no session back" "$STATUS" 200
next_second   # a code of the deactivation's own second counts as before it
session_of "$BROWSER" alice@example.com "alice password"
JAR=$BROWSER authorize_get "$B" "$RB"   # a code of the session, not redeemed
UNREDEEMED=$CODE UNREDEEMED_VERIFIER=$VERIFIER
req PUT "$P/users/$ALICE" "$(jq -cn --arg r "$ROLE" '{display_name:"Alice",email:"alice@example.com",role_id:$r,is_active:true,password:"alice password 2"}')"
check_status "a new password for alice" 200
ends "a new password"
exchange "$B" "$RB" "$UNREDEEMED" "$UNREDEEMED_VERIFIER"
check_err "issue24.1: a code of a session a new password ended does not redeem" 400 invalid_authorization_code
session_of "$BROWSER" alice@example.com "alice password 2"
ACCESS_DEL=$ACCESS
req DELETE "$P/users/$ALICE"
check_status "delete alice" 204
JAR=$BROWSER authorize_get "$B" "$RB"
check "deletion: the form again" "$STATUS" 200
check "deletion: the session is gone" "$(db "select count(*) from sessions where id = '$SID'")" 0
AUTH="Bearer $ACCESS_DEL" req GET /api/v1/users/current
check_err "deletion: its token is dead" 401 invalid_authorization_token

########## the purge ##########
LIVE=$(db "select id from sessions where user_id = '$BOB' and ended_at is null order by created_at desc limit 1")
# issue26.4: the purge runs each second (purge_interval_s = 1): waited
# for by state, at most two minutes
gone_sessions() { [ "$(db "select count(*) from sessions where ended_at is not null or expires_at <= $(date +%s%3N)")" = 0 ]; }
eventually 120 gone_sessions
check "ended and expired sessions are purged" "$(db "select count(*) from sessions where ended_at is not null or expires_at <= $(date +%s%3N)")" 0
check "a live one stays" "$(db "select count(*) from sessions where id = '$LIVE'")" 1
check "the session_clients of purged ones go with them" "$(db "select count(*) from session_clients where session_id not in (select id from sessions)")" 0

########## a cross-site post of the sign-in form ##########
cross_post() {   # ORIGIN NAME
	rm -f "$TMP/jar4"
	local before
	before=$(db "select count(*) from sessions")
	ORIGIN=$1 JAR=$TMP/jar4 authorize_post "$B" "$RB" bob@example.com "bob password" "st-7"
	check "$2: 403" "$STATUS" 403
	no_location "$2"
	check "$2: no cookie" "$(set_cookie)" ""
	check "$2: no session" "$(db "select count(*) from sessions")" "$before"
	check "$2: the error page" "$(grep -c 'This request came from another site' "$TMP/body")" 1
	check_header "$2: a page's headers" "^Content-Security-Policy: default-src 'none'"
}
cross_post "http://evil.example" "another site"
cross_post "null" "Origin null"
cross_post "http://127.0.0.1:$((PORT + 1))" "another port"
cross_post "https://127.0.0.1:$PORT" "another scheme"
cross_post "http://127.0.0.1:$PORT/" "an origin with a path"
cross_post "http://localhost:$PORT" "another host name"
rm -f "$TMP/jar4"
ORIGIN="HTTP://127.0.0.1:$PORT" JAR=$TMP/jar4 authorize_post "$B" "$RB" bob@example.com "bob password" "st-8"
check "the issuer's origin (scheme in any case) signs in" "$STATUS $([ -n "$(set_cookie)" ] && echo cookie)" "302 cookie"
authorize_post "$B" "$RB" bob@example.com "bob password" "st-9"
check "no Origin (curl) signs in as before" "$STATUS" 302

########## a browser from before Path=/: the old /api/v1/ cookie goes ##########
# Until 0.1.0 the http cookie was for /api/v1/ (CHANGELOG.md "Unreleased"): a browser then
# holds it beside the new Path=/ one and sends the name twice, which is no session
OLDJAR=$TMP/jar-upgrade
printf '127.0.0.1\tFALSE\t/api/v1/\tFALSE\t0\t%s\t%s\n127.0.0.1\tFALSE\t/\tFALSE\t0\t%s\t%s\n' \
	"$COOKIE_NAME" old-path-value "$COOKIE_NAME" new-path-value > "$OLDJAR"
JAR=$OLDJAR authorize_get "$B" "$RB" prompt=none
check "cookie path upgrade: two cookies of the name are no session" "$(query_value "$LOCATION" error)" login_required
JAR=$OLDJAR authorize_post "$B" "$RB" bob@example.com "bob password" "st-10"
check "cookie path upgrade: the sign-in sets Path=/ and removes the /api/v1/ one" \
	"$STATUS $(sed -E 's/=[A-Za-z0-9_-]{43};/=V;/' <<<"$(set_cookie)")" \
	"302 $COOKIE_NAME=V; Path=/; Max-Age=28800; HttpOnly; SameSite=Lax
$COOKIE_NAME=; Path=/api/v1/; Max-Age=0; HttpOnly; SameSite=Lax"
JAR=$OLDJAR authorize_get "$B" "$RB" prompt=none
check "cookie path upgrade: then single sign-on works" "$STATUS $([ -n "$(query_value "$LOCATION" code)" ] && echo code)" "302 code"

########## nothing secret in the log ##########
for secret in "$COOKIE" "$COOKIE3" "$BOB_COOKIE" "$PLANTED"; do
	if grep -qF -- "$secret" "$TMP/server.log"; then fail "a cookie value is in the log"; else pass; fi
done

########## an https issuer: the __Host- cookie ##########
stop_server
rm -f "$DB" "$DB-wal" "$DB-shm" "$BROWSER"
PG_DB=   # on PostgreSQL, a new database
start_server "server.issuer=https://Edge.Example"
reader_user "carol@example.com" "carol password" "Carol"
req POST "$P/clients" "$(jq -cn --arg r "$RA" '{name:"App C",redirect_uris:[$r]}')"
C=$(jq -r .id <<<"$BODY")
new_pkce
ORIGIN="https://edge.example:443" authorize_post "$C" "$RA" carol@example.com "carol password" "st-h"
check "https issuer: the issuer's origin, default port written out" "$STATUS" 302
check "iss is the https issuer" "$(query_value "$LOCATION" iss)" "https://Edge.Example"
SETC=$(set_cookie)
check "the __Host- cookie and its flags" "$(sed -E 's/=[A-Za-z0-9_-]{43};/=V;/' <<<"$SETC")" \
	"__Host-edgeauth_$PROJECT_ID=V; Path=/; Max-Age=28800; Secure; HttpOnly; SameSite=Lax"
if grep -qi 'domain' <<<"$SETC"; then fail "a __Host- cookie has no Domain"; else pass; fi
HCOOKIE=$(sed -E 's/^[^=]*=([^;]*);.*/\1/' <<<"$SETC")
with_cookie "__Host-edgeauth_$PROJECT_ID=$HCOOKIE" "$C" "$RA"
check "single sign-on with the __Host- cookie" "$STATUS $([ -n "$(query_value "$LOCATION" code)" ] && echo code)" "302 code"
with_cookie "edgeauth_$PROJECT_ID=$HCOOKIE" "$C" "$RA"
check "the http name under an https issuer: no session" "$STATUS" 200
for origin in "https://edge.example" "https://EDGE.example"; do
	ORIGIN=$origin authorize_post "$C" "$RA" carol@example.com "carol password" "st-h"
	check "origin $origin is the issuer's" "$STATUS" 302
done
for origin in "http://edge.example" "https://edge.example:8443" "https://edge.example.evil" "null"; do
	ORIGIN=$origin authorize_post "$C" "$RA" carol@example.com "carol password" "st-h"
	check "origin $origin is not" "$STATUS" 403
done

finish
