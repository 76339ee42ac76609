# The admin console in a real browser (issue 29, docs/console.md), issue29.10:
# Debian's chromium, driven by playwright-core (test/browser/console.mjs),
# signs in through the project's sign-in page, creates a user with the
# keyboard alone, lists, searches and pages the users, edits the user and
# sets their password, creates a client and sees its secret once, filters
# the audit trail, finds a label for every input of the console's pages
# (from the DOM), and a 390-pixel-wide screen without horizontal scroll;
# then the user signs in with the password set, and the administrator comes
# into the console by single sign-on from the sign-in of another client.
# Screenshots go to build/console-*.png, and with DOCS_SHOTS=DIR the
# documentation's to DIR (scripts/console-screenshots). Needs chromium, node
# and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch signin_form signed_in keyboard_fields keyboard_create_user list_users page_users
search_users_keyboard edit_user set_password_keyboard client_secret_shown client_secret_once
audit_filter_action audit_filter_target audit_filter_actor audit_filter_time every_input_labelled
narrow_viewport sign_out signin_new_password sso_from_signin_page no_console_errors"
[ -n "${DOCS_SHOTS:-}" ] && STEPS="$STEPS docs_screenshots"

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
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
	run user add --project "$PROJECT_ID" --external-id "lister-$i" --name "Lister $i"
	[ "$RC" = 0 ] || fail "issue29.10 user Lister $i: exit $RC, $ERR"
done

OUT=$(cd "$BROWSER_DIR" && BASE=$BASE PROJECT_ID=$PROJECT_ID USER_EMAIL=admin@example.com \
	USER_PASSWORD="admin password" SCREENSHOT_DIR=$ROOT/build CHROMIUM=$CHROMIUM \
	DOCS_SHOTS=${DOCS_SHOTS:-} \
	timeout 120 node console.mjs 2>&1)
RC=$?
[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
check_steps "issue29.10 browser" console.mjs "$RC" "$OUT" $STEPS
check "issue29.10 the user made with the keyboard, then renamed, is stored" \
	"$(db "select display_name from users where email = 'kim@example.com'")" "Kim Edited"
check "issue29.10 the client made in the browser is stored" \
	"$(db "select count(*) from clients where name = 'Browser app'")" "1"

finish
