# [server] trusted_proxies (docs/operations.md §"Client address behind a proxy"): for a request from a trusted
# proxy the last X-Forwarded-For entry is the client's address, which the
# sign-in throttle counts by; from anyone else the header is ignored, and a
# malformed one from a proxy leaves the proxy's own address.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
# 127.0.0.1 is the proxy; 127.0.0.2 is a client that sends the header too
start_server "server.trusted_proxies=10.9.0.0/16 127.0.0.1/32" signin.max_failures_per_address=2 \
	signin.max_failures=100 signin.max_failures_per_account=100

REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","email":"ann@example.com","password":"ann password"}'
new_pkce

# attempt FROM XFF PASSWORD: a sign-in from loopback address FROM, with the
# X-Forwarded-For header XFF (none when empty); prints the status
attempt() {
	local args=(-s -o /dev/null -w '%{http_code}' --interface "$1"
		--data-urlencode response_type=code --data-urlencode "client_id=$APP"
		--data-urlencode "redirect_uri=$REDIRECT" --data-urlencode "code_challenge=$CHALLENGE"
		--data-urlencode code_challenge_method=S256 --data-urlencode email=ann@example.com
		--data-urlencode "password=$3")
	[ -n "$2" ] && args+=(-H "X-Forwarded-For: $2")
	curl "${args[@]}" "$BASE/api/v1/authorize"
}

# trusted: the address behind the proxy is what counts
check "via the proxy, client A, 1" "$(attempt 127.0.0.1 203.0.113.5 wrong)" 401
check "via the proxy, client A, 2" "$(attempt 127.0.0.1 203.0.113.5 wrong)" 401
check "client A is throttled" "$(attempt 127.0.0.1 203.0.113.5 "ann password")" 429
check "client B behind the same proxy is not" "$(attempt 127.0.0.1 203.0.113.6 "ann password")" 302
check "the proxy's own address is not" "$(attempt 127.0.0.1 "" "ann password")" 302
# the last entry is the one the proxy added; those before are the client's to write
check "a chain: the last entry counts, 1" "$(attempt 127.0.0.1 "198.51.100.1, 203.0.113.7" wrong)" 401
check "a chain: the last entry counts, 2" "$(attempt 127.0.0.1 "203.0.113.5, 203.0.113.7" wrong)" 401
check "a chain: throttled by its last entry" "$(attempt 127.0.0.1 203.0.113.7 "ann password")" 429
check "a chain's first entry does not count" "$(attempt 127.0.0.1 198.51.100.1 "ann password")" 302
check "IPv6 entry" "$(attempt 127.0.0.1 2001:db8::1 wrong)$(attempt 127.0.0.1 2001:DB8:0::1 wrong)" 401401
check "IPv6 entry throttled as one address" "$(attempt 127.0.0.1 2001:db8::1 "ann password")" 429
check "an IPv4-mapped entry" "$(attempt 127.0.0.1 ::ffff:203.0.113.20 wrong)$(attempt 127.0.0.1 ::FFFF:203.0.113.20 wrong)" 401401
check "is its IPv4 address to the throttle" "$(attempt 127.0.0.1 203.0.113.20 "ann password")" 429

# untrusted: 127.0.0.2 sends the header, which is ignored
check "untrusted, 1" "$(attempt 127.0.0.2 192.0.2.1 wrong)" 401
check "untrusted, 2" "$(attempt 127.0.0.2 192.0.2.2 wrong)" 401
check "untrusted: counted as 127.0.0.2 whatever the header says" "$(attempt 127.0.0.2 192.0.2.3 "ann password")" 429
check "and the addresses it named are not throttled" "$(attempt 127.0.0.1 192.0.2.1 "ann password")" 302

# a malformed header from the proxy: the proxy's own address
check "malformed: not an address" "$(attempt 127.0.0.1 not-an-address wrong)" 401
check "malformed: with a port" "$(attempt 127.0.0.1 203.0.113.9:8080 wrong)" 401
check "the two counted for the proxy itself" "$(attempt 127.0.0.1 "" "ann password")" 429
for bad in "[2001:db8::2]" "203.0.113.9 extra" "203.0.113.9," "" " "; do
	check "malformed '$bad' is the proxy's address" "$(attempt 127.0.0.1 "$bad" "ann password")" 429
done
check "while its clients are not" "$(attempt 127.0.0.1 203.0.113.10 "ann password")" 302
finish
