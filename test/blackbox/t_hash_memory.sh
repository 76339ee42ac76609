# A password hash that cannot run (argon2 gets no memory under an address-
# space limit) is 503 temporarily_unavailable: not a wrong password, no
# signin.failure, no count towards a lock-out, and the server lives on
# (issue 24 item 11).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
# An AddressSanitizer build (make check) reserves terabytes of address space
# for its shadow memory, which any address-space limit refuses: this file
# runs on the plain build (make test) only.
if ldd "$EDGEAUTH" 2>/dev/null | grep -q libasan; then
	echo "t_hash_memory: not under AddressSanitizer (an address-space limit stops its runtime)"
	finish; exit 0
fi
# 19 MiB, as the fault run had it; one failure locks the account, so a
# failure counted in error shows at once.
start_server passwords.argon2_memory_kib=19456 passwords.argon2_iterations=1 \
	signin.max_failures=1 signin.max_failures_per_account=1
EMAIL="ann@example.com"; PASSWORD="ann's password"
reader_user "$EMAIL" "$PASSWORD" "Ann"
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
failures() { db "SELECT count(*) FROM events WHERE action = 'signin.failure'"; }

# The fault run's limit, from the start: 48 MiB of address space, where the
# server runs but a 19 MiB hash cannot be had. Three tries with a lock-out
# after one failure: each is 503, never 401, and none is throttled.
SAVED=("$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET")
stop_server
EDGEAUTH_WRAPPER="prlimit --as=$((48 * 1024 * 1024))" start_server \
	passwords.argon2_memory_kib=19456 passwords.argon2_iterations=1 \
	signin.max_failures=1 signin.max_failures_per_account=1
PROJECT_ID=${SAVED[0]} CLIENT_ID=${SAVED[1]} CLIENT_SECRET=${SAVED[2]}
P="/api/v1/projects/$PROJECT_ID" TOKEN=$(admin_token)
for i in 1 2 3; do
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
	check "issue24.11: sign-in $i without memory for the hash is 503" "$STATUS" 503
	check "issue24.11: sign-in $i error" "$(jq -r .error <<<"$BODY" 2>/dev/null)" temporarily_unavailable
	check_header "issue24.11: sign-in $i Retry-After" '^Retry-After: [0-9]+'
done
check "issue24.11: no signin.failure recorded" "$(failures)" 0
req POST "$P/users" "$(jq -cn '{display_name:"Bo",email:"bo@example.com",password:"bo password"}')"
check_err "issue24.11: a user create whose hash cannot run" 503 temporarily_unavailable
req GET /healthz
check_status "issue24.11: the server lives through the failed allocations" 200
kill -0 "$SERVER_PID" 2>/dev/null
check "issue24.11: still running" $? 0

# At 64 MiB one hash may fit and two at once may not: of simultaneous
# sign-ins with the right password each is signed in or 503, none 401, and
# the server lives through the hash threads' failed allocations.
stop_server
EDGEAUTH_WRAPPER="prlimit --as=$((64 * 1024 * 1024))" start_server \
	passwords.argon2_memory_kib=19456 passwords.argon2_iterations=1 passwords.hash_threads=4
PROJECT_ID=${SAVED[0]} CLIENT_ID=${SAVED[1]} CLIENT_SECRET=${SAVED[2]}
before=$(failures)
for round in 1 2 3; do
	for i in 1 2 3 4 5 6 7 8; do
		(new_pkce; TMP=$TMP/r$i; mkdir -p "$TMP"; authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" st
		 echo "$STATUS" > "$TMP/status") &
	done
	wait_children=$(jobs -p | grep -vx "$SERVER_PID")
	wait $wait_children
	answers=$(cat "$TMP"/r*/status | sort | uniq -c | tr -s ' \n' ' ')
	check "issue24.11: 64 MiB round $round: only 302 or 503 ($answers)" \
		"$(cat "$TMP"/r*/status | grep -cvE '^(302|503)$')" 0
done
check "issue24.11: 64 MiB: no signin.failure recorded" "$(failures)" "$before"
kill -0 "$SERVER_PID" 2>/dev/null
check "issue24.11: 64 MiB: the server still runs" $? 0

finish
