# A full disk (issue 24.14, 24.16), on a small tmpfs: a read that shares
# its batch with a write that cannot commit keeps its answer; a start on a
# full disk names the store's file and the cause; a backup into a full
# filesystem, or killed halfway, leaves no file behind at the destination
# and no journal. Root only (mount); SQLite alone (run-tests leaves it out
# on PostgreSQL, whose disk is the database's).
. "$(dirname "$0")/lib.sh"
if [ "$BACKEND" != sqlite ]; then
	echo "skip: SQLite's files only"
	finish; exit
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: needs root to mount a tmpfs"
	finish; exit
fi
MOUNTS=()
# small_fs NAME SIZE: a tmpfs of SIZE at $TMP/NAME, unmounted at the end
small_fs() {
	mkdir -p "$TMP/$1"
	mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$TMP/$1" || { fail "mount a tmpfs at $TMP/$1"; return 1; }
	MOUNTS+=("$TMP/$1")
}
unmount_all() { local m; for m in "${MOUNTS[@]}"; do umount "$m"; done; MOUNTS=(); }
trap 'stop_server; unmount_all' EXIT
# fill DIR: the filesystem at DIR has no byte left
fill() { cat /dev/zero > "$1/fill" 2> /dev/null; }

# issue24.14: while writes fail, reads that share their loop tick answer
# as they would. The server is stopped while a write and then five reads
# arrive, so that it takes them up in one loop iteration: one batch.
small_fs store 4m
start_server "store.path=$TMP/store/edgeauth.db"
req POST "$P/users" '{"display_name":"Reader","external_user_id":"reader"}'
USER_ID=$(jq -r .id <<<"$BODY")
fill "$TMP/store"
for i in $(seq 1 100); do   # the WAL's free room taken up: a write fails
	req POST "$P/users" "{\"display_name\":\"Fill $i\",\"external_user_id\":\"fill-$i\"}"
	[ "$STATUS" = 500 ] && break
done
check_err "issue24.14: on a full disk a write fails" 500 system_error
kill -STOP "$SERVER_PID"
curl -s -o "$TMP/w.body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
	-d '{"display_name":"Nope","external_user_id":"nope"}' "$BASE$P/users" > "$TMP/w.status" &
W=$!
# (the waits, for the listen backlog to hold the write and then the reads,
# make it likely that the write is taken up first, in the reads' batch; a
# read taken up alone, or before the write, answers 200 all the same: a slow
# machine cannot make this fail. issue26.4: by state, not by sleeps)
backlog() { [ "$(ss -Hltn "sport = :$PORT" | awk '{ print $2 + 0; exit }')" -ge "$1" ]; }
wait_for backlog 1
READS=()
for i in 1 2 3 4 5; do
	curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" "$BASE$P/users/$USER_ID" > "$TMP/r$i.status" &
	READS+=($!)
done
wait_for backlog 6
kill -CONT "$SERVER_PID"
wait "$W" "${READS[@]}"
check "issue24.14: the write of that batch fails" "$(cat "$TMP/w.status")" 500
check "issue24.14: the five reads beside it answer 200" "$(cat "$TMP"/r*.status | sort | uniq -c | awk '{print $1 "x" $2}')" 5x200
rm -f "$TMP/store/fill"
req POST "$P/users" '{"display_name":"Room","external_user_id":"room"}'
check_status "issue24.14: room again: a create works" 201
stop_server

# issue24.16: a start on a full disk names the file and the cause
small_fs start 64k
fill "$TMP/start"
write_config "$TMP/start.conf" "$(free_port)" "store.path=$TMP/start/edgeauth.db"
"$EDGEAUTH" -c "$TMP/start.conf" serve > /dev/null 2> "$TMP/start.log"
check "issue24.16: a start on a full disk fails" "$?" 1
check "issue24.16: ... naming the store's file and the cause" \
	"$(grep -c "$TMP/start/edgeauth.db.*No space left on device" "$TMP/start.log")" 1

# issue24.16: a backup into a filesystem without room for it fails and
# leaves nothing: on filesystems from a little smaller than the copy to a
# little larger (the copy fails at each of its writes in turn)
start_server
for i in $(seq 1 50); do req POST "$P/users" "{\"display_name\":\"Seed $i\",\"external_user_id\":\"seed-$i\"}" > /dev/null; done
"$EDGEAUTH" -c "$CONF" backup "$TMP/ref.db" > /dev/null 2>&1
KB=$(( $(stat -c %s "$TMP/ref.db") / 1024 ))
LEFT="" FAILS=0
for kb in $(seq $((KB - 8)) 8 $((KB + 32))); do
	small_fs "dest$kb" "${kb}k" || continue
	# one that fits is whole, and is all there is
	if "$EDGEAUTH" -c "$CONF" backup "$TMP/dest$kb/backup.db" > /dev/null 2> "$TMP/backup.log"; then
		LEFT+=$(ls -A "$TMP/dest$kb" | grep -vx backup.db | sed "s/^/${kb}k:/")
		continue
	fi
	FAILS=$((FAILS + 1))
	grep -q 'backup failed' "$TMP/backup.log" || fail "issue24.16: a failed backup says so"
	LEFT+=$(ls -A "$TMP/dest$kb" | sed "s/^/${kb}k:/")
done
check "issue24.16: backups into full filesystems fail" "$([ "$FAILS" -ge 3 ] && echo yes || echo "$FAILS")" yes
check "issue24.16: ... and leave no file, no journal" "$LEFT" ""

# issue24.16: a backup killed halfway (at its first sync) leaves no file at
# the destination's name
strace -f -o /dev/null -e trace=fsync,fdatasync -e inject=fsync,fdatasync:signal=SIGKILL \
	"$EDGEAUTH" -c "$CONF" backup "$TMP/killed.db" > /dev/null 2>&1
check "issue24.16: a backup killed halfway leaves no file at its name" \
	"$([ -e "$TMP/killed.db" ] && echo "$(stat -c %s "$TMP/killed.db") bytes" || echo none)" none
"$EDGEAUTH" -c "$CONF" backup "$TMP/whole.db" > /dev/null 2>&1
check "issue24.16: a backup that ends is at its name" "$(db "PRAGMA integrity_check" "$TMP/whole.db")" ok
check "issue24.16: ... and nothing beside it" "$(ls "$TMP" | grep -c '^whole\.db.')" 0
stop_server
unmount_all
finish
