# Passkeys in a real browser (issue 30, docs/signin.md §"Passkeys"):
# Debian's chromium with the DevTools protocol's virtual authenticator,
# driven by test/browser/passkeys.mjs: the passkeys page signs in through the
# project's sign-in page, its one script (pinned by hash in the CSP) runs
# and registers a passkey, which is listed, signs in as the second factor
# after the password (the same script on the second step's page), and is
# removed. The issuer is
# http://localhost:PORT (an RP ID must be a host name; localhost is a
# secure context). Needs chromium, node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch authenticator to_signin back_to_page script_runs registered resident rp_id
factor_offered passkey_second_factor sign_count removed no_console_errors"
if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
need_node_project "$BROWSER_DIR" playwright-core
SERVER_PORT=$(free_port)
ISSUER="http://localhost:$SERVER_PORT"
start_server "server.issuer=$ISSUER"
rita_and_app

node_steps "issue30.passkey.5 browser" "$BROWSER_DIR" passkeys.mjs "$STEPS" ISSUER="$ISSUER" \
	PROJECT_ID="$PROJECT_ID" USER_EMAIL="$EMAIL" USER_PASSWORD="$PASSWORD" CHROMIUM="$CHROMIUM"
check "issue30.passkey.5: the registration is audited" \
	"$(db "SELECT action || ' ' || count(*) FROM events WHERE action LIKE 'factor.%' GROUP BY action ORDER BY action")" \
	"factor.enroll 1
factor.recovery_codes 1
factor.remove 1
factor.use 1"
finish
