# One cut-off rule for a deactivation, in whole seconds (issue 33 item 2;
# docs/decisions.md "Reactivation revives nothing"): a code, a refresh token, an access
# token and a browser session issued in the second of a deactivation, even
# after a reactivation in that second, are all refused alike, on both
# backends; before, codes and refresh tokens were compared to the
# millisecond, so a refresh token issued after the reactivation worked while
# the access tokens it gave were dead on arrival, and such a session signed
# in silently to codes that were.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
[ -r "$FAKETIME_LIB" ] || { fail "libfaketime is needed (apt-get install faketime; scripts/install-deps test)"; finish; exit 1; }
set_active() { # set_active user|client true|false
	if [ "$1" = user ]; then
		req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" --argjson a "$2" '{display_name:"Rita",is_active:$a,email:$e}')"
	else
		req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":$2}"
	fi
	check_status "$1 is_active=$2" 200
}
# every_kind LABEL WANT HOLDER: a sign-in's code, the access and refresh
# tokens it gives, the refresh's access token, and for a user the browser
# session it started (a silent sign-in, prompt=none, gives a code; a
# session is the user's, so a client's cut-off leaves it alone), for a
# client its client_credentials token, are all refused (WANT=refused) or
# all work
every_kind() {
	local label=$1 want=$2 got=() cc JAR=$TMP/jar.$RANDOM
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
	if [ "$3" = user ]; then
		authorize_get "$APP" "$REDIRECT" prompt=none
		got+=("session:$([ -n "$CODE" ] && echo works || echo refused)")
	else
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

# --- A: either backend, real clock: the cut-off set (as the deactivation's
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

# --- B: through the API, on either backend, under a clock that runs 2000
# times slower than the real one from a whole second T0, so that a
# deactivation, a reactivation and the tokens after it fall in one second,
# each a millisecond or more after the one before, however slow the machine
# (a second of that clock is 2000 real ones, more than this part takes on a
# machine ten times slower; same_second checks it). The server's clock is
# libfaketime's; on PostgreSQL the times the database writes (a
# deactivation's cut-off, a code's or refresh token's creation) are its
# edgeauth_now_ms, which this test's database replaces by the same clock.
db "UPDATE users SET tokens_valid_after = NULL" > /dev/null
stop_server
T0=$(( $(date +%s) + 2 ))
echo "@$(date -d "@$T0" '+%Y-%m-%d %H:%M:%S') x0.0005" > "$TMP/clock"
if [ "$BACKEND" = postgres ]; then
	db "CREATE OR REPLACE FUNCTION edgeauth_now_ms() RETURNS bigint LANGUAGE sql STABLE
		AS \$\$ SELECT ${T0}000 + floor((extract(epoch FROM now()) * 1000 - $(date +%s%3N)) / 2000)::bigint \$\$"
fi
EDGEAUTH_WRAPPER="env LD_PRELOAD=$FAKETIME_LIB ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 FAKETIME_TIMESTAMP_FILE=$TMP/clock FAKETIME_DONT_FAKE_MONOTONIC=1" \
	restart_server
for holder in user client; do
	set_active $holder false
	sleep 2.2   # over a millisecond of the server's clock
	set_active $holder true
	sleep 2.2
	every_kind "$holder reactivated in the same second" refused $holder
	table=users; [ $holder = client ] && table=clients
	same_second "$holder reactivated" $table
	db "UPDATE $table SET tokens_valid_after = NULL" > /dev/null
done

finish
