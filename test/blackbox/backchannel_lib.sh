# Helpers for the back-channel tests: receivers (logout_receiver.py, on
# 127.0.0.1) that log each request to RLOG, and counts of what they got.
# Sourced after lib.sh; set RLOG first.
RECEIVERS=()

# start_receiver NAME [CERT KEY]: a receiver; sets NAME's port in RPORT
start_receiver() {
	local name=$1; shift
	rm -f "$TMP/$name.port"
	python3 "$BB_DIR/logout_receiver.py" "$TMP/$name.port" "$RLOG" "$@" 2>> "$TMP/receiver.log" &
	RECEIVERS+=($!)
	wait_for test -s "$TMP/$name.port" || fail "receiver $name did not start"
	RPORT=$(cat "$TMP/$name.port")
}
stop_receivers() { [ ${#RECEIVERS[@]} -gt 0 ] && kill "${RECEIVERS[@]}" 2>/dev/null; RECEIVERS=(); }

# posts PATH: how many requests the receivers got at PATH
# (a line the receiver is still writing makes jq fail: none counted yet)
posts() {
	local n
	n=$(jq -s --arg p "$1" '[.[] | select(.path == $p)] | length' "$RLOG" 2>/dev/null) || n=0
	echo "${n:-0}"
}
# wait_posts PATH N SECONDS: waits until PATH has N requests (SECONDS: a
# bound no busy machine reaches, issue26.4)
wait_posts() {
	local i
	for i in $(seq 1 $(($3 * 20))); do [ "$(posts "$1")" -ge "$2" ] && return 0; sleep 0.05; done
	return 1
}

# session SID USER CLIENT...: a live session of USER in which CLIENTs got a code
session() {
	local sid=$1 user=$2 c; shift 2
	local now=$(($(date +%s%N) / 1000000))
	db "INSERT INTO sessions (id, secret_hash, project_id, user_id, auth_time, created_at, expires_at)
	     VALUES ('$sid', 'hash-$sid', '$PROJECT_ID', '$user', $now, $now, $now + 3600000)"
	for c in "$@"; do db "INSERT INTO session_clients VALUES ('$sid', '$c')"; done
}

# client NAME URI [ALG]: a client whose backchannel_logout_uri is URI; sets CID
client() {
	local alg=${3:-RS256}
	req POST "$P/clients" "{\"name\":\"$1\",\"backchannel_logout_uri\":\"$2\",\"id_token_signed_response_alg\":\"$alg\",\"redirect_uris\":[\"http://127.0.0.1:9/cb\"]}"
	check_status "client $1" 201
	CID=$(jq -r .id <<<"$BODY")
}
