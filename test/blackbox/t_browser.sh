# The sign-in page in a real browser (docs/signin.md §"Password sign-in"): Debian's chromium,
# driven by playwright-core (pinned in test/browser/package-lock.json), signs
# a user with a non-ASCII password in through the form, pressing Enter, and
# follows the redirect to a callback listener that test/browser/signin.mjs
# runs; the code is then exchanged with the PKCE verifier. Screenshots go to
# build/browser-signin*.png. Needs chromium, node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch page_loads page_headers hsts page_charset labelled_form email_autofocus style_applied
state_in_form screenshot email_accepted wrong_password wrong_password_keeps_params
wrong_password_keeps_email password_typed signin_redirects callback_reached callback_code callback_state callback_iss
token_exchange narrow_viewport no_console_errors"

if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
need_node_project "$BROWSER_DIR" playwright-core   # no browser download: Debian's is used

# Over TLS (t_tls_browser.sh, EDGEAUTH_TLS): HSTS_MAX_AGE, when set, is
# hsts_max_age_s, and Chromium trusts the server's certificate by its SPKI.
start_server ${HSTS_MAX_AGE:+server.hsts_max_age_s=$HSTS_MAX_AGE}
SPKI=
[ "$SCHEME" = https ] && SPKI=$(openssl x509 -in "$TMP/ca/server.pem" -noout -pubkey |
	openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)

# --- set-up: a role, a user with a non-ASCII password, an app whose redirect
# URI is the callback listener signin.mjs starts ---
EMAIL="Zoë.Browser@exämple.test"
PASSWORD="pässwörd ✓ 密码"
reader_user "$EMAIL" "$PASSWORD" "Zoë"
CALLBACK_PORT=$(free_port)
REDIRECT="http://127.0.0.1:$CALLBACK_PORT/callback"
req POST "$P/clients" "$(jq -cn --arg a "$REDIRECT" '{name:"browser app",redirect_uris:[$a]}')"
check_status "create client" 201
APP=$(printf '%s' "$BODY" | jq -r .id)

# --- the browser ---
OUT=$(cd "$BROWSER_DIR" && BASE=$BASE CLIENT_ID=$APP REDIRECT_URI=$REDIRECT \
	CALLBACK_PORT=$CALLBACK_PORT USER_EMAIL=$EMAIL USER_PASSWORD=$PASSWORD \
	SPKI_HASH=$SPKI EXPECT_HSTS=${HSTS_MAX_AGE:+max-age=$HSTS_MAX_AGE} \
	SCREENSHOT_DIR=$ROOT/build CHROMIUM=$CHROMIUM timeout 60 node signin.mjs 2>&1)
RC=$?
# SHOW_BROWSER=1 prints the browser run's own output
[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
check_steps browser signin.mjs "$RC" "$OUT" $STEPS

finish
