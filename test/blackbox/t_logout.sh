# Logout (OpenID Connect RP-Initiated Logout 1.0, docs/signin.md §"Logout"):
# GET and POST /api/v1/logout with an id_token_hint (the session its sid
# names ends, cookie or not; the client from client_id or the hint's aud),
# without one (a confirmation page whose post carries a value bound to the
# session and passes the Origin check), the post-logout redirect with
# state, the "signed out" page, and every error: a bad hint, a differing
# client_id, an unknown client, a missing client_id, an unregistered
# post_logout_redirect_uri (a page, never a redirect). Ending a session
# revokes the sign-ins made through it.
#
# Until ID tokens are issued (the token side of docs/signin.md §"ID tokens"),
# id_token_hint (signin_lib.sh) makes one with the server's key file.
# run.sh: early (one of the longest files: started first)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
MPORT=$(free_port)
start_server metrics.listen=127.0.0.1:$MPORT
keepalive_client   # req over one connection (lib.sh)
DB=$TMP/edgeauth.db
# sessions SERIES: edgeauth_sessions_SERIES_total of /metrics
sessions() { curl -s "http://127.0.0.1:$MPORT/metrics" | awk -v s="edgeauth_sessions_$1_total" '$1 == s { print $2 }'; }
BROWSER=$TMP/jar
jar_value() { awk -F'\t' -v n="$2" '$6 == n { v = $7 } END { print v }' "$1" 2>/dev/null; }
set_cookie() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: //p'; }
location() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p'; }
no_location() { if [ -z "$(location)" ]; then pass; else fail "$1: redirected to $(location)"; fi; }
live() { db "select count(*) from sessions where id = '$1' and ended_at is null"; }
COOKIE_NAME="edgeauth_$PROJECT_ID"

# logout METHOD [curl args...]: the endpoint with the browser's jar (JAR
# empty: none); fields as --data-urlencode, sent in the query for GET
logout() {
	local method=$1; shift
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}')
	[ "${JAR-unset}" = unset ] && args+=(-b "$BROWSER" -c "$BROWSER")
	[ "$method" = GET ] && args+=(-G)
	STATUS=$(curl "${args[@]}" "$@" "$BASE/api/v1/logout")
	BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
}

# --- set-up: a user, two apps; A has post-logout URIs ---
reader_user "alice@example.com" "alice password" "Alice"
RA="http://127.0.0.1:9/a"; RB="http://127.0.0.1:9/b"
BYE="https://a.example/bye?from=edge"
req POST "$P/clients" "$(jq -cn --arg r "$RA" --arg b "$BYE" '{name:"App <A>",redirect_uris:[$r],post_logout_redirect_uris:[$b,"https://a.example/other"]}')"
check_status "client A with post_logout_redirect_uris" 201
A=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "$(jq -cn --arg r "$RB" '{name:"App B",redirect_uris:[$r]}')"
B=$(jq -r .id <<<"$BODY")

# signed_in: a session in the browser with a sign-in to A and one to B
# (single sign-on); SID, RA_REFRESH, RB_REFRESH, RB_ACCESS
signed_in() {
	rm -f "$BROWSER"
	new_pkce
	JAR=$BROWSER authorize_post "$A" "$RA" alice@example.com "alice password" "st"
	exchange "$A" "$RA" "$(query_value "$LOCATION" code)" "$VERIFIER"
	RA_REFRESH=$REFRESH
	JAR=$BROWSER authorize_get "$B" "$RB"
	SID=$(db "select session_id from auth_codes where hash = '$(secret_hash "$CODE")'")
	exchange "$B" "$RB" "$CODE" "$VERIFIER"
	RB_REFRESH=$REFRESH; RB_ACCESS=$ACCESS
}
# ended NAME: the session SID ended, its sign-ins with it, and the browser
# gets the form again
ended() {
	check "$1: the session ended" "$(live "$SID")" 0
	refresh "$A" "$RA_REFRESH"
	check_err "$1: A's sign-in is revoked" 400 invalid_refresh_token
	refresh "$B" "$RB_REFRESH"
	check_err "$1: B's too" 400 invalid_refresh_token
	AUTH="Bearer $RB_ACCESS" req GET /api/v1/users/current
	check_err "$1: and its access token" 401 invalid_authorization_token
	JAR=$BROWSER authorize_get "$B" "$RB"
	check "$1: the browser gets the form again" "$STATUS" 200
}

########## with an id_token_hint ##########
STARTED=$(sessions started) ENDED=$(sessions ended)
signed_in
COOKIE=$(jar_value "$BROWSER" "$COOKIE_NAME")
check "signed in: a live session" "$(live "$SID")" 1
check "metrics: one session started" "$(( $(sessions started) - STARTED ))" 1
HINT=$(id_token_hint "$USER" "$A" "$SID")
logout GET --data-urlencode "id_token_hint=$HINT" --data-urlencode "post_logout_redirect_uri=$BYE" \
	--data-urlencode "state=s <1>&"
check "metrics: the logout ended it" "$(( $(sessions ended) - ENDED ))" 1
check "a hint and a registered URI: back to the app" "$STATUS" 302
check "to the URI, with state" "$(location)" "https://a.example/bye?from=edge&state=s%20%3C1%3E%26"
check "the cookie is cleared" "$(set_cookie)" "$COOKIE_NAME=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
check_header "no-store" '^Cache-Control: no-store'
ended "hint"

# the client is the hint's aud when client_id is absent (mod_auth_openidc);
# client_id may be sent too when it is the same
signed_in
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$B" "$SID")" --data-urlencode "client_id=$B"
check "a hint with its own client_id, no URI: the signed-out page" "$STATUS" 200
check "it says so" "$(grep -c '<h1>You are signed out</h1>' "$TMP/body")" 1
check_header "a page's CSP" "^Content-Security-Policy: default-src 'none'"
check_header "Referrer-Policy: same-origin" '^Referrer-Policy: same-origin$'
ended "hint of B"

# a hint ends its session whether or not the browser sent the cookie
signed_in
ENDED=$(sessions ended)
JAR= logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID")" \
	--data-urlencode "post_logout_redirect_uri=$BYE"
check "no cookie sent: redirected all the same" "$STATUS $(location)" "302 $BYE"
check "no cookie to clear" "$(set_cookie)" ""
check "metrics: a logout without the cookie ended one too" "$(( $(sessions ended) - ENDED ))" 1
ended "hint without a cookie"
# ... also as a POST from the app's own page (form_post), from its origin
signed_in
JAR= logout POST -H "Origin: https://a.example" --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID")" \
	--data-urlencode "post_logout_redirect_uri=$BYE" --data-urlencode state=p1
check "POST from the app's origin with a hint" "$STATUS $(location)" "302 $BYE&state=p1"
ended "POST with a hint"
# a hint whose session is gone redirects just the same
ENDED=$(sessions ended)
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID")" \
	--data-urlencode "post_logout_redirect_uri=$BYE"
check "the session already gone: redirected" "$STATUS $(location)" "302 $BYE"
check "metrics: ending it again counts nothing" "$(( $(sessions ended) - ENDED ))" 0
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "nosuchsession")"
check "a sid that never was: the signed-out page" "$STATUS" 200
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "" 'del(.sid)')"
check "a hint without sid (a BYOU sign-in): the signed-out page" "$STATUS" 200
# issue24.1: a code the session gave and nobody redeemed ends with the
# session: after the logout it is as good as unknown, on either backend
signed_in
JAR=$BROWSER authorize_get "$B" "$RB"
UNREDEEMED=$CODE UNREDEEMED_VERIFIER=$VERIFIER
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID")"
exchange "$B" "$RB" "$UNREDEEMED" "$UNREDEEMED_VERIFIER"
check_err "issue24.1: a code of a session ended by logout does not redeem" 400 invalid_authorization_code
check "issue24.1: no refresh token of the ended session" "$REFRESH" ""
# ... and a code stored after its session ended (or whose session is gone)
# is refused by the grant itself
signed_in
JAR=$BROWSER authorize_get "$B" "$RB"
db "update auth_codes set session_id = 'gone' where hash = '$(secret_hash "$CODE")'" >/dev/null
exchange "$B" "$RB" "$CODE" "$VERIFIER"
check_err "issue24.1: a code whose session no longer lives does not redeem" 400 invalid_authorization_code
# the hint of another user, or of another session, ends that one only
signed_in
OTHER_SID=$SID
signed_in
logout GET --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$OTHER_SID")"
check "a hint of another session of the user" "$STATUS" 200
check "keeps the browser's cookie" "$(set_cookie)" ""
check "and its session" "$(live "$SID")" 1
logout GET --data-urlencode "id_token_hint=$(id_token_hint "someone-else" "$A" "$SID")"
check "a hint whose sub is not the session's user ends nothing" "$(live "$SID") $(set_cookie)" "1 "

########## the errors: a page, never a redirect ##########
refused() {   # NAME [curl args...]: 400 page, no Location, the session kept
	local name=$1; shift
	logout GET "$@"
	check "$name: 400" "$STATUS" 400
	no_location "$name"
	check "$name: the page says so" "$(grep -c 'This sign-out link cannot be used' "$TMP/body")" 1
	check "$name: the session stays" "$(live "$SID")" 1
}
refused "a garbage hint" --data-urlencode "id_token_hint=garbage" --data-urlencode "post_logout_redirect_uri=$BYE"
refused "an access token as hint" --data-urlencode "id_token_hint=$RB_ACCESS" --data-urlencode "post_logout_redirect_uri=$BYE"
refused "a hint of another issuer" --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID" '.iss = "https://evil.example"')"
refused "a hint with a scope (an access token's claims)" --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$A" "$SID" '.scope = "openid"')"
openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/other-key.pem" 2>/dev/null
refused "a hint signed by another key" --data-urlencode "id_token_hint=$(KEY=$TMP/other-key.pem id_token_hint "$USER" "$A" "$SID")"
H=$(id_token_hint "$USER" "$A" "$SID")
refused "a hint with its signature changed" --data-urlencode "id_token_hint=${H%?}$([ "${H: -1}" = A ] && echo B || echo A)"
refused "a hint whose aud is not client_id" --data-urlencode "id_token_hint=$H" --data-urlencode "client_id=$B"
refused "a hint whose aud is unknown" --data-urlencode "id_token_hint=$(id_token_hint "$USER" "nope" "$SID")"
refused "no hint, no client_id" --data-urlencode "post_logout_redirect_uri=$BYE"
refused "an unknown client_id" --data-urlencode "client_id=nope"
refused "an unregistered post_logout_redirect_uri" --data-urlencode "id_token_hint=$H" \
	--data-urlencode "post_logout_redirect_uri=https://evil.example/"
refused "a redirect URI is not a post-logout URI" --data-urlencode "id_token_hint=$H" \
	--data-urlencode "post_logout_redirect_uri=$RA"
refused "a post-logout URI of another client" --data-urlencode "client_id=$B" \
	--data-urlencode "post_logout_redirect_uri=$BYE"
refused "almost the registered URI" --data-urlencode "client_id=$A" \
	--data-urlencode "post_logout_redirect_uri=$BYE&x=1"
refused "a parameter twice" --data-urlencode "client_id=$A" --data-urlencode "client_id=$A"
req PUT "$P/clients/$B" '{"name":"App B","is_active":false}'
refused "an inactive client" --data-urlencode "id_token_hint=$(id_token_hint "$USER" "$B" "$SID")"
req PUT "$P/clients/$B" '{"name":"App B","is_active":true}'

########## without a hint: the confirmation ##########
logout GET --data-urlencode "client_id=$A" --data-urlencode "post_logout_redirect_uri=$BYE" \
	--data-urlencode 'state=s"2'
check "client_id alone: a confirmation page" "$STATUS" 200
check "nothing ended yet" "$(live "$SID")" 1
check "no cookie change" "$(set_cookie)" ""
check "it names the app, escaped" "$(grep -c 'App &lt;A&gt; asks to sign you out' "$TMP/body")" 1
check "it posts to the endpoint" "$(grep -c "<form method=\"post\" action=\"$BASE/api/v1/logout\">" "$TMP/body")" 1
check "it carries state, escaped" "$(grep -c 'name="state" value="s&quot;2"' "$TMP/body")" 1
check "and the URI" "$(grep -c "name=\"post_logout_redirect_uri\" value=\"https://a.example/bye?from=edge\"" "$TMP/body")" 1
CONFIRM=$(sed -n 's/.*name="confirm" value="\([^"]*\)".*/\1/p' "$TMP/body")
check "a value bound to the session, not its cookie or sid" \
	"$([ ${#CONFIRM} -ge 43 ] && [ "$CONFIRM" != "$COOKIE" ] && [ "$CONFIRM" != "$SID" ] && [ "$CONFIRM" != "$(secret_hash "$(jar_value "$BROWSER" "$COOKIE_NAME")")" ] && echo yes)" yes
check_header "a page's CSP" "^Content-Security-Policy: default-src 'none'"
check_header "Referrer-Policy: same-origin" '^Referrer-Policy: same-origin$'
check_header "no-store" '^Cache-Control: no-store'
if grep -qi '<script' "$TMP/body"; then fail "the confirmation runs no script"; else pass; fi
logout GET --data-urlencode "client_id=$A" --data-urlencode "confirm=$CONFIRM"
check "a GET never ends a session, confirm or not" "$STATUS $(live "$SID")" "200 1"

confirm_post() {   # ORIGIN [more fields...]
	local origin=$1; shift
	logout POST ${origin:+-H "Origin: $origin"} --data-urlencode "client_id=$A" \
		--data-urlencode "post_logout_redirect_uri=$BYE" --data-urlencode "state=s2" "$@"
}
for origin in "http://evil.example" null "http://127.0.0.1:$((PORT + 1))"; do
	confirm_post "$origin" --data-urlencode "confirm=$CONFIRM"
	check "a confirmation from $origin: 403" "$STATUS" 403
	no_location "cross-site confirmation"
	check "... the error page" "$(grep -c 'This request came from another site' "$TMP/body")" 1
	check "... ends nothing" "$(live "$SID")" 1
done
confirm_post "http://127.0.0.1:$PORT" --data-urlencode "confirm=${CONFIRM%?}x"
check "a wrong confirmation value: 400" "$STATUS" 400
no_location "wrong confirmation"
check "... ends nothing" "$(live "$SID")" 1
JAR= confirm_post "" --data-urlencode "confirm=$CONFIRM"
check "the confirmation without the cookie ends nothing" "$(live "$SID")" 1
confirm_post "http://127.0.0.1:$PORT" --data-urlencode "confirm=$CONFIRM"
check "confirmed from our origin: back to the app with state" "$STATUS $(location)" "302 $BYE&state=s2"
check "the cookie is cleared" "$(set_cookie)" "$COOKIE_NAME=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
ended "confirmed"

# without Origin (curl) as before; without a URI the signed-out page
signed_in
logout GET --data-urlencode "client_id=$B"
CONFIRM=$(sed -n 's/.*name="confirm" value="\([^"]*\)".*/\1/p' "$TMP/body")
logout POST --data-urlencode "client_id=$B" --data-urlencode "confirm=$CONFIRM"
check "confirmed without Origin, no URI: signed out" "$STATUS $(grep -c '<h1>You are signed out</h1>' "$TMP/body")" "200 1"
ended "confirmed without a URI"

# a confirmation of an older session ends nothing of a newer one
signed_in
logout GET --data-urlencode "client_id=$A"
OLD_CONFIRM=$(sed -n 's/.*name="confirm" value="\([^"]*\)".*/\1/p' "$TMP/body")
new_pkce
JAR=$BROWSER authorize_post "$A" "$RA" alice@example.com "alice password" "st"
logout POST --data-urlencode "client_id=$A" --data-urlencode "confirm=$OLD_CONFIRM"
check "a confirmation made before the cookie changed: 400" "$STATUS" 400
check "... the session stays" "$(live "$SID")" 1

# no session: nothing to confirm
JAR= logout GET --data-urlencode "client_id=$A" --data-urlencode "post_logout_redirect_uri=$BYE" --data-urlencode state=s3
check "no session: straight back to the app" "$STATUS $(location)" "302 $BYE&state=s3"
JAR= logout GET --data-urlencode "client_id=$A"
check "no session, no URI: signed out" "$STATUS" 200
JAR= logout GET -H "Cookie: $COOKIE_NAME=not-a-session" --data-urlencode "client_id=$A"
check "a stale cookie: signed out, and the cookie cleared" "$STATUS $(set_cookie)" \
	"200 $COOKIE_NAME=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
check "an empty parameter is none" "$(JAR= logout GET --data-urlencode "client_id=$A" --data-urlencode "id_token_hint=" \
	--data-urlencode "post_logout_redirect_uri="; echo "$STATUS")" 200

########## nothing secret in the log ##########
for secret in "$COOKIE" "$(jar_value "$BROWSER" "$COOKIE_NAME")" "$CONFIRM"; do
	if grep -qF -- "$secret" "$TMP/server.log"; then fail "a secret is in the log"; else pass; fi
done

finish
