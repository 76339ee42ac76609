# issue32.6: real clients of the device grant (docs/device.md): the device
# functions of openid-client and oauth4webapi (test/oauth-client/
# device_flow.mjs), unchanged, ask for codes and poll, while a browser (curl
# with a cookie jar, as ua_browse) signs in on /device and approves, or
# denies; the tokens verify with jose against the JWKS. The library polls
# on its own clock: [device] interval_s = 1 only makes that wait short,
# nothing here races it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
command -v node > /dev/null || missing_tool "node (Debian's nodejs)"
need_node_project "$ROOT/test/oauth-client" openid-client
start_server device.interval_s=1
reader_user rita@example.com "rita's password" Rita
req POST "$P/clients" '{"name":"lobby kiosk","device_flow":true}'
check_status "a device_flow client" 201
KIOSK=$(jq -r .id <<<"$BODY")

# decide CODE approve|deny: a browser's visit to /device with the code,
# the sign-in it is sent to, and the decision posted from the approval page
decide() {
	local jar=$TMP/jar.$RANDOM args
	args=(-s -b "$jar" -c "$jar" -o "$TMP/page" -w '%{http_code}')
	curl "${args[@]}" "$BASE/device?user_code=$1" > /dev/null
	curl "${args[@]}" -H "Origin: $BASE" --data-urlencode response_type=code \
		--data-urlencode "client_id=console.$PROJECT_ID" \
		--data-urlencode "redirect_uri=$BASE/device?user_code=${1/-/}" \
		--data-urlencode "email=rita@example.com" --data-urlencode "password=rita's password" \
		"$BASE/api/v1/authorize" > /dev/null
	curl "${args[@]}" "$BASE/device?user_code=$1" > /dev/null
	local tok
	tok=$(grep -o 'name="form_token" value="[^"]*"' "$TMP/page" | head -1 | sed 's/.*value="//; s/"$//')
	STATUS=$(curl "${args[@]}" -H "Origin: $BASE" -H "Sec-Fetch-Site: same-origin" \
		--data-urlencode "form_token=$tok" --data-urlencode "user_code=$1" \
		--data-urlencode "decision=$2" "$BASE/device")
}

for lib in openid-client oauth4webapi; do
	for decision in approve deny; do
		node "$ROOT/test/oauth-client/device_flow.mjs" "$lib" "$BASE" "$KIOSK" > "$TMP/flow.out" 2>&1 &
		FLOW=$!
		# the whole first line, not a part of it written so far; node and the
		# library's discovery can take minutes on a busy machine
		WAIT_FOR_S=600 wait_for sh -c "[ -n \"\$(head -1 '$TMP/flow.out' | jq -r '.user_code // empty' 2> /dev/null)\" ]"
		UC=$(head -1 "$TMP/flow.out" | jq -r .user_code)
		check "issue32.6: $lib got its codes" "$(head -1 "$TMP/flow.out" | jq -r .verification_uri)" "$BASE/device"
		decide "$UC" "$decision"
		check "issue32.6: $lib: the browser's $decision" "$STATUS" 200
		wait "$FLOW"
		RESULT=$(tail -1 "$TMP/flow.out")
		if [ "$decision" = approve ]; then
			check "issue32.6: $lib completes the flow" "$(jq -r .ok <<<"$RESULT")" true
			check "issue32.6: $lib: the ID token is rita's, for the kiosk, verified with jose" \
				"$(jq -c '[.sub, .aud, .id_verified, .at_verified]' <<<"$RESULT")" "[\"$USER\",\"$KIOSK\",true,true]"
			check "issue32.6: $lib: the scope" "$(jq -r .scope <<<"$RESULT")" "openid profile users:read"
		else
			check "issue32.6: $lib sees the denial" "$(jq -c '[.ok, .error]' <<<"$RESULT")" '[false,"access_denied"]'
		fi
	done
done
finish
