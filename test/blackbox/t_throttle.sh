# Sign-in throttling: failures per account and per address lead to 429 with
# Retry-After and no hash computed; success resets the account; the rest of
# the service goes on.
# issue26.4: the window is a day, which no slow sign-in runs out (a
# loaded machine took 30-120 s per hash here), and its end is a step of the
# server's clock (libfaketime; the counters are the node's, in memory, on
# both backends); the later servers' windows are a day too.
# "No hash for a throttled attempt" is an order, not a time (issue26.4): the
# throttled answer comes while sign-ins queued before it (twelve, sent at
# once) still wait for the one hash thread (the metrics' queue depth), which
# a hashed attempt, queued behind them, could not; so the file runs beside
# others.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
WINDOW=86400
fake_clock
MPORT=$(free_port)
EDGEAUTH_WRAPPER=$FAKED start_server signin.max_failures=3 signin.max_failures_per_address=8 \
	signin.window_s=$WINDOW passwords.argon2_memory_kib=32768 passwords.argon2_iterations=2 \
	passwords.hash_threads=1 metrics.listen=127.0.0.1:$MPORT
keepalive_client
# queued: the hashes queued or running
queued() { metric "$MPORT" edgeauth_password_hash_queue_depth; }

REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
for u in ann ben cat dan; do
	req POST "$P/users" "{\"display_name\":\"$u\",\"email\":\"$u@example.com\",\"password\":\"$u password\"}"
done
new_pkce

attempt() { # attempt EMAIL PASSWORD: STATUS, LOCATION, BODY, HDRS
	authorize_post "$APP" "$REDIRECT" "$1" "$2" ""
}

attempt ann@example.com "ann password"
check_status "ann signs in" 302
# success resets: two failures, a success, two failures: not throttled
attempt ann@example.com wrong; attempt ann@example.com wrong
attempt ann@example.com "ann password"
check_status "success after two failures" 302
attempt ann@example.com wrong; attempt ann@example.com wrong
attempt ann@example.com "ann password"
check_status "the counter was reset by the success" 302

# three failures: the account is refused, even with the right password
attempt ben@example.com wrong; attempt ben@example.com wrong; attempt BEN@example.com wrong
check_status "third failure" 401
# twelve sign-ins (twelve accounts, six from each of two other addresses:
# no account's or address's limit counts them), sent at once by one curl,
# wait for the one hash thread, then ben's attempt
: > "$TMP/queued.curl"
for i in $(seq 1 12); do
	req POST "$P/users" "{\"display_name\":\"q$i\",\"email\":\"q$i@example.com\",\"password\":\"q$i password\"}"
	form_encode response_type=code "client_id=$APP" "redirect_uri=$REDIRECT" "code_challenge=$CHALLENGE" \
		code_challenge_method=S256 "email=q$i@example.com" "password=q$i password"
	[ "$i" -gt 1 ] && echo next >> "$TMP/queued.curl"
	printf 'url = "%s/api/v1/authorize"\ndata = "%s"\ninterface = "127.0.0.%s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
		"$BASE" "$FORM" $((2 + i % 2)) >> "$TMP/queued.curl"
done
curl -s --no-progress-meter --parallel --parallel-max 12 -K "$TMP/queued.curl" > "$TMP/queued.status" &
PIDS=($!)
queued_up() { [ "$(queued)" -ge 6 ]; }
wait_for queued_up
attempt ben@example.com "ben password"
DEPTH_AFTER=$(queued)
check_status "throttled account" 429
# Retry-After: the seconds left of the window, 1 to its length
check_header "Retry-After" '^Retry-After: [1-9][0-9]*$'
check "issue26.4: Retry-After is the window's rest" \
	"$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^Retry-After: //Ip' | awk -v w=$WINDOW '{ print ($1 > w / 2 && $1 <= w) ? "yes" : $1 }')" yes
check "too_many_attempts" "$(printf '%s' "$BODY" | grep -c 'data-error="too_many_attempts"')" 1
check "the form comes back with the challenge" "$(printf '%s' "$BODY" | grep -c "value=\"$CHALLENGE\"")" 1
echo "hash queue ${DEPTH_AFTER} after the throttled answer" >&2
check "no hash for a throttled attempt (answered before the hashes queued ahead of it)" \
	"$([ "$DEPTH_AFTER" -ge 1 ] && echo yes || echo "no: $DEPTH_AFTER")" yes
wait "${PIDS[@]}"
check "issue26.4: the sign-ins queued ahead of it" "$(sort "$TMP/queued.status" | uniq -c | awk '{print $2 "x" $1}')" 302x12

# other accounts and the rest of the service go on
attempt cat@example.com "cat password"
check_status "another account signs in" 302
AUTH=none req GET /healthz
check_status "health" 200
req GET "$P/users"
check_status "management API" 200

# after the window, the account may try again: not a second before
step +$((WINDOW / 2))
attempt ben@example.com "ben password"
check_status "issue26.4: still throttled before the window's end" 429
step +$((WINDOW + 1))
attempt ben@example.com "ben password"
check_status "after the window" 302

# per address: failures over several accounts from one address
for i in 1 2; do attempt ann@example.com wrong; attempt cat@example.com wrong; attempt dan@example.com wrong; done
attempt nobody@example.com wrong; attempt nobody2@example.com wrong
attempt ben@example.com "ben password"
check_status "throttled address" 429

# --- attempts count when their check starts (issue 11) ----------------------
# 60 simultaneous wrong guesses for one account: with the default limit of
# 10, exactly 10 passwords are checked and the rest are refused unchecked,
# however the guesses are timed; the right password then is refused too.
stop_server; rm -f "$TMP"/edgeauth.db*; PG_DB=   # a new store, a new default project
start_server signin.window_s=$WINDOW passwords.argon2_memory_kib=32768 passwords.argon2_iterations=2
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/users" '{"display_name":"eve","email":"eve@example.com","password":"eve password"}'
new_pkce
guess() {
	curl -s -o /dev/null -w '%{http_code}\n' --data-urlencode response_type=code \
		--data-urlencode "client_id=$APP" --data-urlencode "redirect_uri=$REDIRECT" \
		--data-urlencode "code_challenge=$CHALLENGE" --data-urlencode code_challenge_method=S256 \
		--data-urlencode email=eve@example.com --data-urlencode "password=guess $1" \
		"$BASE/api/v1/authorize"
}
export -f guess; export APP REDIRECT CHALLENGE BASE
seq 60 | xargs -P 60 -I{} bash -c 'guess {}' > "$TMP/burst"
check "burst: 10 passwords checked" "$(grep -c '^401$' "$TMP/burst")" 10
check "burst: 50 refused unchecked" "$(grep -c '^429$' "$TMP/burst")" 50
attempt eve@example.com "eve password"
check_status "burst: the right password after it" 429

# One address cannot lock an account for everyone: max_failures counts one
# account from one address, max_failures_per_account the account from all.
stop_server; rm -f "$TMP"/edgeauth.db*; PG_DB=
start_server signin.window_s=$WINDOW signin.max_failures=3 signin.max_failures_per_account=5
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/users" '{"display_name":"fay","email":"fay@example.com","password":"fay password"}'
new_pkce
for i in 1 2 3; do FROM=127.0.0.2 attempt fay@example.com wrong; done
check_status "from .2: third failure" 401
FROM=127.0.0.2 attempt fay@example.com "fay password"
check_status "from .2: refused after three" 429
FROM=127.0.0.3 attempt fay@example.com "fay password"
check_status "from .3: the owner still signs in" 302
FROM=127.0.0.2 attempt fay@example.com "fay password"
check_status "from .2: still refused" 429
for i in 1 2 3; do FROM=127.0.0.4 attempt fay@example.com wrong; done
for i in 1 2; do FROM=127.0.0.5 attempt fay@example.com wrong; done
check_status "from .5: second failure" 401
FROM=127.0.0.6 attempt fay@example.com "fay password"
check_status "a spread guessing stops at max_failures_per_account" 429

# --- issue24.7: an IPv6 client counts as its /64 ----------------------------------
# One host normally holds a /64: failures from addresses of one /64 are one
# client's (they used to count as a new client each), another /64 is
# another client, and an IPv4-mapped address is its IPv4 address. The
# clients' addresses come through a trusted proxy (X-Forwarded-For).
stop_server; rm -f "$TMP"/edgeauth.db*; PG_DB=
start_server signin.window_s=$WINDOW signin.max_failures=3 server.trusted_proxies=127.0.0.1
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
for u in gus hal; do
	req POST "$P/users" "{\"display_name\":\"$u\",\"email\":\"$u@example.com\",\"password\":\"$u password\"}"
done
new_pkce
for a in 2001:db8:0:1::a 2001:db8:0:1:ffff::b 2001:DB8:0:1:1:2:3:4; do
	XFF=$a attempt gus@example.com wrong
done
check_status "issue24.7: third failure, from three addresses of one /64" 401
XFF=2001:db8:0:1::d attempt gus@example.com "gus password"
check_status "issue24.7: a fourth address of that /64 is refused" 429
XFF=2001:db8:0:2::a attempt gus@example.com "gus password"
check_status "issue24.7: another /64 signs in" 302
for i in 1 2 3; do XFF=::ffff:192.0.2.7 attempt hal@example.com wrong; done
XFF=192.0.2.7 attempt hal@example.com "hal password"
check_status "issue24.7: an IPv4-mapped address is its IPv4 address" 429

# issue24.3: what one session, and one sign-in, may write in a minute is
# bounded: the N+1-th code of a session and the N+1-th refresh token of a
# sign-in are refused with 429 too_many_attempts and Retry-After, counted
# by answers (no clock involved)
stop_server; rm -f "$TMP"/edgeauth.db*; PG_DB=
start_server sessions.max_codes_per_minute=3 tokens.max_rotations_per_minute=3
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/users" '{"display_name":"gil","email":"gil@example.com","password":"gil password"}'
JAR1=$TMP/jar-gil-1
new_pkce
JAR=$JAR1 authorize_post "$APP" "$REDIRECT" gil@example.com "gil password" "s1"
check_status "issue24.3: a password sign-in, the session's first code" 302
FIRST_CODE=$(query_value "$LOCATION" code) FIRST_VERIFIER=$VERIFIER
SID=$(db "select session_id from auth_codes where hash = '$(secret_hash "$FIRST_CODE")'")
codes=""
for i in 2 3 4 5; do
	JAR=$JAR1 authorize_get "$APP" "$REDIRECT" prompt=none
	codes="$codes $STATUS"
done
check "issue24.3: silent sign-ins of one session: 3 codes, then 429" "$codes" " 302 302 429 429"
check "issue24.3: the 429 says too_many_attempts" "$(grep -c 'data-error="too_many_attempts"' "$TMP/body")" 1
check_header "issue24.3: with Retry-After" '^Retry-After: [0-9]'
check "issue24.3: no redirect, no code" "$LOCATION" ""
check "issue24.3: the session holds 3 codes" "$(db "select count(*) from auth_codes where session_id = '$SID'")" 3
# a password sign-in in the same session: the session goes on, no code
JAR=$JAR1 authorize_post "$APP" "$REDIRECT" gil@example.com "gil password" "s2"
check_status "issue24.3: a password sign-in of the session over its bound" 429
check "issue24.3: its cookie renewed" "$(printf '%s' "$HDRS" | grep -ci '^set-cookie: edgeauth_')" 1
JAR=$JAR1 authorize_get "$APP" "$REDIRECT" prompt=none
check "issue24.3: the renewed session is still over its bound (not signed out)" "$STATUS" 429
# another session of the same user has a bound of its own
JAR=$TMP/jar-gil-2 authorize_post "$APP" "$REDIRECT" gil@example.com "gil password" "s3"
check_status "issue24.3: another session: a code" 302

# rotations: 3 of one sign-in, then 429 (the code's redemption is no rotation)
exchange "$APP" "$REDIRECT" "$FIRST_CODE" "$FIRST_VERIFIER"
check_status "issue24.3: the first code redeems" 200
rotations=""
for i in 1 2 3 4 5; do
	LAST=$REFRESH
	refresh "$APP" "$REFRESH"
	rotations="$rotations $STATUS"
	[ "$STATUS" = 200 ] || REFRESH=$LAST
done
check "issue24.3: rotations of one sign-in: 3, then 429" "$rotations" " 200 200 200 429 429"
check "issue24.3: the token endpoint's 429" "$(jq -r .error <<<"$BODY")" too_many_attempts
check_header "issue24.3: with Retry-After" '^Retry-After: [1-9][0-9]?$'
FAMILY=$(db "select family_id from refresh_tokens where hash = '$(secret_hash "$REFRESH")'")
check "issue24.3: the sign-in holds 4 refresh tokens" "$(db "select count(*) from refresh_tokens where family_id = '$FAMILY'")" 4
# the counters are the node's, in memory: a restart (or the minute's end)
# lets the session and the sign-in go on, the refused token unused
KEEP=("$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET")
stop_server
SERVER_PORT=$PORT start_server sessions.max_codes_per_minute=3 tokens.max_rotations_per_minute=3
PROJECT_ID=${KEEP[0]} CLIENT_ID=${KEEP[1]} CLIENT_SECRET=${KEEP[2]}   # not printed again
refresh "$APP" "$REFRESH"
check_status "issue24.3: the refused token was left usable" 200
JAR=$JAR1 authorize_get "$APP" "$REDIRECT" prompt=none
check "issue24.3: the session gets codes again" "$STATUS" 302

finish
