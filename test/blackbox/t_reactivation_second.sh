# One cut-off rule for a deactivation, in whole seconds (issue 33 item 2):
# a code, a refresh token and an access token issued in the second of a
# deactivation, even after a reactivation in that second, are all refused
# alike; before, codes and refresh tokens were compared to the millisecond,
# so a refresh token issued after the reactivation worked while the access
# tokens it gave were dead on arrival.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
set_active() { # set_active user|client true|false
	if [ "$1" = user ]; then
		req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" --argjson a "$2" '{display_name:"Rita",is_active:$a,email:$e}')"
	else
		req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":$2}"
	fi
	check_status "$1 is_active=$2" 200
}
# every_kind LABEL WANT [cc]: a sign-in's code, the access and refresh
# tokens it gives, the refresh's access token (and with cc the app's
# client_credentials token) are all refused (WANT=refused) or all work
every_kind() {
	local label=$1 want=$2 got=() cc
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
	exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	if [ "$STATUS" = 200 ]; then
		got+=("code:works")
		AUTH="Bearer $ACCESS" req GET "$P/users"
		got+=("access:$([ "$STATUS" = 200 ] && echo works || echo refused)")
		refresh "$APP" "$REFRESH"
		got+=("refresh:$([ "$STATUS" = 200 ] && echo works || echo refused)")
		if [ "$STATUS" = 200 ]; then
			AUTH="Bearer $ACCESS" req GET "$P/users"
			got+=("its access:$([ "$STATUS" = 200 ] && echo works || echo refused)")
		fi
	else
		got+=("code:refused")
	fi
	if [ "${3:-}" = cc ]; then
		cc=$(client_token "$APP" "$APP_SECRET")
		AUTH="Bearer $cc" req GET "$P/users"   # the app holds no permission: 403 when valid
		got+=("client_credentials:$([ "$STATUS" = 403 ] && echo works || echo refused)")
	fi
	local bad
	bad=$(printf '%s\n' "${got[@]}" | grep -v ":$want\$" | tr '\n' ' ')
	check "issue33.2: $label: every kind $want (${got[*]})" "$bad" ""
}
# same_second LABEL KIND_TABLE: the last deactivation and the newest code
# fall in one second, the code after the deactivation (the case to test)
same_second() {
	local cut code
	cut=$(db "SELECT tokens_valid_after FROM $2 WHERE tokens_valid_after IS NOT NULL ORDER BY tokens_valid_after DESC LIMIT 1")
	code=$(db "SELECT max(created_at) FROM auth_codes")
	check "issue33.2: $1: code ($code) after the cut-off ($cut), in its second" \
		"$([ "$code" -gt "$cut" ] && [ $((code / 1000)) -eq $((cut / 1000)) ] && echo yes)" yes
}

# --- A: through the API, under a clock that runs a thousand times slower
# from a whole second (libfaketime; SQLite: on PostgreSQL these times are
# the database's clock, which part B covers), so that a deactivation, a
# reactivation and the tokens after it fall in one second, each a few
# milliseconds after the one before.
if [ "$BACKEND" = sqlite ]; then
	echo "@$(date -u -d 'tomorrow' +%F) 00:00:00 x0.001" > "$TMP/clock"
	EDGEAUTH_WRAPPER="env LD_PRELOAD=$FAKETIME_LIB ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 FAKETIME_TIMESTAMP_FILE=$TMP/clock FAKETIME_DONT_FAKE_MONOTONIC=1" \
		start_server
	rita_and_app
	for holder in user client; do
		set_active $holder false
		sleep 1.1   # a millisecond of the server's clock
		set_active $holder true
		sleep 1.1
		every_kind "$holder reactivated in the same second" refused $([ $holder = client ] && echo cc)
		table=users; [ $holder = client ] && table=clients
		same_second "$holder reactivated" $table
		db "UPDATE $table SET tokens_valid_after = NULL"
	done
	stop_server
	rm -f "$TMP/edgeauth.db"*
fi

# --- B: either backend, real clock: the cut-off set (as the deactivation's
# trigger sets it) to the start of the second a code or refresh token was
# created in, a few milliseconds before it: the grant is refused, as an
# access token of that second is.
start_server
rita_and_app
cut_in_second_of() { # cut_in_second_of TABLE HASH: prints the cut-off it set, or nothing
	local at
	at=$(db "SELECT created_at FROM $1 WHERE hash = '$2'")
	[ $((at % 1000)) -eq 0 ] && return   # a cut-off before it in its second is impossible
	db "UPDATE users SET tokens_valid_after = $((at / 1000 * 1000)) WHERE id = '$USER'" > /dev/null
	echo $((at / 1000 * 1000))
}
cut=
for _ in 1 2 3; do
	db "UPDATE users SET tokens_valid_after = NULL" > /dev/null
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
	cut=$(cut_in_second_of auth_codes "$(secret_hash "$CODE")") && [ -n "$cut" ] && break
done
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_err "issue33.2: a code created in the cut-off's second, after it" 400 invalid_authorization_code

for _ in 1 2 3; do
	db "UPDATE users SET tokens_valid_after = NULL" > /dev/null
	signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
	cut=$(cut_in_second_of refresh_tokens "$(secret_hash "$REFRESH")") && [ -n "$cut" ] && break
done
IAT=$(jwt_claim "$ACCESS" iat)
AUTH="Bearer $ACCESS" req GET "$P/users"
if [ "$IAT" -le $((cut / 1000)) ]; then want=401; else want=200; fi
check "issue33.2: the access token beside it, iat $IAT, cut-off second $((cut / 1000))" "$STATUS" "$want"
refresh "$APP" "$REFRESH"
check_err "issue33.2: a refresh token created in the cut-off's second, after it" 400 invalid_refresh_token

finish
