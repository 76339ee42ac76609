# Single sign-on in a real browser (docs/signin.md §"Sessions", issue 13): Debian's
# chromium, driven by playwright-core (test/browser/sso.mjs), signs in to
# app A; app B of the same project then gets its code without the form;
# prompt=none without a session comes back with login_required; prompt=login
# and max_age=0 show the form; logout with A's ID token as id_token_hint
# lands back at A's registered URI with state, clears the cookie, the next
# authorize shows the form, and app B's back-channel URI receives a logout
# token for the session (verified here with jose against JWKS,
# test/oauth-client/logout_verify.mjs); a page of another site (127.0.0.2)
# posting the sign-in form gets 403 and starts no session; a deactivated
# user's session signs in no more. The session cookie's flags are read from
# the browser's cookie jar (over https, t_tls_browser_sso.sh: Secure and the
# __Host- name). Needs chromium, node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch prompt_none_without_session a_shows_form a_signs_in cookie_flags b_single_sign_on b_silent_renew_in_iframe
prompt_login_form max_age_0_form logout_redirects logout_clears_cookie after_logout_form
b_backchannel_received cross_site_post_refused logout_confirmation logout_posted_by_app deactivated_user_form
no_console_errors"

if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
need_node_project "$BROWSER_DIR" playwright-core
need_node_project "$ROOT/test/oauth-client" jose

start_server
SPKI=
[ "$SCHEME" = https ] && SPKI=$(openssl x509 -in "$TMP/ca/server.pem" -noout -pubkey |
	openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)

# --- set-up: a user, apps A and B whose URIs are the listener sso.mjs runs
# on APP_PORT; B has a back-channel URI ---
EMAIL="sso-user@example.com"
PASSWORD="pässwörd ✓ sso"
NAME="SSO User"
reader_user "$EMAIL" "$PASSWORD" "$NAME"
APP_PORT=$(free_port)
APP="http://127.0.0.1:$APP_PORT"
req POST "$P/clients" "$(jq -cn --arg app "$APP" '{name: "App A", redirect_uris: ["\($app)/cb/a"],
	post_logout_redirect_uris: ["\($app)/out/a"]}')"
check_status "create client A" 201
CLIENT_A=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "$(jq -cn --arg app "$APP" '{name: "App B", redirect_uris: ["\($app)/cb/b"],
	backchannel_logout_uri: "\($app)/bc/b"}')"
check_status "create client B" 201
CLIENT_B=$(jq -r .id <<<"$BODY")
LOGOUT_LOG=$TMP/logout-tokens
: > "$LOGOUT_LOG"

# --- the browser ---
OUT=$(cd "$BROWSER_DIR" && BASE=$BASE PROJECT_ID=$PROJECT_ID CLIENT_A=$CLIENT_A CLIENT_B=$CLIENT_B \
	USER_EMAIL=$EMAIL USER_PASSWORD=$PASSWORD APP_PORT=$APP_PORT OTHER_PORT=$(free_port) \
	ADMIN_TOKEN=$TOKEN USER_ID=$USER ROLE_ID=$ROLE USER_NAME=$NAME LOGOUT_LOG=$LOGOUT_LOG \
	FRAME_PORT=$(free_port) TLS_CERT=$TMP/ca/server.pem TLS_KEY=$TMP/ca/server.key \
	SPKI_HASH=$SPKI SCREENSHOT_DIR=$ROOT/build CHROMIUM=$CHROMIUM timeout 120 node sso.mjs 2>&1)
RC=$?
# SHOW_BROWSER=1 prints the browser run's own output
[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
check_steps browser sso.mjs "$RC" "$OUT" $STEPS

# --- app B's logout token: for the session, as a relying party checks it ---
SID=$(printf '%s\n' "$OUT" | sed -n 's/^sid //p')
LT=$(head -n 1 "$LOGOUT_LOG")
V=$(cd "$ROOT/test/oauth-client" && node logout_verify.mjs "$BASE" "$CLIENT_B" "$LT")
check "B's logout token verifies (JWKS, iss, aud, typ)" "$(jq -r .ok <<<"$V")" true
check "B's logout token: sub, sid of the session, events, no nonce, exp - iat" \
	"$(jq -c '[.claims.sub, .claims.sid, .claims.events, (.claims | has("nonce")), .claims.exp - .claims.iat]' <<<"$V")" \
	"$(jq -cn --arg u "$USER" --arg s "$SID" '[$u, $s, {"http://schemas.openid.net/event/backchannel-logout": {}}, false, 120]')"
check "the sid is the session's" "$([ -n "$SID" ] && echo yes)" yes

finish
