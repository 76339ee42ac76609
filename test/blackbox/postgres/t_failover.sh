# Failover on loopback (docs/operations.md §"A fleet on PostgreSQL"): a primary and its hot standby
# (pg_basebackup -R, synchronous replication), two nodes with
# url = host=A,B ... target_session_attrs=read-write. Under a write load
# through node A the primary crashes and the standby is promoted: every
# answer in between is a success or 503 system_error (never a wrong 2xx or
# 4xx), the nodes find the new primary by themselves, every write answered
# 2xx before is there, grants work, and a deactivation through A reaches B's
# caches (B listens on the new primary). edgeauth warns at start when url
# names several hosts and the primary replicates asynchronously.
# issue26.4: each step waits for the state it needs (an acknowledged write,
# a 503, a listener), up to a minute, never for a fixed time; how fast B
# hears of a change is a benchmark row, not a check.
. "$(dirname "$0")/../lib.sh"
postgres_only
CL_A=$(mktemp -u /tmp/edgeauth-pga.XXXXXX)   # the server user reaches these, not $TMP
CL_B=$(mktemp -u /tmp/edgeauth-pgb.XXXXXX)
PORT_A=$(free_port)
PORT_B=$(free_port)
B_PID=
cleanup() {
	[ -n "$B_PID" ] && kill "$B_PID" 2> /dev/null
	stop_server
	"$ROOT/scripts/pg-cluster" stop "$CL_A"
	"$ROOT/scripts/pg-cluster" stop "$CL_B"
}
trap cleanup EXIT
pgc() { "$ROOT/scripts/pg-cluster" "$@" >&2; }

pgc start "$CL_A" "$PORT_A" || { fail "the primary did not start"; finish; exit 1; }
EDGEAUTH_PG_HOST=$CL_A EDGEAUTH_PG_PORT=$PORT_A
pg_db_create
pgc standby "$CL_A" "$CL_B" "$PORT_B" || { fail "the standby did not start"; finish; exit 1; }
URL="host=127.0.0.1,127.0.0.1 port=$PORT_A,$PORT_B dbname=$PG_DB user=edgeauth"
URL+=" target_session_attrs=read-write"
on_a() { psql -X -q -At -h 127.0.0.1 -p "$PORT_A" -U edgeauth -d postgres -c "$1"; }

# --- asynchronous replication: a warning at start ---
write_config "$TMP/cli.conf" 1 "store.url=$URL" store.insecure_transport=true
"$EDGEAUTH" -c "$TMP/cli.conf" project list > /dev/null 2> "$TMP/cli.err"
check "warned: several hosts, asynchronous replication" \
	"$(grep -c 'names 2 hosts, but the primary.s synchronous_standby_names is empty' "$TMP/cli.err")" 1
on_a "ALTER SYSTEM SET synchronous_standby_names = '*'" && on_a "SELECT pg_reload_conf()" > /dev/null
for _ in $(seq 1 600); do
	[ "$(on_a "select count(*) from pg_stat_replication where sync_state = 'sync'")" = 1 ] && break
	sleep 0.05
done
check "the standby replicates synchronously" \
	"$(on_a "select sync_state from pg_stat_replication")" sync
"$EDGEAUTH" -c "$TMP/cli.conf" project list > /dev/null 2> "$TMP/cli.err"
check "no warning once it is synchronous" "$(grep -c 'synchronous_standby_names' "$TMP/cli.err")" 0

# --- two nodes ---
start_server "store.url=$URL" store.insecure_transport=true
A=$BASE
B_PORT=$(free_port)
write_config "$TMP/b.conf" "$B_PORT" "server.issuer=$A" "store.url=$URL" store.insecure_transport=true
"$EDGEAUTH" -c "$TMP/b.conf" serve > /dev/null 2>> "$TMP/b.log" &
B_PID=$!
B="http://127.0.0.1:$B_PORT"
for _ in $(seq 1 600); do curl -s -o /dev/null "$B/healthz" && break; sleep 0.05; done

# load: creates and grants through A until $TMP/stop exists; each answer's
# status a line (a minute each at most: a busy machine is slow, not down) ("503 error" for a 503), each acknowledged client's ID kept
load() {
	while [ ! -e "$TMP/stop" ]; do
		curl -s -m 60 -o "$TMP/l.b" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
			-H 'Content-Type: application/json' --data '{"name":"failover"}' \
			"$A$P/clients" > "$TMP/l.s"
		s=$(cat "$TMP/l.s")
		[ "$s" = 201 ] && jq -r .id "$TMP/l.b" >> "$TMP/acked"
		[ "$s" = 503 ] && s="503 $(jq -r .error "$TMP/l.b")"
		echo "$s" >> "$TMP/answers"
		curl -s -m 60 -o "$TMP/l.b" -w '%{http_code}\n' -u "$CLIENT_ID:$CLIENT_SECRET" \
			-d grant_type=client_credentials "$A/api/v1/tokens" > "$TMP/l.s"
		s=$(cat "$TMP/l.s")
		[ "$s" = 503 ] && s="503 $(jq -r .error "$TMP/l.b")"
		echo "$s" >> "$TMP/answers"
	done
}
acked() { [ -s "$TMP/acked" ]; }
refused() { grep -q '^503' "$TMP/answers"; }
recovered() { [ "$(tail -2 "$TMP/answers" | paste -sd,)" = "201,200" ]; }
: > "$TMP/acked"; : > "$TMP/answers"
load &
LOAD=$!
wait_for acked
BEFORE=$(wc -l < "$TMP/acked")
pgc crash "$CL_A"
wait_for refused   # the load saw there is no primary
pgc promote "$CL_B"
wait_for recovered
touch "$TMP/stop"
wait "$LOAD"

[ "$BEFORE" -gt 0 ] && pass || fail "no write was acknowledged before the failover"
check "in between: only successes and 503 system_error" \
	"$(sort -u "$TMP/answers" | grep -Ev '^(200|201|503 system_error)$' | paste -sd,)" ""
[ "$(grep -c '^503' "$TMP/answers")" -gt 0 ] && pass || fail "no 503 while there was no primary"
check "the nodes found the new primary" "$(tail -2 "$TMP/answers" | paste -sd,)" "201,200"
MISSING=0
while read -r id; do
	AUTH="Bearer $TOKEN" req GET "$P/clients/$id"
	[ "$STATUS" = 200 ] || MISSING=$((MISSING + 1))
done < "$TMP/acked"
check "every one of $(wc -l < "$TMP/acked") acknowledged creates is there" "$MISSING" 0
AUTH=none req POST /api/v1/tokens -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials
check_status "grants work after the failover" 200

# B listens on the new primary: a deactivation through A reaches it (a
# client without permissions: its token is good, 403; deactivated, 401)
EDGEAUTH_PG_HOST=$CL_B EDGEAUTH_PG_PORT=$PORT_B
listening() {
	[ "$(db "select count(*) from pg_stat_activity where application_name = 'edgeauth listener'
	         and state = 'idle'")" = 2 ]
}
wait_for listening
AUTH="Bearer $TOKEN" req POST "$P/clients" '{"name":"late"}'
LATE=$(jq -r .id <<<"$BODY"); LATE_SECRET=$(jq -r .client_secret <<<"$BODY")
T=$(BASE=$B client_token "$LATE" "$LATE_SECRET")
check "a token from node B" "$([ -n "$T" ] && [ "$T" != null ] && echo yes)" yes
AUTH="Bearer $T" BASE=$B req GET "$P/clients"
check_status "before: node B takes it (403: it holds no permission)" 403
AUTH="Bearer $TOKEN" req PUT "$P/clients/$LATE" '{"name":"late","is_active":false}'
check_status "deactivated through A" 200
b_refuses() { AUTH="Bearer $T" BASE=$B req GET "$P/clients"; [ "$STATUS" = 401 ]; }
wait_for b_refuses
check "issue26.4: node B refuses it (the deactivation reached its cache)" "$STATUS" 401
kill -TERM "$B_PID"
wait "$B_PID"
check "node B stops cleanly" "$?" 0
B_PID=
finish
