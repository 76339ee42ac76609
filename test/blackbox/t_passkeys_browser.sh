# Passkeys in a real browser (issue 30, docs/signin.md §"Passkeys"):
# Debian's chromium with the DevTools protocol's virtual authenticator,
# driven by test/browser/passkeys.mjs: the passkeys page signs in through the
# project's sign-in page, its one script (pinned by hash in the CSP) runs
# and registers a passkey, which is listed, signs in as the second factor
# after the password (the same script on the second step's page), and is
# removed; in a fresh browser holding the same credential it signs in to the
# app alone ("Sign in with a passkey"), and openid-client exchanges the code
# (test/oauth-client/code_amr.mjs): the ID token's amr is ["hwk","user"].
# The issuer is
# http://localhost:PORT (an RP ID must be a host name; localhost is a
# secure context). Needs chromium, node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch authenticator to_signin back_to_page script_runs registered resident rp_id
factor_offered passkey_second_factor sign_count alone_offered passkey_alone alone_user_verified
alone_no_console_errors removed no_console_errors"
if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
need_node_project "$BROWSER_DIR" playwright-core
CLIENT_DIR=$ROOT/test/oauth-client
need_node_project "$CLIENT_DIR" openid-client
SERVER_PORT=$(free_port)
ISSUER="http://localhost:$SERVER_PORT"
# the code is exchanged after the browser closes: a TTL no slow run outlasts
start_server "server.issuer=$ISSUER" tokens.code_ttl_s=600
rita_and_app
# the browser's app: a redirect URI on a port Chromium navigates to (not 9,
# an "unsafe" port), answered by the test before any request leaves
APP_REDIRECT="http://127.0.0.1:$(free_port)/callback"
req POST "$P/clients" "{\"name\":\"browser app\",\"redirect_uris\":[\"$APP_REDIRECT\"],\"permission_ids\":[]}"
check_status "issue30.passkey.6: the browser's app" 201
APP=$(jq -r .id <<<"$BODY"); APP_SECRET=$(jq -r .client_secret <<<"$BODY")

node_steps "issue30.passkey.5 browser" "$BROWSER_DIR" passkeys.mjs "$STEPS" ISSUER="$ISSUER" \
	PROJECT_ID="$PROJECT_ID" USER_EMAIL="$EMAIL" USER_PASSWORD="$PASSWORD" CHROMIUM="$CHROMIUM" \
	CLIENT_ID="$APP" REDIRECT_URI="$APP_REDIRECT" CALLBACK_FILE="$TMP/callback.json"
node_steps "issue30.passkey.6 openid-client" "$CLIENT_DIR" code_amr.mjs "discovery id_token_amr" \
	BASE="$ISSUER" CLIENT_ID="$APP" CLIENT_SECRET="$APP_SECRET" CALLBACK_FILE="$TMP/callback.json" \
	AMR='["hwk","user"]'
check "issue30.passkey.5: the registration is audited" \
	"$(db "SELECT action || ' ' || count(*) FROM events WHERE action LIKE 'factor.%' GROUP BY action ORDER BY action")" \
	"factor.enroll 1
factor.recovery_codes 1
factor.remove 1
factor.use 2"
finish
