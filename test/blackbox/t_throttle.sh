# Sign-in throttling: failures per account and per address lead to 429 with
# Retry-After and no hash computed; success resets the account; the rest of
# the service goes on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server signin.max_failures=3 signin.max_failures_per_address=8 signin.window_s=3 \
	passwords.argon2_memory_kib=32768 passwords.argon2_iterations=2

REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
for u in ann ben cat dan; do
	req POST "$P/users" "{\"display_name\":\"$u\",\"email\":\"$u@example.com\",\"password\":\"$u password\"}"
done
new_pkce

attempt() { # attempt EMAIL PASSWORD: STATUS, LOCATION, BODY, HDRS, MS
	local t0=$(date +%s%N)
	authorize_post "$APP" "$REDIRECT" "$1" "$2" ""
	MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

attempt ann@example.com "ann password"
check_status "ann signs in" 302
HASH_MS=$MS
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
attempt ben@example.com "ben password"
check_status "throttled account" 429
check_header "Retry-After" '^Retry-After: [1-3]$'
check "too_many_attempts" "$(printf '%s' "$BODY" | grep -c 'data-error="too_many_attempts"')" 1
check "the form comes back with the challenge" "$(printf '%s' "$BODY" | grep -c "value=\"$CHALLENGE\"")" 1
echo "one sign-in ${HASH_MS} ms, a throttled answer ${MS} ms" >&2
check "no hash for a throttled attempt" "$([ "$MS" -lt "$HASH_MS" ] && echo yes)" yes

# other accounts and the rest of the service go on
attempt cat@example.com "cat password"
check_status "another account signs in" 302
AUTH=none req GET /healthz
check_status "health" 200
req GET "$P/users"
check_status "management API" 200

# after the window, the account may try again
sleep 3.2
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
start_server passwords.argon2_memory_kib=32768 passwords.argon2_iterations=2
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
start_server signin.max_failures=3 signin.max_failures_per_account=5
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
start_server signin.max_failures=3 server.trusted_proxies=127.0.0.1
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

finish
