# The store's sync leaves the loop (synchronous=full, group commit): on a
# disk whose syncs wait until the test lets them go (slowsync.c, LD_PRELOAD:
# "hold"), /healthz and discovery answer while a write waits for the disk;
# the write's answer, and that of a read of what it wrote, leave only once
# the sync is done; writes that come together share a sync; after a failed
# sync the answers go, and the store refuses writes until restart. SQLite
# alone: run-tests leaves it out on PostgreSQL, whose commits and syncs are
# the database's. issue26.4: every order is checked by state (a sync begun,
# a request seen, an answer not yet there), never by the time it took.
. "$(dirname "$0")/lib.sh"
DISK=$TMP/disk
if ! cc -shared -fPIC -o "$TMP/slowsync.so" "$BB_DIR/slowsync.c" -ldl; then
	fail "slowsync.c builds"
	finish
fi
# (an ASan build wants its runtime first; the shim calls nothing it checks)
MPORT=$(free_port)
EDGEAUTH_WRAPPER="env LD_PRELOAD=$TMP/slowsync.so SLOWSYNC_FILE=$DISK ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	start_server store.synchronous=full "metrics.listen=127.0.0.1:$MPORT"

# answer METHOD PATH [BODY]: "status" of one request, as the admin, a
# minute at most
answer() {
	local args=(-s -m 60 -o /dev/null -w '%{http_code}\n' -X "$1" -H "Authorization: Bearer $TOKEN")
	[ $# -gt 2 ] && args+=(-H 'Content-Type: application/json' --data "$3")
	curl "${args[@]}" "$BASE$2"
}
syncs() { [ -e "$DISK.log" ] && wc -l < "$DISK.log" || echo 0; }
syncs_begun() { [ "$(syncs)" -ge "$1" ]; }
# bearer tokens looked up: each request with one adds one (the metrics
# listener answers on the loop, so a request it counted was handled)
lookups() {
	echo $(( $(metric "$MPORT" 'edgeauth_cache_hits_total{cache="token_holders"}') +
		$(metric "$MPORT" 'edgeauth_cache_misses_total{cache="token_holders"}') ))
}
lookups_reach() { [ "$(lookups)" -ge "$1" ]; }
# pending FILE: "pending" while an answer's status has not reached FILE
pending() { [ ! -s "$1" ] && echo pending || echo "answered: $(cat "$1")"; }

echo hold > "$DISK"; : > "$DISK.log"
answer POST "$P/users" '{"display_name":"Slow","external_user_id":"slow-1"}' > "$TMP/create" &
CREATE=$!
wait_for syncs_begun 1 || fail "issue26.4: the create's sync never began"
HS=$(answer GET /healthz)
HS_HELD=$(pending "$TMP/create")
DS=$(answer GET /.well-known/openid-configuration)
DS_HELD=$(pending "$TMP/create")
SEEN=$(lookups)
answer GET "$P/users/external/slow-1" > "$TMP/read" &
READ=$!
wait_for lookups_reach $((SEEN + 1)) || fail "issue26.4: the server never saw the read"
CREATE_HELD=$(pending "$TMP/create")
READ_HELD=$(pending "$TMP/read")
echo 0 > "$DISK"
wait "$CREATE" "$READ"
check "a create on a slow disk" "$(cat "$TMP/create")" 201
check "... answered once its sync is done (not while the disk held it)" "$CREATE_HELD" pending
check "/healthz meanwhile" "$HS" 200
check "... at once: the loop does not wait for the disk" "$HS_HELD" pending
check "discovery meanwhile" "$DS" 200
check "... at once too" "$DS_HELD" pending
check "a read of the user meanwhile" "$(cat "$TMP/read")" 200
check "... answered only after the sync (it saw the write)" "$READ_HELD" pending

# writes that come together share syncs: 10 creates, their first sync held
# until all ten were handled, take two syncs, not ten (a third may be one of
# the server's own writes, made meanwhile)
echo hold > "$DISK"; : > "$DISK.log"
SEEN=$(lookups)
MANY=()
for i in $(seq 1 10); do
	answer POST "$P/users" "{\"display_name\":\"Many $i\",\"external_user_id\":\"many-$i\"}" > "$TMP/many$i" &
	MANY+=($!)
done
wait_for lookups_reach $((SEEN + 10)) || fail "issue26.4: the server never saw the ten creates"
wait_for syncs_begun 1 || fail "issue26.4: no sync began"
echo 0 > "$DISK"
wait "${MANY[@]}"
check "10 creates at once" "$(cat "$TMP"/many* | cut -d' ' -f1 | sort | uniq -c | awk '{print $1 "x" $2}')" 10x201
SYNCS=$(syncs)
check "... in a few syncs, not ten" "$([ "$SYNCS" -le 3 ] && echo yes || echo "no: $SYNCS syncs")" yes

# a sync that fails (issue24.9): the write committed, and others may have
# read it, so its answer goes as it is (an error would be a lie, and a
# retried refresh would be taken as reuse); the log, the metrics and
# /healthz say that durability is lost, and writes are refused (503) until
# a restart
# the server's own write (new users' search keys, once it is idle) done
# first, and its sync too (an answer waits for the sync under way), so that
# the failing sync is the create's
moved() { [ "$(db "select count(*) from user_suffixes_pending")" = 0 ]; }
wait_for moved || fail "issue26.4: the search keys of the new users were never written"
req GET "$P/users/external/many-1"
echo fail > "$DISK"
req POST "$P/users" '{"display_name":"Kept","external_user_id":"kept-1"}'
check_status "issue24.9: a create whose sync failed is answered as committed" 201
check "issue24.9: the failure logged" "$([ "$(grep -c 'sync of .* failed: .*may not survive a crash' "$TMP/server.log")" -ge 1 ] && echo yes)" yes
echo 0 > "$DISK"
req GET "$P/users/external/kept-1"
check_status "issue24.9: ... it is there" 200
req POST "$P/users" '{"display_name":"Back","external_user_id":"back-1"}'
check_err "issue24.9: the next write is refused" 503 system_error
req GET /healthz
check_status "issue24.9: /healthz says the store refuses writes" 503

finish
