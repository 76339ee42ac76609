# GET /readyz (docs/operations.md §"Readiness", issue 27): 200 ready when the
# store answers a read and the signing keys sign; 503 unavailable, with no
# detail, when the store cannot (SQLite: a store that refuses writes;
# PostgreSQL: the database stopped), the log saying why; ready again once
# the store is back. /healthz stays the liveness probe.
. "$(dirname "$0")/lib.sh"
[ "$BACKEND" = postgres ] && own_cluster   # stopped below
start_server store.path="$TMP/ready/edgeauth.db"

AUTH=none req GET /readyz
check_status "issue27.readyz: a ready node answers 200" 200
check "issue27.readyz: its body" "$(jq -c . <<<"$BODY")" '{"status":"ready"}'
check_header "issue27.readyz: never cached" '^Cache-Control: no-store'
AUTH=none req POST /readyz
check_status "issue27.readyz: GET only" 405

if [ "$BACKEND" = sqlite ]; then
	# the WAL unlinked: the next write finds it, and the store refuses writes
	rm "$TMP/ready/edgeauth.db-wal"
	req POST "$P/users" '{"display_name":"After","external_user_id":"after"}'
	check_err "issue27.readyz: the write after the fault is refused" 503 system_error
else
	"$ROOT/scripts/pg-cluster" halt "$CLUSTER"
fi
AUTH=none req GET /readyz -m 60
check_status "issue27.readyz: a store that cannot serve: 503" 503
check "issue27.readyz: with no detail" "$(jq -c . <<<"$BODY")" '{"status":"unavailable"}'
check "issue27.readyz: the log says why" "$(grep -c '/readyz: not ready: the store' "$TMP/server.log")" 1
AUTH=none req GET /healthz -m 60
if [ "$BACKEND" = postgres ]; then
	check_status "issue27.readyz: /healthz stays the liveness probe" 200
	"$ROOT/scripts/pg-cluster" start "$CLUSTER" >&2
	ready() { [ "$(curl -s -m 60 -o /dev/null -w '%{http_code}' "$BASE/readyz")" = 200 ]; }
	wait_for ready
	check "issue27.readyz: ready again once the database is back" "$?" 0
fi
finish
