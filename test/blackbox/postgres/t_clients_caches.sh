# A client's create on PostgreSQL leaves the caches be (PG_WRITES_UNCACHED
# in src/store/pg/pg_clients.c; schema/postgres/012): a new client is in no node's
# cache, so its commit empties none, neither this node's (the bearer verdict
# of the caller's token stays cached through a run of creates) nor, without
# permissions, the fleet's (no notification). Permissions granted at create
# still notify, as any write of client_permissions does (version 9).
# Nor does a purge tick's commit (src/store/pg/pg_sessions.c, pg_events.c;
# schema/postgres/021): the verdict stays cached through ticks as well
# (issue26.4: before, a tick that came between the verdict's read and the
# creates, on a loaded machine, emptied it).
. "$(dirname "$0")/../lib.sh"
if [ "$BACKEND" != postgres ]; then
	fail "t_clients_caches runs on PostgreSQL: EDGEAUTH_BACKEND=postgres test/blackbox/run.sh postgres/t_clients_caches.sh"
	finish
	exit 1
fi
MPORT=$(free_port)
# a purge tick every second, each a commit
start_server metrics.listen=127.0.0.1:$MPORT tokens.purge_interval_s=1

check "a create without permissions: no notification" \
	"$(notified POST "$P/clients" '{"name":"quiet"}')" "201 0"
PERM=$(db "select id from permissions where project_id = '$PROJECT_ID' order by id limit 1")
check "a create with a permission: notified" \
	"$(notified POST "$P/clients" "{\"name\":\"granted\",\"permission_ids\":[\"$PERM\"]}")" "201 1"

# val FILE SERIES: the value of the series, 0 when absent
val() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }
HOLDERS='edgeauth_cache_misses_total{cache="token_holders"}'
APP_URI=http://127.0.0.1:9/cb
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$APP_URI\"]}"
check_status "an app to sign in to" 201
APP=$(jq -r .id <<<"$BODY")
req GET "$P/clients?page_size=1"
check_status "the token's verdict read (and kept)" 200
curl -s -o "$TMP/before" "http://127.0.0.1:$MPORT/metrics"
N=5
for i in $(seq $N); do
	req POST "$P/clients" "{\"name\":\"run $i\"}"
	check_status "create $i" 201
done
curl -s -o "$TMP/after" "http://127.0.0.1:$MPORT/metrics"
check "through $N creates the verdict stayed cached" \
	"$(( $(val "$TMP/after" "$HOLDERS") - $(val "$TMP/before" "$HOLDERS") ))" 0

# purge ticks, idle: the only commits now are theirs (sessions and events,
# each a commit; what they delete, if any, is in no cache)
COMMITS=edgeauth_store_commit_duration_seconds_count
C0=$(val "$TMP/after" "$COMMITS")
ticked() { [ "$(metric "$MPORT" "$COMMITS")" -ge $((C0 + 2)) ]; }
wait_for ticked
check "purge ticks committed" "$?" 0
req GET "$P/clients?page_size=1"
check_status "the token's verdict read again" 200
curl -s -o "$TMP/ticked" "http://127.0.0.1:$MPORT/metrics"
check "through purge ticks the verdict stayed cached" \
	"$(( $(val "$TMP/ticked" "$HOLDERS") - $(val "$TMP/before" "$HOLDERS") ))" 0

# an event recorded alone (store_event_record: a refused sign-in, a device
# poll, an access denial) commits a row no cache holds: before, each emptied
# the node's caches, so a kiosk's polls or a stream of wrong passwords kept
# every verdict of that node uncached
ANSWER=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/authorize" -d response_type=code \
	-d "client_id=$APP" --data-urlencode "redirect_uri=$APP_URI" -d code_challenge_method=S256 \
	-d code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM --data-urlencode email=nobody@example.com \
	--data-urlencode 'password=not the password')
check "a refused sign-in" "$ANSWER" 401
req GET "$P/events?action=signin.failure"
check_status "its event read" 200
check_json "its event recorded" '.data | length' 1
curl -s -o "$TMP/refused" "http://127.0.0.1:$MPORT/metrics"
check "through the refused sign-in's event the verdict stayed cached" \
	"$(( $(val "$TMP/refused" "$HOLDERS") - $(val "$TMP/before" "$HOLDERS") ))" 0
finish
