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
# line, for SECONDS or until $TMP/stop exists
load() {
	local until=$(( $(date +%s) + $1 )) out=$2
	while [ "$(date +%s)" -lt "$until" ] && [ ! -e "$TMP/stop" ]; do
		curl -s -m 5 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -u "$CLIENT_ID:$CLIENT_SECRET" \
			-d grant_type=client_credentials "$BASE/api/v1/tokens" > "$TMP/l.s"
		summarize >> "$out"
		curl -s -m 5 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
			"$BASE$P/clients/$C" > "$TMP/l.s"
		summarize >> "$out"
		curl -s -m 5 -o "$TMP/l.b" -D "$TMP/l.h" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
			-H 'Content-Type: application/json' --data '{"name":"load"}' "$BASE$P/clients" > "$TMP/l.s"
		summarize >> "$out"
	done
}
# one answer as "STATUS", or "503 error retry-after" (000: no answer in 5 s)
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

load 60 "$TMP/during" &
LOAD=$!
sleep 1
"$ROOT/scripts/pg-cluster" halt "$CLUSTER"
sleep 2
"$ROOT/scripts/pg-cluster" start "$CLUSTER" >&2
# back within the reconnect's longest backoff (2 s), and some
for _ in $(seq 1 50); do
	[ "$(tail -3 "$TMP/during" | paste -sd,)" = "200,200,201" ] && break
	sleep 0.1
done
sleep 1
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
