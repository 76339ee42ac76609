# TOTP in a real browser (issue 30, docs/signin.md §"Second factors"):
# Debian's chromium, driven by test/browser/totp.mjs, sets up an
# authenticator app on the account page with a code from oathtool, then
# with JavaScript disabled signs in with the password and a code, sees the
# code refused again (replay), signs in with a recovery code and sees it
# refused again, wrong codes until the throttle's 429; no console error or
# CSP violation. The server's clock is
# frozen (libfaketime) so that the codes are known. Needs chromium, node,
# npm, oathtool and libfaketime (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch to_signin account_page setup_page enrolled asks_code code_signs_in replay_refused
recovery_signs_in recovery_once throttled throttled_password scripts_off csp no_console_errors"
if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
command -v oathtool > /dev/null || { fail "oathtool is needed (scripts/install-deps test)"; finish; exit 1; }
need_node_project "$BROWSER_DIR" playwright-core
fake_clock
NOW=$(date +%s)
freeze "$NOW"
# reached as localhost, a host name, for the passkeys page whose script
# the check that JavaScript was off looks for (docs/signin.md §"Passkeys")
SERVER_PORT=$(free_port)
ISSUER="http://localhost:$SERVER_PORT"
EDGEAUTH_WRAPPER=$FAKED start_server "server.issuer=$ISSUER" signin.max_failures=5
rita_and_app

node_steps "issue30.5 browser" "$BROWSER_DIR" totp.mjs "$STEPS" ISSUER="$ISSUER" \
	PROJECT_ID="$PROJECT_ID" USER_EMAIL="$EMAIL" USER_PASSWORD="$PASSWORD" NOW="$NOW" CHROMIUM="$CHROMIUM"
check "issue30.5: the browser's uses and refusals are audited" \
	"$(db "SELECT action || ' ' || count(*) FROM events WHERE action LIKE 'factor.%' OR action = 'signin.throttled' GROUP BY action ORDER BY action")" \
	"factor.enroll 1
factor.failure 5
factor.recovery_codes 1
factor.recovery_use 1
factor.use 1
signin.throttled 1"
check "issue30.6: one recovery code spent" \
	"$(db "SELECT count(*) FROM recovery_codes WHERE user_id = '$USER' AND used_at IS NOT NULL")" 1
finish
