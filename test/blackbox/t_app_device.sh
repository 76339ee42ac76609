# issue32.6: real clients of the device grant (docs/device.md): the device
# functions of openid-client and oauth4webapi (test/oauth-client/
# device_flow.mjs), unchanged, ask for codes and poll, while Debian's
# chromium (test/browser/device.mjs, playwright-core) types the first code
# on /device, signs in on the project's sign-in page, comes back, and
# clicks Approve or Deny on each approval page; the tokens verify with jose
# against the JWKS. The libraries poll on their own clock: [device]
# interval_s = 1 only makes that wait short, nothing here races it. Needs
# chromium, node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
	fail "chromium is needed for this test and $CHROMIUM is missing (run scripts/install-deps test: Debian package chromium)"
	finish; exit 1
fi
command -v node > /dev/null || missing_tool "node (Debian's nodejs)"
need_node_project "$ROOT/test/oauth-client" openid-client
need_node_project "$BROWSER_DIR" playwright-core
start_server device.interval_s=1
reader_user rita@example.com "rita's password" Rita
req POST "$P/clients" '{"name":"lobby kiosk","device_flow":true}'
check_status "a device_flow client" 201
KIOSK=$(jq -r .id <<<"$BODY")

# Four devices at once, each polling with its library until decided:
# "LIB DECISION" each.
FLOWS=("openid-client approve" "openid-client deny" "oauth4webapi approve" "oauth4webapi deny")
PIDS=() DECISIONS=""
for i in "${!FLOWS[@]}"; do
	read -r lib decision <<<"${FLOWS[$i]}"
	node "$ROOT/test/oauth-client/device_flow.mjs" "$lib" "$BASE" "$KIOSK" > "$TMP/flow.$i" 2>&1 &
	PIDS+=($!)
done
for i in "${!FLOWS[@]}"; do
	read -r lib decision <<<"${FLOWS[$i]}"
	# the whole first line, not a part of it written so far; node and the
	# library's discovery can take minutes on a busy machine
	WAIT_FOR_S=600 wait_for sh -c "[ -n \"\$(head -1 '$TMP/flow.$i' | jq -r '.user_code // empty' 2> /dev/null)\" ]"
	check "issue32.6: $lib got its codes" "$(head -1 "$TMP/flow.$i" | jq -r .verification_uri)" "$BASE/device"
	DECISIONS+="$(head -1 "$TMP/flow.$i" | jq -r .user_code)=$decision "
done

OUT=$(cd "$BROWSER_DIR" && BASE=$BASE USER_EMAIL=rita@example.com USER_PASSWORD="rita's password" \
	APP_NAME="lobby kiosk" DECISIONS=$DECISIONS SCREENSHOT_DIR=$ROOT/build CHROMIUM=$CHROMIUM \
	timeout 180 node device.mjs 2>&1)
RC=$?
[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
check_steps "issue32.6 browser" device.mjs "$RC" "$OUT" launch entry_form to_signin \
	back_to_device approval_1 names_app_1 decided_1 approval_2 names_app_2 decided_2 \
	approval_3 names_app_3 decided_3 approval_4 names_app_4 decided_4 no_console_errors

for i in "${!FLOWS[@]}"; do
	read -r lib decision <<<"${FLOWS[$i]}"
	wait "${PIDS[$i]}"
	RESULT=$(tail -1 "$TMP/flow.$i")
	if [ "$decision" = approve ]; then
		check "issue32.6: $lib completes the flow" "$(jq -r .ok <<<"$RESULT")" true
		check "issue32.6: $lib: the ID token is rita's, for the kiosk, verified with jose" \
			"$(jq -c '[.sub, .aud, .id_verified, .at_verified]' <<<"$RESULT")" "[\"$USER\",\"$KIOSK\",true,true]"
		check "issue32.6: $lib: the scope" "$(jq -r .scope <<<"$RESULT")" "openid profile users:read"
	else
		check "issue32.6: $lib sees the denial" "$(jq -c '[.ok, .error]' <<<"$RESULT")" '[false,"access_denied"]'
	fi
done
check "issue32.6: the browser's decisions are audited as rita's" \
	"$(db "SELECT action || ' ' || actor || ' ' || target || ' ' || count(*) FROM events WHERE action IN ('device.approve', 'device.deny') GROUP BY action, actor, target ORDER BY action")" \
	"device.approve $USER $KIOSK 2
device.deny $USER $KIOSK 2"
check "issue32.7: and the libraries' last polls, as the kiosk's, of rita" \
	"$(db "SELECT actor || ' ' || target || ' ' || outcome || ' ' || count(*) FROM events WHERE action = 'device.poll' GROUP BY actor, target, outcome ORDER BY outcome")" \
	"$KIOSK $USER access_denied 2
$KIOSK $USER success 2"
finish
