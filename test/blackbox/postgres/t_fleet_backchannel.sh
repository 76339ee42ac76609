# Back-channel logout from two nodes on one database (docs/signin.md §"Back-channel logout"; docs/operations.md §"A fleet on PostgreSQL"):
# each node reads the one outbox, and a read claims its rows for the node
# (schema/postgres/018), so that every logout is POSTed once, whichever
# node ended the session and whichever reads first; a new row's NOTIFY
# makes a node read at once rather than at its next poll (every second).
. "$(dirname "$0")/../lib.sh"
if [ "$BACKEND" != postgres ]; then
	fail "t_fleet_backchannel runs on PostgreSQL: EDGEAUTH_BACKEND=postgres test/blackbox/run.sh postgres/t_fleet_backchannel.sh"
	finish
	exit 1
fi
RLOG=$TMP/received.jsonl
. "$BB_DIR/backchannel_lib.sh"

start_receiver plain
R=http://127.0.0.1:$RPORT
start_server
A=$BASE
B_PORT=$(free_port)
write_config "$TMP/b.conf" "$B_PORT" "server.issuer=$A"
"$EDGEAUTH" -c "$TMP/b.conf" serve > "$TMP/b.out" 2>> "$TMP/b.log" &
B_PID=$!
B="http://127.0.0.1:$B_PORT"
trap 'stop_receivers; kill "$B_PID" 2>/dev/null; stop_server' EXIT
for _ in $(seq 1 200); do curl -s -o /dev/null "$B/healthz" && break; sleep 0.05; done

client app "$R/ok/app"; APP=$CID

# signed_in N [CLIENT]: user N (sets ID), with a session in which CLIENT
# (the app) got a code
signed_in() {
	req POST "$P/users" "{\"display_name\":\"u$1\",\"email\":\"u$1@example.com\",\"password\":\"correct horse\"}"
	check_status "user $1" 201
	ID=$(jq -r .id <<<"$BODY")
	session "sess-$1" "$ID" "${2:-$APP}"
}
# end NODE N: user N (ID) is deactivated through NODE, which ends the session
end() {
	BASE=$1 req PUT "$P/users/$ID" "{\"display_name\":\"u$2\",\"email\":\"u$2@example.com\",\"is_active\":false}"
}

N=12
for i in $(seq 1 $N); do
	signed_in "$i"
	if [ $((i % 2)) = 0 ]; then end "$A" "$i"; else end "$B" "$i"; fi
	check_status "session $i ended" 200
done
wait_posts /ok/app $N 60 || fail "the receiver got $(posts /ok/app) logouts, want $N"
sleep 2.5   # two more polls of each node: a second delivery would show by now
check "each logout was POSTed once by the two nodes" "$(posts /ok/app)" $N
check "one per session" "$(jq -rs '[.[] | .body | capture("logout_token=[^.]+\\.(?<p>[^.]+)").p] | length' "$RLOG")" $N
check "the outbox is empty" "$(db "select count(*) from backchannel_outbox")" 0

# a receiver that answers 500: each logout is tried 3 times over 6 s, long
# enough for both nodes' reads to find its row; still 3 POSTs a logout, one
# node's
client failing "$R/fail/app"; FAILING=$CID
for i in 1 2 3 4; do
	signed_in "f$i" "$FAILING"
	if [ $((i % 2)) = 0 ]; then end "$A" "f$i"; else end "$B" "f$i"; fi
	check_status "session f$i ended" 200
done
wait_posts /fail/app 12 60 || fail "the failing receiver got $(posts /fail/app) attempts, want 12"
sleep 2.5
# attempts_per_jti PATH: how many POSTs each logout's jti got, as the
# distinct counts (e.g. "3")
attempts_per_jti() {
	python3 - "$RLOG" "$1" <<'PY'
import base64, collections, json, sys
log, path = sys.argv[1:]
n = collections.Counter()
for line in open(log):
    e = json.loads(line)
    if e["path"] == path:
        p = e["body"].partition("logout_token=")[2].split(".")[1]
        n[json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))["jti"]] += 1
print(",".join(str(c) for c in sorted(set(n.values()))))
PY
}
check "3 attempts a logout, not one series a node" "$(attempts_per_jti /fail/app) $(posts /fail/app)" "3 12"

# at once, not at the next poll: the two nodes give way to one whose poll
# is an hour ([oidc] backchannel_poll_ms), so a logout it ends reaches the
# receiver only through the notification of its outbox row. A state, not a
# time: a busy machine only makes the wait longer.
kill "$B_PID" 2>/dev/null; wait "$B_PID" 2>/dev/null
stop_server
C_PORT=$(free_port)
write_config "$TMP/c.conf" "$C_PORT" "server.issuer=$A" "oidc.backchannel_poll_ms=3600000"
"$EDGEAUTH" -c "$TMP/c.conf" serve > "$TMP/c.out" 2>> "$TMP/c.log" &
B_PID=$!
C="http://127.0.0.1:$C_PORT"
wait_for curl -s -o /dev/null "$C/healthz"
DELIVERED=0
for i in $(seq 1 5); do
	BASE=$C signed_in "fast$i"
	before=$(posts /ok/app)
	end "$C" "fast$i"
	wait_posts /ok/app $((before + 1)) 60 && DELIVERED=$((DELIVERED + 1))
done
check "logouts delivered on the notification, with no poll to come" "$DELIVERED of 5" "5 of 5"
kill "$B_PID" 2>/dev/null; wait "$B_PID" 2>/dev/null
finish
