# The admin console in a real browser (issue 29, docs/console.md), issue29.10:
# Debian's chromium, driven by playwright-core (test/browser/console.mjs),
# signs in through the project's sign-in page, creates a user with the
# keyboard alone, finds a label for every input of the console's pages
# (from the DOM), and a 390-pixel-wide screen without horizontal scroll.
# Screenshots go to build/console-*.png. Needs chromium, node and npm
# (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch signin_form signed_in keyboard_fields keyboard_create_user every_input_labelled
narrow_viewport no_console_errors"

if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
need_node_project "$BROWSER_DIR" playwright-core
start_server

run role add --project "$PROJECT_ID" --code admin --name Administrators --permission '*'
INPUT="admin password" run user add --project "$PROJECT_ID" --email admin@example.com --name Admin \
	--role admin --password-stdin
check_ok "issue29.10 the first administrator"

OUT=$(cd "$BROWSER_DIR" && BASE=$BASE PROJECT_ID=$PROJECT_ID USER_EMAIL=admin@example.com \
	USER_PASSWORD="admin password" SCREENSHOT_DIR=$ROOT/build CHROMIUM=$CHROMIUM \
	timeout 120 node console.mjs 2>&1)
RC=$?
[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
check_steps "issue29.10 browser" console.mjs "$RC" "$OUT" $STEPS
check "issue29.10 the user made with the keyboard is stored" \
	"$(db "select display_name from users where email = 'kim@example.com'")" "Kim Keys"

finish
