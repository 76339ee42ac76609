# A role that requires a second factor, in a real browser (issue 30,
# docs/signin.md §"Second factors"): Debian's chromium, driven by
# test/browser/role_second_factor.mjs with JavaScript disabled, signs a
# user of such a role who has no factor in to an app: the set-up after the
# password (a wrong code, then one from oathtool), the recovery codes and
# their Continue form to the app with the code, whose ID token says amr
# ["pwd","otp","mfa"]; no console error or CSP violation. The server's
# clock is frozen (libfaketime) so that the codes are known. Needs
# chromium, node, npm, oathtool and libfaketime (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch enroll_page wrong_code recovery_codes continue amr csp no_console_errors"
if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
command -v oathtool > /dev/null || { fail "oathtool is needed (scripts/install-deps test)"; finish; exit 1; }
need_node_project "$BROWSER_DIR" playwright-core
fake_clock
NOW=$(date +%s)
freeze "$NOW"
EDGEAUTH_WRAPPER=$FAKED start_server signin.max_failures=5
rita_and_app
req PUT "$P/roles/$ROLE" '{"code":"reader","name":"Reader","requires_second_factor":true}'
check_status "issue30.8: rita's role requires a second factor" 200

node_steps "issue30.8 browser" "$BROWSER_DIR" role_second_factor.mjs "$STEPS" ISSUER="$BASE" \
	CLIENT_ID="$APP" REDIRECT_URI="$REDIRECT" USER_EMAIL="$EMAIL" USER_PASSWORD="$PASSWORD" \
	NOW="$NOW" CHROMIUM="$CHROMIUM"
check "issue30.8: the browser's enrollment is audited" \
	"$(db "SELECT action || ' ' || count(*) FROM events WHERE action LIKE 'factor.%' GROUP BY action ORDER BY action")" \
	"factor.enroll 1
factor.failure 1
factor.recovery_codes 1"
req GET "$P/users/$USER"
check_json "issue30.8: rita has TOTP now" '.second_factors|tostring' '["totp"]'
finish
