# The database goes away under load, and comes back (docs/operations.md §"A fleet on PostgreSQL"): while
# no connection is usable every request that needs the store answers
# 503 system_error with Retry-After, at once, never a 500, a hang, or an
# answer that would be wrong (a 401 for a good token, a 404 for a client
# that exists); once the database is back the node recovers by itself. The
# test has a cluster of its own (scripts/pg-cluster), which it stops.
. "$(dirname "$0")/../lib.sh"
postgres_only
own_cluster
start_server

AUTH="Bearer $TOKEN" req POST "$P/clients" '{"name":"there"}'
check_status "a client" 201
C=$(jq -r .id <<<"$BODY")

# load SECONDS OUT: a client_credentials grant, a read of the client and a
# create, over and over, each answer's status (and error, Retry-After) a
# line, for SECONDS or until $TMP/stop exists. Each answer may take a minute
# (a busy machine's slowness is not an outage: "at once" means no wait for
# a connection that will not come, which 503 within that minute shows).
# One round at least: "load 1" started late in a second would otherwise make
# none on a busy machine (the first check then read no file at all).
load() {
	local until=$(( $(date +%s) + $1 )) out=$2 first=1
	while [ "$first" = 1 ] || { [ "$(date +%s)" -lt "$until" ] && [ ! -e "$TMP/stop" ]; }; do
		first=0
		curl -s -m 60 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -u "$CLIENT_ID:$CLIENT_SECRET" \
			-d grant_type=client_credentials "$BASE/api/v1/tokens" > "$TMP/l.s"
		summarize >> "$out"
		curl -s -m 60 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
			"$BASE$P/clients/$C" > "$TMP/l.s"
		summarize >> "$out"
		curl -s -m 60 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
			-H 'Content-Type: application/json' --data '{"name":"load"}' "$BASE$P/clients" > "$TMP/l.s"
		summarize >> "$out"
	done
}
# one answer as "STATUS", or "503 error retry-after" (000: no answer in 60 s)
summarize() {
	local s
	s=$(cat "$TMP/l.s")
	if [ "$s" = 503 ]; then
		echo "503 $(jq -r .error "$TMP/l.b") $(tr -d '\r' < "$TMP/l.h" | grep -ci '^Retry-After: [0-9]')"
	else
		echo "$s"
	fi
}

load 1 "$TMP/before"
check "before: every answer a success" "$(sort -u "$TMP/before" | paste -sd,)" "200,201"

# Each step waits for what the load saw, not for a time (issue26.4): the
# load under way, the outage answered, the node back (the reconnect's
# longest backoff is 2 s; a busy machine may take longer, the minute of
# wait_for bounds it).
# answered N: the load has N answers since it started
answered() { [ "$(wc -l < "$TMP/during" 2>/dev/null || echo 0)" -ge "$1" ]; }
outage_seen() { grep -q '^503' "$TMP/during"; }
back() { [ "$(tail -3 "$TMP/during" | paste -sd,)" = "200,200,201" ]; }
: > "$TMP/during"
load 600 "$TMP/during" &
LOAD=$!
wait_for answered 3 || fail "the load got no answers"
"$ROOT/scripts/pg-cluster" halt "$CLUSTER"
wait_for outage_seen || fail "the load never saw the outage"
"$ROOT/scripts/pg-cluster" start "$CLUSTER" >&2
wait_for back
touch "$TMP/stop"
wait "$LOAD"
check "during: only successes and 503 system_error with Retry-After" \
	"$(sort -u "$TMP/during" | grep -Ev '^(200|201|503 system_error 1)$' | paste -sd,)" ""
check "during: the outage was seen" "$(grep -c '^503 system_error 1$' "$TMP/during")" \
	"$(grep -c '^503' "$TMP/during")"
[ "$(grep -c '^503' "$TMP/during")" -gt 0 ] && pass || fail "no 503 while the database was down"
check "during: the node came back by itself" "$(tail -3 "$TMP/during" | paste -sd,)" "200,200,201"

AUTH="Bearer $TOKEN" req GET "$P/clients/$C"
check_status "after: the client is there, the token still good" 200
AUTH=none req POST /api/v1/tokens -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials
check_status "after: a grant" 200
check "no 500 in the log" "$(grep -c ' 500 ' "$TMP/server.log")" 0
check "the node said it lost the database" "$(grep -c 'connection: .*reconnecting' "$TMP/server.log" |
	awk '{print ($1 > 0)}')" 1
finish
